// The sandbox, attacked for real: a helper program (sandbox_attacker) tries,
// from inside each sandbox kind this machine can run, what a submission
// might try against the grader, which is this test program. Each attack
// prints whether it was blocked; a protection that is removed makes its
// attack succeed and its test fail. A kind that does not claim a protection
// skips that test and says so (the table in sandbox.h).
#include <gtest/gtest.h>
#include <signal.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "launchlab/grader/process.h"
#include "launchlab/grader/sandbox.h"
#include "sandbox_kinds.h"

using namespace launchlab::grader;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

// What the grader holds in memory and a submission would like to read.
char grader_secret[64];
volatile sig_atomic_t grader_got_sigusr1 = 0;
volatile sig_atomic_t grader_got_sigurg = 0;

std::string random_token() {
  static std::mt19937_64 generator{std::random_device{}()};
  std::ostringstream token;
  token << std::hex << generator();
  return token.str();
}

// Empty when the file cannot be read (a /proc entry whose process ended).
std::string read_text(const fs::path& path) {
  try {
    std::ifstream file(path);
    return std::string(std::istreambuf_iterator<char>(file), {});
  } catch (const std::exception&) {
    return {};
  }
}

void write_text(const fs::path& path, const std::string& text, fs::perms mode) {
  std::ofstream(path) << text;
  fs::permissions(path, mode);
}

// The helper programs; the environment may name copies (a selftest run as
// another user from a folder that user can read).
fs::path helper_program(const char* variable, const char* built) {
  const char* path = std::getenv(variable);
  return path && *path ? fs::path(path) : fs::path(built);
}

// The line an attack printed about `name`, "NAME: blocked (...)" or
// "NAME: SUCCEEDED (...)".
testing::AssertionResult attack_said(const RunOutcome& outcome, const std::string& name, const std::string& verdict) {
  std::istringstream lines(outcome.output);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(name + ": ", 0) != 0) continue;
    if (line.find(": " + verdict) != std::string::npos) return testing::AssertionSuccess() << line;
    return testing::AssertionFailure() << line;
  }
  return testing::AssertionFailure() << "the attacker said nothing of " << name << " (" << outcome.describe({})
                                     << "):\n" << outcome.output;
}
testing::AssertionResult blocked(const RunOutcome& outcome, const std::string& name) {
  return attack_said(outcome, name, "blocked");
}
testing::AssertionResult succeeded(const RunOutcome& outcome, const std::string& name) {
  return attack_said(outcome, name, "SUCCEEDED");
}

// Processes still running whose command line holds token.
int processes_holding(const std::string& token) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::string name = entry.path().filename().string();
    if (name.empty() || name[0] < '0' || name[0] > '9') continue;
    std::string command = read_text(entry.path() / "cmdline");
    std::string state = read_text(entry.path() / "stat");
    bool zombie = state.rfind(')') != std::string::npos && state.substr(state.rfind(')') + 2, 1) == "Z";
    if (!zombie && command.find(token) != std::string::npos) ++count;
  }
  return count;
}

int wait_until_no_process_holds(const std::string& token) {
  for (int attempt = 0; attempt < 60; ++attempt) {
    if (processes_holding(token) == 0) return 0;
    std::this_thread::sleep_for(50ms);
  }
  return processes_holding(token);
}

class SandboxAttack : public testing::TestWithParam<SandboxKind> {
 protected:
  static void SetUpTestSuite() {
    harden_grader_process();
    // Yama, where the kernel has it, would also stop a child's ptrace of its
    // parent: any process may try, so that what is measured is the sandbox.
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    std::snprintf(grader_secret, sizeof grader_secret, "grader-secret-%s", random_token().c_str());
  }

