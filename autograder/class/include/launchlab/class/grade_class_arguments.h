/// @file
/// grade-class's arguments, as its command line gives them: on their own, so
/// that the launchlab program reads grade-class's command line (and answers
/// its --help) without the library that grades.
#pragma once

#include <string>
#include <vector>

namespace launchlab::classroom {

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

}  // namespace launchlab::classroom
