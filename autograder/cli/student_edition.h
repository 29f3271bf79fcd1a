/// @file
/// The student edition: `launchlab export-student DIR` writes the course as
/// an instructor publishes it (a repository template), without solutions or
/// instructor-only material, with the expectations that let its `test` and
/// `grade` judge the public tests without the solutions
/// (launchlab/grader/expectations.h); `lint` (and so `check`) in such a tree
/// checks what a student edition must be.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "launchlab/grader/grading.h"

namespace launchlab::cli {

/// What export-student was given.
struct ExportStudentArguments {
  std::string into;
};

CLI::App& define_export_student(CLI::App& app, ExportStudentArguments& args);

/// Exports the committed course at root (never its working tree) into a new
/// or empty folder; the reference programs are built in build/student-edition.
int command_export_student(const std::filesystem::path& root, const std::filesystem::path& build,
                           const std::string& cuda_architectures, const ExportStudentArguments& args);

/// Whether the course at root is a student edition (it has expectations).
bool is_student_edition(const std::filesystem::path& root);

/// Where a student edition keeps its starters as exported
/// (starters/NN_slug/FILE): the learner edits labs/ in place and may commit
/// it, so `launchlab reset` needs a copy that no commit of theirs changes.
std::filesystem::path edition_starters_folder(const std::filesystem::path& root);

/// The course linter of a student edition: its labs, starters and tests are
/// whole, it holds no solutions, its expectations cover every test, and
/// every starter fails a test that can run here. Returns the problems.
std::vector<std::string> lint_student_edition(const std::filesystem::path& root, const std::filesystem::path& build_dir,
                                              const grader::Capabilities& capabilities);

/// The paths a student edition leaves out, relative to the course's root,
/// each with why (docs/instructors.md gives the same list).
const std::vector<std::pair<std::string, std::string>>& instructor_only_paths();

}  // namespace launchlab::cli