  void SetUp() override {
    LAUNCHLAB_SKIP_UNLESS_AVAILABLE(GetParam());
    if (GetParam() == SandboxKind::none && geteuid() == 0) {
      GTEST_SKIP() << "as root, kind none runs the child as root: there is nothing to keep from it";
    }
    std::string pattern = (fs::temp_directory_path() / "launchlab-sandbox-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    // Every user may pass through; what lies inside decides the rest.
    fs::permissions(root_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                               fs::perms::others_read | fs::perms::others_exec);
    const auto readable = fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read;
    const auto folder = fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                        fs::perms::others_exec;
    attacker_ = root_ / "attacker";
    fs::copy_file(helper_program("LAUNCHLAB_SANDBOX_ATTACKER", LAUNCHLAB_SANDBOX_ATTACKER), attacker_);
    fs::permissions(attacker_, folder);
    token_ = random_token();
    private_ = root_ / "private.txt";
    write_text(private_, "private-" + token_, fs::perms::owner_read | fs::perms::owner_write);
    visible_ = root_ / "visible";
    unbound_ = root_ / "unbound";
    writable_ = root_ / "writable";
    for (const auto& dir : {visible_, unbound_, writable_}) {
      fs::create_directory(dir);
      fs::permissions(dir, folder);
    }
    write_text(visible_ / "public.txt", "public", readable);
    write_text(unbound_ / "hidden.txt", "hidden-" + token_, readable);
  }

  void TearDown() override {
    std::error_code ignored;
    if (!root_.empty()) fs::remove_all(root_, ignored);
  }

  SandboxKind kind() const { return GetParam(); }

  /// Under bubblewrap the run's own PIDs are small: a grader with a small
  /// pid (PID 1 in a container) names one of them, and only the effects on
  /// the grader can be checked, not what the attack was told.
  bool grader_pid_may_exist_inside() const { return sandbox().uses_bubblewrap() && getpid() <= 100; }

  /// The chosen sandbox with this test's binds: the attacker and visible/
  /// read-only, writable/ writable; private.txt only where asked.
  Sandbox sandbox(bool bind_private = false) const {
    std::vector<fs::path> read_only = {attacker_, visible_};
    if (bind_private) read_only.push_back(private_);
    return launchlab::selftest::available_sandbox(kind()).sandbox->for_run(read_only, {writable_});
  }

  RunOutcome attack(std::vector<std::string> args, RunLimits limits = {}, std::optional<Sandbox> in = std::nullopt,
                    ReportChannel* channel = nullptr) const {
    args.insert(args.begin(), attacker_.string());
    limits.timeout = std::min<std::chrono::milliseconds>(limits.timeout, 60s);
    return run_limited(args, writable_, {}, limits, in ? *in : sandbox(), {}, channel);
  }

  fs::path root_, attacker_, private_, visible_, unbound_, writable_;
  std::string token_;
};

INSTANTIATE_TEST_SUITE_P(Sandbox, SandboxAttack, testing::ValuesIn(launchlab::selftest::every_sandbox_kind),
                         launchlab::selftest::kind_name);

std::string own_oom_score() { return read_text("/proc/self/oom_score_adj"); }

bool grader_has_capability(int capability) {
  std::istringstream status(read_text("/proc/self/status"));
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("CapEff:", 0) == 0) return (std::stoull(line.substr(7), nullptr, 16) >> capability) & 1;
  }
  return false;
}

}  // namespace

// (a) ptrace and /proc/<grader>/mem: the grader is not dumpable, and in the
// bubblewrap kinds its pid does not exist.
TEST_P(SandboxAttack, CannotPtraceTheGraderOrReadItsMemory) {
  char address[32];
  std::snprintf(address, sizeof address, "%lx", reinterpret_cast<unsigned long>(grader_secret));
  RunOutcome outcome = attack({"ptrace", std::to_string(getpid()), address});
  EXPECT_EQ(outcome.output.find(grader_secret), std::string::npos) << outcome.output;
  if (!grader_pid_may_exist_inside()) {
    EXPECT_TRUE(blocked(outcome, "ptrace"));
    EXPECT_TRUE(blocked(outcome, "mem"));
  }
}

