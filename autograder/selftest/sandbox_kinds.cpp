#include "sandbox_kinds.h"

#include <unistd.h>

#include <cstdlib>
#include <map>
#include <mutex>

#include "launchlab/grader/process.h"

namespace launchlab::selftest {

using namespace launchlab::grader;

namespace {

std::string sandbox_user_name() {
  const char* name = std::getenv("LAUNCHLAB_SANDBOX_USER");
  return name && *name ? name : "launchlab-sandbox";
}

std::string ensure_user(const std::string& name) {
  RunOutcome added;
  // Another test program may be making it at the same moment (useradd
  // then finds /etc/passwd locked, or the user there).
  for (int attempt = 0; attempt < 5; ++attempt) {
    if (find_sandbox_user(name)) return {};
    added = run_limited({"useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent", "--shell",
                         "/usr/sbin/nologin", name},
                        {}, {}, {});
    if (!added.exited_cleanly()) usleep(200000);
  }
  if (find_sandbox_user(name)) return {};
  return "the sandbox user " + name + " is missing and useradd could not make it (" + added.describe({}) +
         "): " + added.output;
}

// CI runs as root on a fresh machine: the users the user kinds need are
// made here, as autograder/add-sandbox-users.sh makes them: the user and
// one numbered sibling, a pool of two, so that gradings run two programs
// at once as they do with a pool.
std::string ensure_sandbox_user() {
  const std::string name = sandbox_user_name();
  if (std::string problem = ensure_user(name); !problem.empty()) return problem;
  return ensure_user(name + "-1");
}

}  // namespace

const AvailableSandbox& available_sandbox(SandboxKind kind) {
  static std::mutex mutex;
  static std::map<SandboxKind, AvailableSandbox> known;
  std::lock_guard lock(mutex);
  if (auto found = known.find(kind); found != known.end()) return found->second;
  AvailableSandbox& available = known[kind];
  const bool root = geteuid() == 0;
  if (kind == SandboxKind::user || kind == SandboxKind::user_bubblewrap) {
    if (!root) {
      available.why_not = "the user kinds need the grader to run as root (run the selftest as root)";
      return available;
    }
    if (std::string problem = ensure_sandbox_user(); !problem.empty()) {
      available.why_not = problem;
      return available;
    }
  }
  SandboxRequest request = SandboxRequest::from_environment();
  request.kind = std::string(to_string(kind));
  request.users = sandbox_user_name();
  try {
    available.sandbox = choose_sandbox(request);
  } catch (const std::exception& error) {
    available.why_not = error.what();
  }
  return available;
}

std::string kind_name(const testing::TestParamInfo<SandboxKind>& info) { return std::string(to_string(info.param)); }

}  // namespace launchlab::selftest
