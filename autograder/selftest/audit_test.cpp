// docker/audit-sandbox.sh, run on a deployment laid out in a temporary
// folder: it must name a solution the sandbox user can read, whether by its
// place or as a copy under another name, and pass once both are closed.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "launchlab/grader/process.h"
#include "sandbox_kinds.h"

namespace {

namespace fs = std::filesystem;
using namespace launchlab::grader;

void write(const fs::path& path, const std::string& text, fs::perms mode) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
  fs::permissions(path, mode);
}

/// The audit, as the user kind's dedicated sandbox user.
RunOutcome audit(const fs::path& course, const fs::path& bundle) {
  const std::string user = launchlab::selftest::available_sandbox(SandboxKind::user).sandbox->users.front().name;
  RunLimits limits;
  limits.timeout = std::chrono::minutes(1);
  return run_limited({LAUNCHLAB_AUDIT_SCRIPT, user, course.string(), bundle.string()}, {}, {}, limits);
}

TEST(SandboxAudit, NamesEveryReadableSolutionAndPassesOnceTheyAreClosed) {
  LAUNCHLAB_SKIP_UNLESS_AVAILABLE(SandboxKind::user);
  const fs::path dir = fs::temp_directory_path() / ("launchlab-audit-" + std::to_string(std::random_device{}()));
  const fs::path course = dir / "course";
  const fs::path bundle = dir / "bundle";
  const std::string solution = "long add(long a, long b) { return a + b; }  // the answer\n";
  constexpr auto readable = fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read;
  write(course / "solutions" / "00_alpha" / "alpha.cpp", solution, readable);
  write(bundle / "course" / "solutions" / "00_alpha" / "alpha.cpp", solution, readable);
  write(bundle / "notes.cpp", solution, readable);
  write(bundle / "launchlab.conf", "LAUNCHLAB_GRADE_ARGS=\n", readable);
  for (const fs::path& folder : {dir, course, course / "solutions", course / "solutions" / "00_alpha", bundle,
                                 bundle / "course", bundle / "course" / "solutions", bundle / "course" / "solutions" / "00_alpha"}) {
    fs::permissions(folder, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                fs::perms::others_read | fs::perms::others_exec);
  }

  RunOutcome open = audit(course, bundle);
  EXPECT_EQ(open.exit_code, 1) << open.output;
  EXPECT_NE(open.output.find((course / "solutions" / "00_alpha" / "alpha.cpp").string() + " (a solution)"),
            std::string::npos) << open.output;
  EXPECT_NE(open.output.find((bundle / "notes.cpp").string() + " (a copy of a solution or a private test)"),
            std::string::npos) << open.output;
  EXPECT_EQ(open.output.find("launchlab.conf"), std::string::npos) << open.output;

  // As Gradescope's setup.sh leaves it: the course root's alone, the
  // bundle's copy removed, what is left of the bundle closed.
  fs::permissions(course, fs::perms::owner_all);
  fs::remove_all(bundle / "course");
  fs::remove(bundle / "notes.cpp");
  fs::permissions(bundle, fs::perms::owner_all);
  RunOutcome closed = audit(course, bundle);
  EXPECT_EQ(closed.exit_code, 0) << closed.output;
  EXPECT_NE(closed.output.find("can read 0 files"), std::string::npos) << closed.output;
  fs::remove_all(dir);
}

}  // namespace

// autograder/add-sandbox-users.sh, run with an `id`, a `useradd` and a
// `groupadd` of this test's own first on PATH, each writing down how it was
// called: what the script would add, and what it refuses.
class SandboxUsers : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(folder_);
    // root, and launchlab-sandbox-1 already there
    write(folder_ / "id", "#!/bin/sh\n[ \"$1\" = -u ] && { echo 0; exit 0; }\n[ \"$1\" = launchlab-sandbox-1 ]\n",
          fs::perms::owner_all);
    for (const char* tool : {"useradd", "groupadd"})
      write(folder_ / tool, std::string("#!/bin/sh\necho ") + tool + " \"$*\" >>'" + calls_.string() + "'\n",
            fs::perms::owner_all);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(folder_, ignored);
  }
  RunOutcome add_users(std::vector<std::string> arguments) {
    arguments.insert(arguments.begin(), {"bash", LAUNCHLAB_ADD_USERS_SCRIPT});
    return run_limited(arguments, {}, {"PATH=" + folder_.string() + ":/usr/bin:/bin"}, {});
  }
  /// What every useradd call ends with, before the user's name.
  static constexpr std::string_view kUserOptions = " --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin ";

  std::string calls() const {
    std::ifstream in(calls_);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }

 private:
  const fs::path folder_ = fs::temp_directory_path() / ("launchlab-add-users-" + std::to_string(getpid()));
  const fs::path calls_ = folder_ / "calls";
};

TEST_F(SandboxUsers, TheScriptAddsTheUserAndItsNumberedSiblingsThatAreMissing) {
  RunOutcome outcome = add_users({"3"});
  EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
  const std::string useradd = "useradd --system" + std::string(kUserOptions);
  EXPECT_EQ(calls(), useradd + "launchlab-sandbox\n" + useradd + "launchlab-sandbox-2\n");
  EXPECT_NE(outcome.output.find("launchlab-sandbox to launchlab-sandbox-2"), std::string::npos) << outcome.output;
}

// The image's pool: fixed ids, each user's group with the same id, and the
// id of a user that is there already left unused.
TEST_F(SandboxUsers, FirstUidGivesTheUsersAndTheirGroupsIdsInOrder) {
  RunOutcome outcome = add_users({"--first-uid", "1501", "3"});
  EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
  const std::string rest(kUserOptions);
  EXPECT_EQ(calls(), "groupadd --system --gid 1501 launchlab-sandbox\n"
                     "useradd --system --uid 1501 --gid 1501" + rest + "launchlab-sandbox\n"
                     "groupadd --system --gid 1503 launchlab-sandbox-2\n"
                     "useradd --system --uid 1503 --gid 1503" + rest + "launchlab-sandbox-2\n");
  EXPECT_NE(outcome.output.find("(ids from 1501)"), std::string::npos) << outcome.output;
}

TEST_F(SandboxUsers, TheScriptRefusesACountOrAFirstIdOutOfRange) {
  for (const std::vector<std::string>& bad : std::vector<std::vector<std::string>>{
           {"0"}, {"65"}, {"x"}, {"3", "4"}, {"--first-uid"}, {"--first-uid", "0", "3"}, {"--first-uid", "70000"},
           {"--first-uid", "1501x", "3"}}) {
    RunOutcome refused = add_users(bad);
    EXPECT_EQ(refused.exit_code, 2) << testing::PrintToString(bad) << ": " << refused.output;
  }
  EXPECT_EQ(calls(), "");
}