// (b) The grader's oom_score_adj: raised, the memory limit would end the grader.
TEST_P(SandboxAttack, CannotChangeTheGradersOomScore) {
  const std::string before = own_oom_score();
  RunOutcome outcome = attack({"oom", std::to_string(getpid())});
  EXPECT_EQ(own_oom_score(), before);
  if (!grader_pid_may_exist_inside()) EXPECT_TRUE(blocked(outcome, "oom"));
}

// (c) Signals: a stopped grader writes no results.
TEST_P(SandboxAttack, CannotSignalTheGrader) {
  if (kind() == SandboxKind::none) GTEST_SKIP() << "kind none runs the child as the grader's user, which may signal it";
  struct sigaction on_usr1 {}, on_urg {}, previous_usr1 {}, previous_urg {};
  on_usr1.sa_handler = [](int) { grader_got_sigusr1 = 1; };
  on_urg.sa_handler = [](int) { grader_got_sigurg = 1; };
  sigaction(SIGUSR1, &on_usr1, &previous_usr1);
  sigaction(SIGURG, &on_urg, &previous_urg);
  grader_got_sigusr1 = 0;
  grader_got_sigurg = 0;
  // Should a SIGSTOP get through, this tells, and wakes the grader so that
  // the test fails instead of hanging.
  const pid_t grader = getpid();
  int stopped[2];
  ASSERT_EQ(pipe(stopped), 0);
  pid_t guardian = fork();
  if (guardian == 0) {
    const std::string stat_path = "/proc/" + std::to_string(grader) + "/stat";
    while (true) {
      std::string stat = read_text(stat_path);
      auto close = stat.rfind(')');
      if (close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'T') {
        (void)!write(stopped[1], "T", 1);
        kill(grader, SIGCONT);
      }
      usleep(10000);
    }
  }
  close(stopped[1]);
  RunOutcome outcome = attack({"signal", std::to_string(grader)});
  std::this_thread::sleep_for(100ms);
  kill(guardian, SIGKILL);
  waitpid(guardian, nullptr, 0);
  char seen = 0;
  const bool was_stopped = read(stopped[0], &seen, 1) == 1;
  close(stopped[0]);
  sigaction(SIGUSR1, &previous_usr1, nullptr);
  sigaction(SIGURG, &previous_urg, nullptr);
  EXPECT_FALSE(was_stopped) << "SIGSTOP from the sandbox stopped the grader";
  EXPECT_FALSE(grader_got_sigusr1) << "kill(grader, SIGUSR1) from the sandbox reached the grader";
  EXPECT_FALSE(grader_got_sigurg) << "kill(-1, SIGURG) from the sandbox reached the grader";
  if (!grader_pid_may_exist_inside()) {
    EXPECT_TRUE(blocked(outcome, "sigusr1"));
    EXPECT_TRUE(blocked(outcome, "sigstop"));
    EXPECT_TRUE(blocked(outcome, "see"));
    if (sandbox().uses_bubblewrap()) {
      EXPECT_NE(outcome.output.find("see: blocked (No such process)"), std::string::npos)
          << "in its PID namespace the grader's pid must not exist:\n" << outcome.output;
    }
  }
}

// (d) What the grader keeps private: a 0600 file (as another user), a path
// not bound (bubblewrap).
TEST_P(SandboxAttack, CannotReadWhatItWasNotGiven) {
  if (kind() == SandboxKind::none) GTEST_SKIP() << "kind none reads whatever the grader's user may read";
  // Under user_bubblewrap the private file is bound, so that its mode, not
  // its absence, is what is tried.
  RunOutcome outcome = attack({"read", (visible_ / "public.txt").string(), private_.string(),
                               (unbound_ / "hidden.txt").string()},
                              {}, sandbox(kind() == SandboxKind::user_bubblewrap));
  EXPECT_TRUE(succeeded(outcome, "read " + (visible_ / "public.txt").string())) << "a bound file must be readable";
  EXPECT_TRUE(blocked(outcome, "read " + private_.string()));
  EXPECT_EQ(outcome.output.find("private-" + token_), std::string::npos);
  if (sandbox().uses_bubblewrap()) {
    EXPECT_TRUE(blocked(outcome, "read " + (unbound_ / "hidden.txt").string()));
    EXPECT_EQ(outcome.output.find("hidden-" + token_), std::string::npos);
  }
}

