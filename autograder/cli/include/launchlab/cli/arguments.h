/// @file
/// How the launchlab program and the inspect tools read their arguments:
/// through CLI11, strictly. An unknown command or option, a missing value or
/// a bad one is an error that names it, said before anything is built, run or
/// graded; `--help` works for every command and answers at once.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace launchlab::cli {

/// Parses the command line into app. Returns nothing when the command may
/// run. Otherwise returns the exit status: 0 after printing the help that was
/// asked for (on stdout), 2 after saying what is wrong (on stderr), as in
/// "launchlab grade: unknown option '--sumbission' (did you mean '--submission'?)".
std::optional<int> parse_arguments(CLI::App& app, int argc, const char* const* argv);

/// The help of command (app itself or one of its subcommands), with the full
/// command name in its usage line.
std::string help_of(const CLI::App& command);

/// The closest of candidates to word, when one is close enough to be what was
/// meant (a typo of two letters, or a prefix: --lab for --labs).
std::optional<std::string> closest(std::string_view word, const std::vector<std::string>& candidates);

/// CLI11's ExistingDirectory and ExistingFile, without the ":DIR" and
/// ":FILE" they add to an option's type name in the help.
CLI::Validator existing_folder();
CLI::Validator existing_file();

/// Accepts a whole number from low to high (CLI11's own Range also takes
/// "2.5" and prints its bounds as floating point).
CLI::Validator whole_number(std::int64_t low, std::int64_t high);

/// Accepts an unsigned 64-bit number, decimal or 0x hexadecimal.
CLI::Validator unsigned_64();

}  // namespace launchlab::cli
