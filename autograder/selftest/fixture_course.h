/// @file
/// The fixture course (fixture_course/: two tiny labs) made whole and
/// committed, for the selftests that grade or export it exactly as the real
/// course: the course's own build files and test support beside the
/// fixture's labs, solutions and tests.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "launchlab/grader/process.h"

namespace launchlab::selftest {

namespace fs = std::filesystem;
using namespace launchlab::grader;

inline const fs::path kSource = LAUNCHLAB_SOURCE_DIR;
inline const fs::path kSelftest = LAUNCHLAB_SELFTEST_DIR;
inline const fs::path kFixture = kSelftest / "fixture_course";

inline fs::path fresh_temp_dir(const std::string& tag) {
  std::random_device entropy;
  fs::path dir = fs::temp_directory_path() /
                 ("launchlab-" + tag + "-" + std::to_string(getpid()) + "-" + std::to_string(entropy()));
  fs::create_directories(dir);
  return dir;
}

inline std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

inline void run_or_fail(const std::vector<std::string>& argv, const fs::path& cwd, const std::vector<std::string>& env = {}) {
  RunLimits limits;
  limits.timeout = std::chrono::minutes(2);
  RunOutcome outcome = run_limited(argv, cwd, env, limits);
  ASSERT_TRUE(outcome.exited_cleanly()) << argv[0] << " " << argv[1] << " " << outcome.describe(limits) << ":\n"
                                        << outcome.output;
}

/// Commits every file of `dir` (a new repository the first time) by a fixed
/// author at a fixed time: the same files make the same revision in every
/// process, and the trusted part built for that revision is reused.
inline void commit_all(const fs::path& dir, const std::string& message, const std::string& date = "2025-01-01T00:00:00Z") {
  const std::vector<std::string> env = {"GIT_AUTHOR_NAME=launchlab selftest", "GIT_AUTHOR_EMAIL=selftest@launchlab",
                                        "GIT_COMMITTER_NAME=launchlab selftest", "GIT_COMMITTER_EMAIL=selftest@launchlab",
                                        "GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date, "GIT_CONFIG_NOSYSTEM=1"};
  if (!fs::exists(dir / ".git")) run_or_fail({"git", "-c", "init.defaultBranch=main", "init", "-q"}, dir, env);
  run_or_fail({"git", "add", "-A"}, dir, env);
  run_or_fail({"git", "-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", message},
              dir, env);
}

/// The fixture course made whole in `into`: the course's own build (its
/// top-level CMakeLists.txt, cmake/, the course model that reads lab.toml,
/// the test support) beside the fixture's labs, solutions and tests. Not
/// committed yet.
inline void compose_fixture_course(const fs::path& into, fs::copy_options how = fs::copy_options::recursive) {
  for (const char* shared : {"CMakeLists.txt", "cmake", "autograder/CMakeLists.txt", "autograder/course",
                             "autograder/support", "labs/CMakeLists.txt"}) {
    fs::create_directories((into / shared).parent_path());
    fs::copy(kSource / shared, into / shared, how);
  }
  fs::copy(kFixture, into, how);
}

}  // namespace launchlab::selftest
