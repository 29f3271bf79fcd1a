// The main() of every lab's test program: GoogleTest's usual main, plus the
// transcript (launchlab/transcript.h) when the grader or `launchlab test`
// asks for one. The transcript is data for the judge, never a verdict: in
// the learner's build the program holds no expected values, and whatever
// its code writes there is compared with the reference's transcript.
#include <fcntl.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "launchlab/transcript.h"

namespace {

class TranscriptListener : public ::testing::EmptyTestEventListener {
 public:
  void OnTestStart(const ::testing::TestInfo& info) override {
    launchlab::testing::transcript_test_started(full_name(info));
  }

  void OnTestEnd(const ::testing::TestInfo& info) override {
    const ::testing::TestResult* result = info.result();
    std::vector<std::string> failures;
    std::string skip_message;
    for (int p = 0; p < result->total_part_count(); ++p) {
      const ::testing::TestPartResult& part = result->GetTestPartResult(p);
      if (part.skipped()) {
        skip_message = part.message();
      } else if (part.failed()) {
        failures.emplace_back(part.message());
      }
    }
    launchlab::testing::transcript_test_ended(full_name(info), result->Skipped(), skip_message, failures);
  }

  void OnTestProgramEnd(const ::testing::UnitTest&) override { launchlab::testing::transcript_program_ended(); }

 private:
  static std::string full_name(const ::testing::TestInfo& info) {
    return std::string(info.test_suite_name()) + "." + info.name();
  }
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (const char* fd = std::getenv("LAUNCHLAB_TRANSCRIPT_FD")) {
    // Programs the tests start (nvcc, cuobjdump) must not inherit it.
    fcntl(std::atoi(fd), F_SETFD, FD_CLOEXEC);
  }
  launchlab::testing::open_transcript_from_environment();
  ::testing::UnitTest::GetInstance()->listeners().Append(new TranscriptListener);
  return RUN_ALL_TESTS();
}
