/// @file
/// grade-class as a library: a class graded side by side on this host or as a
/// Slurm job array, then its gradebook. The launchlab command is a thin
/// layer over it (autograder/cli/grade_class_command.cpp).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "launchlab/class/gradebook.h"

namespace launchlab::course {
struct Lab;
}

namespace launchlab::classroom {

/// The seed of one submission's grading, from the course secret:
/// derive_seed of the student and a digest of the files of `graded_labs`
/// (as `launchlab grade` finds them in the submission), so that a
/// resubmission with other files gets other inputs and a regrade of the
/// same files the same ones. `launchlab grade --seed-secret` and
/// grade-class both draw from it.
StudentSeed derive_submission_seed(std::string_view secret, std::string_view student,
                                   const std::filesystem::path& submission, const std::vector<course::Lab>& graded_labs);

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
  std::string class_file;                ///< due dates, late policy, LMS identities (policies.h); empty: none
  bool similarity = false;               ///< compare every pair of submissions per lab (similarity.h)
  int similarity_threshold_percent = 50;
  std::vector<std::string> sbatch_args;
  int cpus_per_task = 2;
  int wait_seconds = 12 * 3600;
  // What the Slurm jobs that grade-class submits run: the course made ready
  // (launchlab grade --prepare), one student's grading, or the gradebook.
  bool prepare = false;
  int task = -1;
  bool collect = false;
};

/// Runs grade-class for the course at root whose launchlab program was built
/// in build; returns the command's exit status. Throws std::runtime_error
/// saying what is wrong with the arguments or the submissions.
int grade_class(const std::filesystem::path& root, const std::filesystem::path& build,
                const GradeClassArguments& args);

/// The course secret a file holds (its trailing newline left out); throws
/// std::runtime_error when the file cannot be read or holds nothing.
std::string read_course_secret(const std::filesystem::path& file);

}  // namespace launchlab::classroom
