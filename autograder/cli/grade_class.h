#pragma once

#include <CLI/CLI.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace launchlab::cli {

/// grade-class's arguments, as given.
struct GradeClassArguments {
  std::string submissions;
  std::string out;
  std::string engine = "local";
  int jobs = 0;                          ///< 0: local, a quarter of the cores (at least 1); Slurm, no limit
  std::vector<std::string> labs;         ///< slugs, once parsed; empty: every lab
  std::string seed_secret_file;
  std::string course_secret;
  std::vector<std::string> regrade;      ///< students
  bool regrade_failed = false;
  std::string private_tests;
  std::string private_visibility = "hidden";
  int test_timeout_seconds = 0;
  int grading_timeout_seconds = 3600;
  bool keep_work = false;
  std::vector<std::string> sbatch_args;
  int cpus_per_task = 2;
  int wait_seconds = 12 * 3600;
  // What the Slurm jobs that grade-class submits run: one student's grading,
  // or the gradebook.
  int task = -1;
  bool collect = false;
};

/// Adds the grade-class command to app; lab_number turns "00" into a slug.
CLI::App& define_grade_class(CLI::App& app, GradeClassArguments& args, const CLI::Validator& lab_number);

/// The course secret a file holds (its trailing newline left out); throws
/// std::runtime_error when the file cannot be read or holds nothing.
std::string read_course_secret(const std::filesystem::path& file);

/// Runs grade-class for the course at root whose launchlab program was built in build.
int command_grade_class(const std::filesystem::path& root, const std::filesystem::path& build,
                        const GradeClassArguments& args);

}  // namespace launchlab::cli