// (e) Writing anywhere but its writable binds (and, under bubblewrap, its
// bounded /tmp).
TEST_P(SandboxAttack, CannotWriteOutsideItsWritableBinds) {
  if (kind() == SandboxKind::none) GTEST_SKIP() << "kind none writes wherever the grader's user may write";
  const std::string planted = "launchlab-planted-" + token_;
  std::vector<fs::path> forbidden = {visible_ / planted, root_ / planted, unbound_ / planted,
                                     fs::path("/etc") / planted, fs::path("/usr") / planted, fs::path("/") / planted,
                                     fs::path("/dev") / planted};
  std::vector<std::string> args = {"write", (writable_ / "allowed").string()};
  for (const auto& path : forbidden) args.push_back(path.string());
  RunOutcome outcome = attack(args);
  EXPECT_TRUE(succeeded(outcome, "write " + (writable_ / "allowed").string())) << "the writable bind must be writable";
  for (const auto& path : forbidden) {
    // Under bubblewrap a path below /tmp is in the run's own tmpfs: what
    // counts is that nothing reaches the grader's.
    const bool own_tmp = sandbox().uses_bubblewrap() && path.string().rfind("/tmp/", 0) == 0;
    if (!own_tmp) EXPECT_TRUE(blocked(outcome, "write " + path.string()));
    std::error_code ignored;
    EXPECT_FALSE(fs::exists(path)) << path << " was written outside the sandbox";
    fs::remove(path, ignored);
  }
  if (sandbox().uses_bubblewrap()) {
    RunOutcome remount = attack({"remount", visible_.string(), "/usr"});
    EXPECT_TRUE(blocked(remount, "remount " + visible_.string()));
    EXPECT_TRUE(blocked(remount, "remount /usr"));
  }
}

// (f) A fork bomb: fork fails at the process limit, the run ends by itself,
// and none of its processes is left.
TEST_P(SandboxAttack, AForkBombMeetsTheProcessLimit) {
  if (kind() == SandboxKind::bubblewrap && geteuid() == 0) {
    GTEST_SKIP() << "root ignores RLIMIT_NPROC, in bubblewrap's user namespace too: without a dedicated user "
                    "only the container's pids limit bounds a root grader's runs";
  }
  RunLimits limits;
  limits.max_processes = 32;
  limits.timeout = 60s;
  const std::string marker = "forkbomb-" + token_;
  RunOutcome outcome = attack({"forkbomb", "400", marker}, limits);
  EXPECT_FALSE(outcome.timed_out);
  ASSERT_TRUE(blocked(outcome, "forkbomb"));
  const std::string said = "forkbomb: blocked (after ";
  int forked = std::atoi(outcome.output.c_str() + outcome.output.find(said) + said.size());
  // A dedicated user runs nothing else; the grader's own user's other
  // processes come and go meanwhile.
  EXPECT_LE(forked, sandbox().uses_user() ? 32 : 32 + 64) << outcome.output;
  EXPECT_EQ(wait_until_no_process_holds(marker), 0) << "processes of the fork bomb outlived the run";
}

