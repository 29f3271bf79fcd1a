/// @file
/// Helpers shared by every lab's tests.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <typeinfo>
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

/// A random engine for the running test's drawn inputs (RECORD_OUTCOME,
/// launchlab/record.h): seeded with secret_seed(fallback) and the test's
/// name, so that each test draws inputs of its own, both builds of a test
/// draw the same ones, and the grader's seed changes them all.
std::mt19937_64 seeded_random(std::uint64_t fallback);

/// The nvcc this course was configured with.
std::filesystem::path nvcc();

/// A test's own input files, which no learner reads: autograder/tests/<relative>.
std::filesystem::path test_data(std::string_view relative);

/// A lab's material, what its tests read and its chapter shows (listings,
/// cubins, captures, kernels): labs/<relative>, where relative starts with
/// the lab's slug and one of the lab folder's folders, e.g.
/// "02_reading_sass/fixtures/vadd.sm_90.cubin". Under the grader it is a
/// copy of the committed course's labs/ (never the submission's), in the
/// folder LAUNCHLAB_TEST_DATA names.
std::filesystem::path lab_material(std::string_view relative);

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

/// The test program's own scratch folder, under the system's temporary
/// folder, made on first use and removed when the program ends.
const std::filesystem::path& work_dir();

namespace detail {
const void* made_once(const std::string& key, const std::type_info& type,
                      const std::function<std::shared_ptr<const void>()>& make);
}  // namespace detail

/// What make() returns, made the first time a test asks for `key` and kept
/// for the rest of the test program: the tests that read one compile share
/// it. Calls from several threads make it once, and make different keys side
/// by side; a make() may itself ask for another key (a cubin made from a PTX
/// file made once). An exception from make() reaches the caller and nothing
/// is kept, so the next call tries again.
template <class Make>
const auto& made_once(const std::string& key, Make&& make) {
  using T = std::decay_t<decltype(make())>;
  const void* made = detail::made_once(key, typeid(T), [&]() -> std::shared_ptr<const void> {
    return std::make_shared<const T>(make());
  });
  return *static_cast<const T*>(made);
}

/// Runs each of `makes` in a thread of its own and waits for them all: for
/// things a test program makes once (made_once()) that do not depend on each
/// other, such as compiles for several architectures, so that the first test
/// to ask waits for the slowest of them rather than for their sum. What a
/// make throws is dropped here: it is made again, and thrown, when a test asks.
void make_side_by_side(const std::vector<std::function<void()>>& makes);

/// A file a command wrote, as made_once() keeps it.
struct MadeFile {
  std::filesystem::path path;  ///< where the command wrote it
  std::string content;         ///< the file's bytes
  std::string output;          ///< what the command printed
};

/// Runs argv once per test program (no shell, in work_dir()) and reads the
/// file at `output` it must write: later calls with the same command return
/// the same file. Throws std::runtime_error with the command and its output
/// when it fails.
const MadeFile& file_made_once(const std::vector<std::string>& argv, const std::filesystem::path& output);

/// `nvcc <options> <source> -o work_dir()/<output_name>`, once per test
/// program (file_made_once()): output_name names the file in the scratch
/// folder, so that two compiles of one source differ in it.
const MadeFile& nvcc_once(const std::filesystem::path& source, const std::vector<std::string>& options,
                          const std::string& output_name);

/// The bytes of a text (a file's content) as the labs' readers take them.
std::vector<std::byte> bytes_of(std::string_view text);

/// How a fresh process of this test program ended (run_fresh_process()).
struct FreshProcess {
  int exit_code = -1;       ///< the exit status, or 128 + signal number
  bool timed_out = false;   ///< stopped (SIGKILL) when the limit ran out
  std::string output;       ///< standard output and error, interleaved
  double wall_ms = 0;       ///< from its start to its end, seen from here
  /// "exited with 2", "was killed by signal 11" or "ran for 120 s and was stopped".
  std::string how_it_ended() const;
};

/// Starts this test program again (/proc/self/exe) with no test to run and
/// the environment of this process, less every variable whose entry
/// ("NAME=value") starts with one of `unset`, plus `set` ("NAME=value"); waits
/// for it, for `limit` at most. The fresh process does its work in a
/// run_instead_of_tests() hook, which one of `set` turns on: for what must
/// happen in a process of its own (a CUDA context's flags, variables the
/// driver reads once, a cold start).
FreshProcess run_fresh_process(const std::vector<std::string>& unset, const std::vector<std::string>& set,
                               std::chrono::seconds limit = std::chrono::seconds(120));

/// What `outcome()` gives when it runs in a process where CUDA sees no device:
/// for the promises a lab's header makes about failed CUDA calls ("@throws
/// std::runtime_error when a CUDA call fails"), which no working GPU fails
/// on demand. Runs the current test again, alone, in a fresh process of this
/// test program with CUDA_VISIBLE_DEVICES empty; there, this test's earlier
/// calls of outcome_without_a_gpu() do nothing, this one calls outcome(),
/// prints what it returned and ends the process. Here, it returns that text,
/// or says how the fresh process ended when it printed none. Write it as
/// RECORD_THROWS_WITHOUT_A_GPU (record.h), in a test that needs no GPU
/// before it: everything the test does before the call runs there again.
std::string outcome_without_a_gpu(const std::function<std::string()>& outcome);

/// What `outcome()` gives in a child forked from this process, which shares
/// its memory as it was (a module the test loaded is there) but not its CUDA:
/// CUDA does not carry over a fork, and the driver answers the child's calls
/// with CUDA_ERROR_NOT_INITIALIZED (seen on an NVIDIA H200, driver
/// 580.159.04). For a header's promise about a driver call that fails, which
/// nothing a test may hand the call in this process makes fail. The child
/// records nothing and writes nothing but the text, which this returns;
/// when it says nothing within `limit`, how it ended. Write it as
/// RECORD_THROWS_IN_A_FORKED_CHILD (record.h).
std::string outcome_in_a_forked_child(const std::function<std::string()>& outcome,
                                      std::chrono::seconds limit = std::chrono::seconds(60));

/// In a process whose environment has `variable`, runs child(its value) as
/// the test program starts (after main() has begun, so that every static
/// object exists) and ends the process with the status it returns, standard
/// output flushed, before any test runs. Call it in a namespace-scope
/// initializer; it returns whether the hook was installed.
bool run_instead_of_tests(const char* variable, int (*child)(const char* value));

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
#define LAUNCHLAB_REQUIRE_GPU() LAUNCHLAB_REQUIRE(::launchlab::testing::gpu_unavailable_reason(), "a GPU")

/// Skips the current test when `reason` (a std::optional<std::string>, empty
/// when the test can run) holds why not: "needs WHAT: reason".
#define LAUNCHLAB_REQUIRE(reason, what)                   \
  do {                                                    \
    if (auto launchlab_reason = (reason)) {               \
      GTEST_SKIP() << "needs " << (what) << ": " << *launchlab_reason; \
    }                                                     \
  } while (false)

/// Skips the current test, saying why, when a CUDA tool is not installed, and
/// otherwise stores its path in the named variable.
#define LAUNCHLAB_REQUIRE_TOOL(variable, tool_name)                               \
  auto variable##_found = ::launchlab::testing::find_cuda_tool(tool_name);       \
  if (!variable##_found) {                                                        \
    GTEST_SKIP() << "needs " << (tool_name) << ", which is not installed here";  \
  }                                                                               \
  const std::filesystem::path variable = *variable##_found
