// The linter's rule that a student file holds only what the learner writes:
// a starter and its solution never share a run of more than five lines of
// code (launchlab/cli/given_code.h).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "launchlab/cli/given_code.h"
#include "launchlab/course/model.h"

namespace fs = std::filesystem;
using launchlab::cli::shared_code_runs;

namespace {

// A given helper of six code lines, as a starter and its solution both held
// it before it moved to a given file.
const char* const kStarter = R"(#include <string>

namespace lab {

void check(int status, const char* call) {
  if (status != 0) {
    throw std::runtime_error(std::string(call) + " failed");
  }
}

class Stream {
 public:
  Stream() { check(create(&stream_), "create"); }
  ~Stream() { destroy(stream_); }
  int get() const { return stream_; }
};

int answer(int x) {
  // TODO(student): the answer.
  (void)x;
  return 0;
}

}  // namespace lab
)";

const char* const kSolution = R"(#include <string>
#include <vector>

namespace lab {

// The same helper, with other comments and blank lines.
void check(int status, const char* call) {
  if (status != 0) {

    throw std::runtime_error(std::string(call) + " failed");  // why it throws
  }
}
/* a block
   comment */
class Stream {
 public:
  Stream() { check(create(&stream_), "create"); }
  ~Stream() { destroy(stream_); }
  int get() const { return stream_; }
};

int answer(int x) { return 2 * x + 40; }

}  // namespace lab
)";

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST(GivenCode, AHelperInBothFilesIsOneRunWithItsLines) {
  const auto runs = shared_code_runs(kStarter, kSolution);
  ASSERT_EQ(runs.size(), 1u);
  // namespace lab, check's three code lines, Stream's five: comments, blank
  // lines and lone braces are not code and neither break nor make a run.
  EXPECT_EQ(runs[0].code_lines, 9u);
  EXPECT_EQ(runs[0].starter.first, 3u);
  EXPECT_EQ(runs[0].starter.last, 15u);
  EXPECT_EQ(runs[0].solution.first, 4u);
  EXPECT_EQ(runs[0].solution.last, 19u);
}

TEST(GivenCode, FiveSharedLinesAreAllowedAndSixAreNot) {
  const std::string five = "a = 1;\nb = 2;\nc = 3;\nd = 4;\ne = 5;\n";
  EXPECT_TRUE(shared_code_runs(five + "x;\n", five + "y;\n").empty());
  EXPECT_EQ(shared_code_runs(five + "f = 6;\n", five + "f = 6;\n").size(), 1u);
  EXPECT_TRUE(shared_code_runs(kStarter, kSolution, 9).empty());
}

TEST(GivenCode, CommentsIncludesAndBracesAloneAreNeverARun) {
  const char* const text = R"(#include <a>
#include <b>
// one
// two
/* three */
}
};
{
}  // namespace x
)";
  EXPECT_TRUE(shared_code_runs(text, text, 0).empty());
}

TEST(GivenCode, TheLearnersPartIsNotShared) {
  const char* const starter = R"(int answer(int x) {
  // TODO(student): the answer.
  (void)x;
  return 0;
}
)";
  const char* const solution = "int answer(int x) { return 2 * x + 40; }\n";
  EXPECT_TRUE(shared_code_runs(starter, solution, 0).empty());
}

// Every student file of the course (LAUNCHLAB_ROOT names another checkout):
// its starter and its solution share no given code.
TEST(GivenCode, NoStudentFileOfTheCourseHoldsGivenCode) {
  const char* other = std::getenv("LAUNCHLAB_ROOT");
  const fs::path root = other ? fs::path(other) : fs::path(LAUNCHLAB_SOURCE_DIR);
  const auto course = launchlab::course::read_course(root);
  ASSERT_TRUE(course.problems.empty()) << course.problems.front();
  ASSERT_FALSE(course.labs.empty());
  for (const auto& lab : course.labs) {
    for (const auto& file : lab.student_files) {
      const fs::path starter = root / "labs" / lab.slug / file;
      const fs::path solution = root / "solutions" / lab.slug / file;
      for (const auto& run : shared_code_runs(read_file(starter), read_file(solution))) {
        ADD_FAILURE() << lab.slug << ": " << launchlab::cli::describe_shared_run(file, run);
      }
    }
  }
}