// (g) The disk: bubblewrap's /tmp and /dev/shm are bounded tmpfs; what the
// writable binds grew by is checked after the run; a dedicated user's files
// in the shared /tmp are removed after it.
TEST_P(SandboxAttack, FillingTheDiskIsBounded) {
  if (kind() == SandboxKind::none) GTEST_SKIP() << "kind none has no writable places of its own to bound";
  Sandbox bounded = sandbox();
  bounded.tmp_size = 8u << 20;
  if (bounded.uses_bubblewrap()) {
    for (const std::string folder : {"/tmp", "/dev/shm"}) {
      RunOutcome outcome = attack({"fill", folder, "fill", "64"}, {}, bounded);
      ASSERT_TRUE(blocked(outcome, "fill " + folder));
      const std::string said = "fill " + folder + ": blocked (after ";
      int mib = std::atoi(outcome.output.c_str() + outcome.output.find(said) + said.size());
      EXPECT_LE(mib, 8) << outcome.output;
    }
  }
  RunLimits limits;
  limits.file_size_limit = 1u << 20;
  limits.disk_limit = 3u << 20;
  RunOutcome outcome = attack({"fill", writable_.string(), "fill", "6"}, limits, bounded);
  EXPECT_TRUE(outcome.disk_exceeded) << "grew by " << outcome.disk_growth << " bytes:\n" << outcome.output;
  EXPECT_FALSE(outcome.exited_cleanly());
  EXPECT_NE(outcome.describe(limits).find("MiB to disk"), std::string::npos) << outcome.describe(limits);
  if (kind() == SandboxKind::user) {
    const std::string stem = "launchlab-fill-" + token_;
    RunOutcome shared = attack({"fill", "/tmp", stem, "2"}, {}, bounded);
    EXPECT_TRUE(succeeded(shared, "fill /tmp")) << "the sandbox user may write the shared /tmp";
    EXPECT_FALSE(fs::exists(fs::path("/tmp") / (stem + "-0"))) << "what it left in /tmp was not removed";
  }
}

// (h) A process that left the run's group and session.
TEST_P(SandboxAttack, AProcessLeftInANewSessionIsGoneAfterTheRun) {
  if (kind() == SandboxKind::none) GTEST_SKIP() << "kind none ends only the run's process group";
  const fs::path marker = writable_ / "still-alive";
  RunOutcome outcome = attack({"escape", marker.string(), "1200"});
  EXPECT_NE(outcome.output.find("escape: started"), std::string::npos) << outcome.output;
  EXPECT_LT(outcome.seconds, 5.0);
  std::this_thread::sleep_for(2000ms);
  EXPECT_FALSE(fs::exists(marker)) << "a process the run left behind was still running a second later";
}

// (i) The dedicated user, with no way back to root.
TEST_P(SandboxAttack, RunsAsTheDedicatedUserWithoutPrivileges) {
  if (!sandbox().uses_user()) GTEST_SKIP() << "only the user kinds run as a dedicated user";
  const SandboxUser user = sandbox().users.front();
  RunOutcome outcome = attack({"whoami"});
  const std::string uids = std::to_string(user.uid), gids = std::to_string(user.gid);
  EXPECT_NE(outcome.output.find("uids: " + uids + " " + uids + " " + uids + "\n"), std::string::npos) << outcome.output;
  EXPECT_NE(outcome.output.find("gids: " + gids + " " + gids + " " + gids + "\n"), std::string::npos) << outcome.output;
  EXPECT_NE(outcome.output.find("groups: 0\n"), std::string::npos) << outcome.output;
  EXPECT_TRUE(blocked(outcome, "setuid-root"));
  // A root with CAP_SYS_RESOURCE (not Docker's default) sets the score's
  // floor with it, and the user cannot lower the score again.
  if (grader_has_capability(CAP_SYS_RESOURCE)) EXPECT_TRUE(blocked(outcome, "lower-oom"));
}

