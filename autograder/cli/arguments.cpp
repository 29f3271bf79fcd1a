#include "launchlab/cli/arguments.h"

#include <algorithm>
#include <charconv>
#include <iostream>

namespace launchlab::cli {

namespace {

/// "launchlab grade": the names from the top program down to command.
std::string full_name(const CLI::App& command) {
  std::string name = command.get_name();
  for (const CLI::App* parent = command.get_parent(); parent; parent = parent->get_parent()) {
    name = parent->get_name() + " " + name;
  }
  return name;
}

/// The subcommand the parse reached, where the error belongs.
CLI::App& reached(CLI::App& app) {
  CLI::App* command = &app;
  while (!command->get_subcommands().empty()) command = command->get_subcommands().front();
  return *command;
}

/// Edits from a to b, a swap of two neighbours counting as one (the usual typo).
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::vector<std::string> option_names(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command.get_options()) {
    for (const auto& name : option->get_lnames()) names.push_back("--" + name);
    for (const auto& name : option->get_snames()) names.push_back("-" + name);
  }
  return names;
}

std::vector<std::string> subcommand_names(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::App* sub : command.get_subcommands({})) names.push_back(sub->get_name());
  return names;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  auto guess = closest(word, candidates);
  return guess ? " (did you mean '" + *guess + "'?)" : "";
}

/// What is wrong with the arguments left over: the first that looks like an
/// option, else the first; a value given to an unknown option is not news.
std::string extras_message(const CLI::App& command, const std::vector<std::string>& extras) {
  auto option = std::find_if(extras.begin(), extras.end(), [](const std::string& arg) { return arg.size() > 1 && arg[0] == '-'; });
  if (option != extras.end()) {
    std::string name = option->substr(0, option->find('='));
    return "unknown option '" + name + "'" + did_you_mean(name, option_names(command));
  }
  if (extras.empty()) return "unexpected arguments";
  if (!command.get_subcommands({}).empty() && command.get_subcommands().empty()) {
    return "unknown command '" + extras.front() + "'" + did_you_mean(extras.front(), subcommand_names(command));
  }
  const bool takes_arguments = !command.get_options([](const CLI::Option* o) { return o->get_positional(); }).empty();
  return "unexpected argument '" + extras.front() + "'" + (takes_arguments ? "" : ": " + full_name(command) + " takes none");
}

}  // namespace

std::optional<std::string> closest(std::string_view word, const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  // Compared without their dashes: "--lab" is near "--labs", as "lst" is near "list".
  auto bare = [](std::string_view name) {
    auto start = name.find_first_not_of('-');
    return start == std::string_view::npos ? name : name.substr(start);
  };
  for (const auto& candidate : candidates) {
    std::string_view a = bare(word), b = bare(candidate);
    std::size_t distance = edit_distance(a, b);
    bool prefix = a.size() >= 2 && b.size() >= 2 && (b.starts_with(a) || a.starts_with(b));
    bool near = distance <= std::max<std::size_t>(1, std::min<std::size_t>(2, b.size() / 3));
    if (!prefix && !near) continue;
    if (prefix) distance = std::min<std::size_t>(distance, 1);
    if (!best || distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string help_of(const CLI::App& command) {
  return command.get_formatter()->make_help(&command, full_name(command), CLI::AppFormatMode::Normal);
}

std::optional<int> parse_arguments(CLI::App& app, int argc, const char* const* argv) {
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::CallForHelp&) {
    std::cout << help_of(reached(app));
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::ParseError& error) {
    CLI::App& command = reached(app);
    std::string what = error.what();
    std::vector<std::string> extras = command.remaining();
    // "launchlab lst" is an unknown command, which CLI11 reports as a missing one.
    const bool unknown_command = dynamic_cast<const CLI::RequiredError*>(&error) && command.get_subcommands().empty() &&
                                 !command.get_subcommands({}).empty() && !extras.empty();
    if (dynamic_cast<const CLI::ExtrasError*>(&error) || unknown_command) {
      if (extras.empty()) extras = app.remaining(true);
      what = extras_message(command, extras);
    }
    std::cerr << full_name(command) << ": " << what << "\n`" << full_name(command) << " --help` says what "
              << (&command == &app ? "the commands are" : "it takes") << ".\n";
    return 2;
  }
}

CLI::Validator existing_folder() {
  CLI::Validator validator = CLI::ExistingDirectory;
  validator.description("");  // the option's type name already says DIR
  return validator;
}

CLI::Validator existing_file() {
  CLI::Validator validator = CLI::ExistingFile;
  validator.description("");
  return validator;
}

CLI::Validator whole_number(std::int64_t low, std::int64_t high) {
  return CLI::Validator(
      [low, high](std::string& text) -> std::string {
        std::int64_t value = 0;
        auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error != std::errc() || end != text.data() + text.size()) return "'" + text + "' is not a whole number";
        if (value < low || value > high) {
          return "'" + text + "' is out of range (" + std::to_string(low) + " to " + std::to_string(high) + ")";
        }
        return "";
      },
      "");
}

CLI::Validator unsigned_64() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::string_view digits = text;
        int base = 10;
        if (digits.starts_with("0x") || digits.starts_with("0X")) {
          digits.remove_prefix(2);
          base = 16;
        }
        std::uint64_t value = 0;
        auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
        if (digits.empty() || error != std::errc() || end != digits.data() + digits.size()) {
          return "'" + text + "' is not an unsigned 64-bit number (decimal, or hexadecimal after 0x)";
        }
        return "";
      },
      "");
}

}  // namespace launchlab::cli
