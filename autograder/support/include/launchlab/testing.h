/// @file
/// Helpers shared by every lab's tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace launchlab::testing {

/// Why no CUDA device can be used here, or nothing when one can.
std::optional<std::string> gpu_unavailable_reason();

/// The full path of a CUDA tool (nvcc, cuobjdump, nvdisasm, ...), looked up
/// beside nvcc first and then on PATH; nothing when it is not installed.
std::optional<std::filesystem::path> find_cuda_tool(std::string_view name);

/// The seed for a test's random inputs: LAUNCHLAB_SEED when the grader sets
/// it (an instructor's `launchlab grade --seed N`, so that graded inputs
/// differ from the ones a learner saw), otherwise fallback.
std::uint64_t secret_seed(std::uint64_t fallback);

/// The nvcc this course was configured with.
std::filesystem::path nvcc();

/// A test's input files: autograder/tests/<relative>.
std::filesystem::path test_data(std::string_view relative);

/// What a finished command left behind.
struct CommandResult {
  int exit_code = -1;       ///< the exit status, or 128 + signal number
  std::string output;       ///< standard output and error, interleaved
};

/// Runs argv (no shell) in cwd and collects its output.
CommandResult run_command(const std::vector<std::string>& argv,
                          const std::filesystem::path& cwd = {});

/// Runs argv like run_command() and returns its output; throws
/// std::runtime_error, with the command and its output, when it exits with
/// a status other than 0.
std::string output_of(const std::vector<std::string>& argv, const std::filesystem::path& cwd = {});

/// The text with every run of spaces and tabs made one space, and none at
/// the end: tools align their columns differently from one version to the next.
std::string collapse_spaces(std::string_view text);

/// A fresh folder under the system's temporary folder, removed on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// The median of the values, written out here so that a test never relies
/// on the statistics it is grading: for an even count, the mean of the two
/// middle values (throws std::invalid_argument when there are none).
double median_of(std::vector<double> values);

/// The lines of a text, without their line ends ("\n" or "\r\n").
std::vector<std::string> lines_of(std::string_view text);

/// The text with its lines numbered from 1 ("   3 | #$ ptxas ..."), for the
/// context of a record whose input is a text: a message about "line 3" can
/// then be checked against the input itself.
std::string with_line_numbers(std::string_view text);

/// The message of the exception of type E that a call throws, or a sentence
/// saying that it threw none: what a record of an error message holds.
template <class E, class Call>
std::string message_thrown(Call&& call) {
  try {
    call();
  } catch (const E& e) {
    return e.what();
  } catch (...) {
  }
  return "(no exception of the expected type was thrown)";
}

/// The whole content of a file (throws std::runtime_error when it cannot be read).
std::string read_file(const std::filesystem::path& path);

/// Writes a file, creating its folders.
void write_file(const std::filesystem::path& path, std::string_view content);

/// A readable account of the first place two sequences differ, for failure
/// messages: "first difference at [3]: expected 24, got 20".
template <class Expected, class Actual>
::testing::AssertionResult SameSequence(const Expected& expected, const Actual& actual) {
  std::size_t i = 0;
  auto e = std::begin(expected);
  auto a = std::begin(actual);
  for (; e != std::end(expected) && a != std::end(actual); ++e, ++a, ++i) {
    if (!(*e == *a)) {
      return ::testing::AssertionFailure() << "first difference at [" << i << "]: expected "
                                           << ::testing::PrintToString(*e) << ", got "
                                           << ::testing::PrintToString(*a);
    }
  }
  if (e != std::end(expected) || a != std::end(actual)) {
    std::size_t expected_size = static_cast<std::size_t>(std::distance(std::begin(expected), std::end(expected)));
    std::size_t actual_size = static_cast<std::size_t>(std::distance(std::begin(actual), std::end(actual)));
    return ::testing::AssertionFailure() << "the first " << i << " elements agree, then sizes differ: expected "
                                         << expected_size << " elements, got " << actual_size;
  }
  return ::testing::AssertionSuccess();
}

}  // namespace launchlab::testing

/// Skips the current test, saying why, when no CUDA device can be used. The
/// grader reports such a test as "needs a GPU", never as failed.
#define LAUNCHLAB_REQUIRE_GPU()                                                   \
  do {                                                                            \
    if (auto launchlab_reason = ::launchlab::testing::gpu_unavailable_reason()) { \
      GTEST_SKIP() << "needs a GPU: " << *launchlab_reason;                       \
    }                                                                             \
  } while (false)

/// Skips the current test, saying why, when a CUDA tool is not installed, and
/// otherwise stores its path in the named variable.
#define LAUNCHLAB_REQUIRE_TOOL(variable, tool_name)                               \
  auto variable##_found = ::launchlab::testing::find_cuda_tool(tool_name);       \
  if (!variable##_found) {                                                        \
    GTEST_SKIP() << "needs " << (tool_name) << ", which is not installed here";  \
  }                                                                               \
  const std::filesystem::path variable = *variable##_found