// Every kind: no new privileges, oom_score_adj 1000, no core dumps, the
// memory limit.
TEST_P(SandboxAttack, TheChildRunsWithTheLimits) {
  RunLimits limits;
  limits.memory_limit = 64u << 20;
  RunOutcome outcome = attack({"whoami"}, limits);
  EXPECT_NE(outcome.output.find("NoNewPrivs: 1\n"), std::string::npos) << outcome.output;
  EXPECT_NE(outcome.output.find("oom_score_adj: 1000\n"), std::string::npos) << outcome.output;
  EXPECT_NE(outcome.output.find("core: 0\n"), std::string::npos) << outcome.output;
  EXPECT_NE(outcome.output.find("data: " + std::to_string(64u << 20) + "\n"), std::string::npos) << outcome.output;
  EXPECT_NE(attack({"alloc", "8"}, limits).output.find("alloc 8 MiB: ok"), std::string::npos);
  RunOutcome large = attack({"alloc", "256"}, limits);
  EXPECT_NE(large.output.find("alloc 256 MiB: failed"), std::string::npos) << large.output;
}

// Issue 13: on a shared node, nothing ends processes it did not start.
TEST_P(SandboxAttack, EndsOnlyWhatItStarted) {
  pid_t bystander = fork();
  if (bystander == 0) {
    while (true) pause();
  }
  RunOutcome escaped = attack({"escape", (writable_ / "late").string(), "100"});
  RunOutcome bomb = attack({"forkbomb", "8", "bystander-" + token_});
  EXPECT_NE(escaped.output.find("escape: started"), std::string::npos) << escaped.output;
  EXPECT_TRUE(succeeded(bomb, "forkbomb"));
  EXPECT_EQ(waitpid(bystander, nullptr, WNOHANG), 0) << "a process the grader started itself was ended by a run";
  kill(bystander, SIGKILL);
  waitpid(bystander, nullptr, 0);
}

// Two graders on one host with one dedicated user: the sweep at the end of
// one grader's runs must not end the other's run in progress.
TEST_P(SandboxAttack, AnotherGradersRunOfTheSameUserOutlivesThisOnesSweeps) {
  if (!sandbox().uses_user()) GTEST_SKIP() << "only the user kinds sweep a user's processes";
  // The verdict comes through a pipe: this grader's runs reap every child
  // they did not register, the other grader among them.
  int verdict[2];
  ASSERT_EQ(pipe(verdict), 0);
  pid_t other_grader = fork();
  if (other_grader == 0) {
    close(verdict[0]);
    RunOutcome slow = attack({"sleep", "1500"});
    const char said = slow.exited_cleanly() && slow.output.find("slept") != std::string::npos ? 'y' : 'n';
    (void)!write(verdict[1], &said, 1);
    _exit(0);
  }
  close(verdict[1]);
  std::this_thread::sleep_for(300ms);  // the other grader's run is under way
  for (int run = 0; run < 3; ++run) EXPECT_TRUE(attack({"whoami"}).exited_cleanly());
  char said = 0;
  EXPECT_EQ(read(verdict[0], &said, 1), 1);
  close(verdict[0]);
  waitpid(other_grader, nullptr, 0);
  EXPECT_EQ(said, 'y')
      << "the other grader's run was ended by this grader's sweep";
}

TEST_P(SandboxAttack, TheTranscriptPipeReachesTheProgram) {
  ReportChannel channel;
  RunOutcome outcome = attack({"transcript", "record-" + token_}, {}, std::nullopt, &channel);
  EXPECT_TRUE(outcome.exited_cleanly()) << outcome.describe({}) << "\n" << outcome.output;
  EXPECT_EQ(channel.report, "record-" + token_ + "\n");
}

// CUDA inside the sandbox with the GPU given, under the default limits
// (RLIMIT_DATA among them, which CUDA's address-space reservations must not
// meet). Only where the machine has an NVIDIA device.
TEST_P(SandboxAttack, CudaWorksWithTheGpuGiven) {
  if (nvidia_device_nodes().empty()) GTEST_SKIP() << "no NVIDIA device here";
  const fs::path probe = root_ / "gpu_probe";
  fs::copy_file(helper_program("LAUNCHLAB_SANDBOX_GPU_PROBE", LAUNCHLAB_SANDBOX_GPU_PROBE), probe);
  fs::permissions(probe, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                             fs::perms::others_read | fs::perms::others_exec);
  Sandbox with_gpu = sandbox();
  with_gpu.gpu = true;
  with_gpu.binds.push_back({probe, {}, false});
  RunOutcome outcome = run_limited({probe.string()}, writable_, {}, RunLimits{}, with_gpu);
  EXPECT_TRUE(outcome.exited_cleanly()) << outcome.describe({}) << "\n" << outcome.output;
  EXPECT_NE(outcome.output.find("cuda: ok"), std::string::npos) << outcome.output;
}

// Choosing: the strongest kind that works, and a refusal that says why.
TEST(ChooseSandbox, RefusesAKindItDoesNotKnow) {
  SandboxRequest request;
  request.kind = "chroot";
  EXPECT_THROW(choose_sandbox(request), std::runtime_error);
}

TEST(ChooseSandbox, RefusesARequiredBubblewrapThatIsMissing) {
  SandboxRequest request;
  request.kind = "bubblewrap";
  request.bwrap = "/nonexistent/bwrap";
  try {
    choose_sandbox(request);
    ADD_FAILURE() << "a missing bwrap was accepted";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("/nonexistent/bwrap"), std::string::npos) << error.what();
  }
}

TEST(ChooseSandbox, ANameWithAStarIsAPoolOfTheUserAndItsNumberedSiblings) {
  LAUNCHLAB_SKIP_UNLESS_AVAILABLE(SandboxKind::user);
  const std::string name = launchlab::selftest::available_sandbox(SandboxKind::user).sandbox->users.front().name;
  SandboxRequest request = SandboxRequest::from_environment();
  request.kind = "user";
  request.users = name + "*";
  const Sandbox pool = choose_sandbox(request);
  ASSERT_GE(pool.users.size(), 2u) << "the selftests make " << name << " and " << name << "-1";
  EXPECT_EQ(pool.users[0].name, name);
  for (std::size_t i = 1; i < pool.users.size(); ++i) EXPECT_EQ(pool.users[i].name, name + "-" + std::to_string(i));
  if (pool.users.size() <= static_cast<std::size_t>(kSandboxPoolLimit)) {
    EXPECT_FALSE(find_sandbox_user(name + "-" + std::to_string(pool.users.size()))) << "the pool stops at the first gap";
  }

  request.users = name;
  EXPECT_EQ(choose_sandbox(request).users.size(), 1u) << "a name without a star is that user alone";
  request.users = name + "-1," + name;
  const Sandbox listed = choose_sandbox(request);
  ASSERT_EQ(listed.users.size(), 2u);
  EXPECT_EQ(listed.users[0].name, name + "-1");
}

TEST(ChooseSandbox, FallsBackAndSaysWhyWhenBubblewrapIsMissing) {
  const bool have_user = geteuid() == 0 && launchlab::selftest::available_sandbox(SandboxKind::user).sandbox;
  SandboxRequest request = SandboxRequest::from_environment();
  request.kind = "auto";
  request.bwrap = "/nonexistent/bwrap";
  if (const char* name = std::getenv("LAUNCHLAB_SANDBOX_USER"); !name || !*name) request.users = "launchlab-sandbox";
  Sandbox sandbox = choose_sandbox(request);
  EXPECT_FALSE(sandbox.uses_bubblewrap());
  if (have_user) {
    EXPECT_EQ(sandbox.kind, SandboxKind::user);
  } else {
    EXPECT_EQ(sandbox.kind, SandboxKind::none);
  }
  EXPECT_NE(sandbox.describe().find("/nonexistent/bwrap"), std::string::npos) << sandbox.describe();
}

TEST(ChooseSandbox, ChoosesTheStrongestKindThatWorksHere) {
  // Strongest first.
  const std::vector<SandboxKind> order =
      geteuid() == 0 ? std::vector<SandboxKind>{SandboxKind::user_bubblewrap, SandboxKind::user, SandboxKind::bubblewrap,
                                                SandboxKind::none}
                     : std::vector<SandboxKind>{SandboxKind::bubblewrap, SandboxKind::none};
  // The user kinds' user: the one the attack tests use (made there if missing).
  launchlab::selftest::available_sandbox(SandboxKind::user);
  SandboxRequest request = SandboxRequest::from_environment();
  request.kind = "auto";
  if (const char* name = std::getenv("LAUNCHLAB_SANDBOX_USER"); !name || !*name) request.users = "launchlab-sandbox";
  Sandbox chosen = choose_sandbox(request);
  std::cout << chosen.describe() << "\n";
  EXPECT_FALSE(chosen.reason.empty());
  EXPECT_NE(chosen.describe().find(std::string(to_string(chosen.kind))), std::string::npos);
  for (SandboxKind stronger : order) {
    if (stronger == chosen.kind) break;
    EXPECT_FALSE(launchlab::selftest::available_sandbox(stronger).sandbox)
        << to_string(stronger) << " works here, yet " << chosen.describe() << " was chosen";
  }
}

// The grader itself.
TEST(GraderProcess, IsNotDumpableOnceHardened) {
  harden_grader_process();
  EXPECT_EQ(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), 0);
}

TEST(GraderProcess, ReapsTheOrphansHandedToIt) {
  // As a subreaper, as PID 1 would be: orphans come to this process.
  pid_t grader = fork();
  if (grader == 0) try {
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    pid_t middle = fork();
    if (middle == 0) {
      for (int i = 0; i < 3; ++i) {
        if (fork() == 0) _exit(0);
      }
      _exit(0);
    }
    usleep(300000);
    reap_orphans();
    int zombies = 0;
    for (const auto& entry : fs::directory_iterator("/proc")) {
      const std::string name = entry.path().filename().string();
      if (name[0] < '0' || name[0] > '9') continue;
      std::string stat = read_text(entry.path() / "stat");
      auto close = stat.rfind(')');
      if (close == std::string::npos) continue;
      char state = 0;
      int parent = 0;
      std::istringstream(stat.substr(close + 1)) >> state >> parent;
      if (state == 'Z' && parent == getpid()) ++zombies;
    }
    _exit(zombies);
  } catch (...) {
    _exit(100);
  }
  int status = 0;
  waitpid(grader, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "zombies left unreaped";
}

TEST(WallClockLimit, EndsTheGradingAndTheRunsInProgress) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const fs::path marker = fs::temp_directory_path() / ("launchlab-wallclock-" + random_token());
  EXPECT_EXIT(
      {
        // Writing the results takes a while; meanwhile the run that was
        // ended must not return to the grading as if it had failed.
        WallClockLimit limit(300ms, [] {
          std::this_thread::sleep_for(300ms);
          std::fprintf(stderr, "results written\n");
        }, 124);
        RunLimits limits;
        limits.timeout = 20s;
        run_limited({"/bin/sh", "-c", "sleep 2; touch " + marker.string()}, {}, {}, limits);
        std::fprintf(stderr, "the ended run returned\n");
        std::_Exit(0);
      },
      testing::ExitedWithCode(124), "results written");
  std::this_thread::sleep_for(2500ms);
  EXPECT_FALSE(fs::exists(marker)) << "the run outlived the grading";
  std::error_code ignored;
  fs::remove(marker, ignored);
}

TEST(WallClockLimit, EndsTheGradingWhenTheCallbackHangs) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        WallClockLimit limit(100ms, [] { pause(); }, 124, 1s);
        std::this_thread::sleep_for(20s);
        std::_Exit(0);
      },
      testing::KilledBySignal(SIGALRM), "");
}

TEST(WallClockLimit, DisarmedItDoesNothing) {
  { WallClockLimit limit(200ms, [] { std::_Exit(3); }); }
  std::this_thread::sleep_for(400ms);
  SUCCEED();
}
