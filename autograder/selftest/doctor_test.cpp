// `launchlab doctor` tells the truth: it finds each CUDA tool where the grader
// finds it and names the version the tool prints (NVIDIA's tools print it
// after a banner), says what LAUNCHLAB_OPEN_GPU_DOC names, and never waits
// for a sandbox user that another grading holds.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <random>
#include <string>
#include <thread>

#include "launchlab/cli/versions.h"
#include "launchlab/grader/grading.h"
#include "launchlab/grader/process.h"
#include "sandbox_kinds.h"

namespace fs = std::filesystem;
using namespace launchlab::grader;
using launchlab::cli::found_tool;
using launchlab::cli::open_gpu_doc_checkout;
using launchlab::cli::version_in;

namespace {

/// What NVIDIA's tools print for --version (CUDA 13.0 and Nsight 2025.3):
/// a banner, a copyright with a year range, and the version on a later line.
struct FakeTool {
  const char* name;
  const char* prints;
  const char* version;  ///< the number a person reads in what it prints
};

constexpr FakeTool kNvidiaTools[] = {
    {"cuobjdump",
     "cuobjdump: NVIDIA (R) CUDA Object Dump Tool\nCopyright (c) 2005-2025 NVIDIA Corporation\n"
     "Built on Wed_Aug_20_01:52:07_PM_PDT_2025\nCuda compilation tools, release 13.0, V13.0.85\n"
     "Build cuda_13.0.r13.0/compiler.36424714_0\n",
     "13.0.85"},
    {"nvdisasm",
     "nvdisasm: NVIDIA (R) CUDA disassembler\nCopyright (c) 2005-2025 NVIDIA Corporation\n"
     "Built on Wed_Aug_20_01:52:07_PM_PDT_2025\nCuda compilation tools, release 13.0, V13.0.85\n"
     "Build cuda_13.0.r13.0/compiler.36424714_0\n",
     "13.0.85"},
    {"ncu",
     "NVIDIA (R) Nsight Compute Command Line Profiler\nCopyright (c) 2018-2025 NVIDIA Corporation\n"
     "Version 2025.3.1.0 (build 36398880) (public-release)\n",
     "2025.3.1.0"},
    {"compute-sanitizer",
     "NVIDIA (R) Compute Sanitizer\nCopyright (c) 2020-2025 NVIDIA Corporation\nVersion 2025.3.0.0 (public-release)\n",
     "2025.3.0.0"},
};

/// A folder of its own for each test, removed after it.
class Doctor : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device entropy;
    folder_ = fs::temp_directory_path() / ("launchlab-doctor-" + std::to_string(getpid()) + "-" + std::to_string(entropy()));
    fs::create_directories(folder_ / "bin");
    fs::create_directories(folder_ / "build");
  }
  void TearDown() override { fs::remove_all(folder_); }

  /// A program in bin/ that prints `text` for --version.
  fs::path fake_tool(const std::string& name, const std::string& text) {
    const fs::path program = folder_ / "bin" / name;
    std::ofstream(program) << "#!/bin/sh\ncat <<'END_OF_VERSION'\n" << text << "END_OF_VERSION\n";
    fs::permissions(program, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                 fs::perms::others_read | fs::perms::others_exec);
    return program;
  }

  /// `launchlab doctor` on the course, its PATH led by bin/, with env added.
  RunOutcome doctor(std::vector<std::string> env = {}) {
    const char* path = std::getenv("PATH");
    env.push_back("PATH=" + (folder_ / "bin").string() + ":" + (path ? path : "/usr/bin:/bin"));
    env.push_back("LAUNCHLAB_ROOT=" LAUNCHLAB_SOURCE_DIR);
    env.push_back("LAUNCHLAB_BUILD_DIR=" + (folder_ / "build").string());
    RunLimits limits;
    limits.timeout = std::chrono::seconds(90);
    return run_limited({LAUNCHLAB_CLI, "doctor"}, {}, env, limits);
  }

  fs::path folder_;
};

/// The line doctor prints for a name, "" when there is none.
std::string line_of(const std::string& output, const std::string& name) {
  const std::string start = "\n  " + name + " ";
  const auto at = output.find(start);
  if (at == std::string::npos) return "";
  return output.substr(at + 1, output.find('\n', at + 1) - at - 1);
}

}  // namespace

TEST(VersionIn, TakesTheFirstLineThatHoldsANumberNotTheFirstLine) {
  for (const auto& tool : kNvidiaTools) EXPECT_EQ(version_in(tool.prints), tool.version) << tool.prints;
  EXPECT_EQ(version_in("g++ (Debian 12.2.0-14) 12.2.0\nCopyright (C) 2022\n"), "12.2.0");
  EXPECT_EQ(version_in("a banner\nCopyright (c) 2005-2025\n"), "") << "a year range is no version";
  EXPECT_EQ(version_in("NVRM version: NVIDIA UNIX Open Kernel Module  580.159.04  Release Build\nGCC version:  gcc 12.2.0\n",
                       "NVRM"),
            "580.159.04");
}

TEST_F(Doctor, NamesTheVersionOfEachToolWhereTheGraderFindsIt) {
  for (const auto& tool : kNvidiaTools) fake_tool(tool.name, tool.prints);
  const Capabilities capabilities = detect_capabilities(folder_ / "bin");
  for (const auto& tool : kNvidiaTools) {
    EXPECT_EQ(found_tool(tool.name, capabilities),
              std::string(tool.version) + " (" + (folder_ / "bin" / tool.name).string() + ")");
  }
}

TEST_F(Doctor, AToolThatNamesNoVersionIsFoundNotMissing) {
  const fs::path program = fake_tool("cuobjdump", "cuobjdump: NVIDIA (R) CUDA Object Dump Tool\n");
  const Capabilities capabilities = detect_capabilities(folder_ / "bin");
  EXPECT_EQ(found_tool("cuobjdump", capabilities), "found at " + program.string() + ", but its --version names no version");
  EXPECT_EQ(found_tool("nvdisasm", Capabilities{}), "");
}

TEST_F(Doctor, SaysWhatLaunchlabOpenGpuDocNamesAndHowToGetACheckout) {
  const char* before = std::getenv("LAUNCHLAB_OPEN_GPU_DOC");
  const std::string kept = before ? before : "";
  unsetenv("LAUNCHLAB_OPEN_GPU_DOC");
  EXPECT_NE(open_gpu_doc_checkout().find("is not set (git clone https://github.com/NVIDIA/open-gpu-doc"), std::string::npos)
      << open_gpu_doc_checkout();
  setenv("LAUNCHLAB_OPEN_GPU_DOC", (folder_ / "missing").c_str(), 1);
  EXPECT_NE(open_gpu_doc_checkout().find("which is not a folder"), std::string::npos) << open_gpu_doc_checkout();
  setenv("LAUNCHLAB_OPEN_GPU_DOC", folder_.c_str(), 1);
  EXPECT_NE(open_gpu_doc_checkout().find("which has no classes/compute/"), std::string::npos) << open_gpu_doc_checkout();
  fs::create_directories(folder_ / "classes" / "compute");
  EXPECT_EQ(open_gpu_doc_checkout(), folder_.string() + " (LAUNCHLAB_OPEN_GPU_DOC)");
  if (before) setenv("LAUNCHLAB_OPEN_GPU_DOC", kept.c_str(), 1);
  else unsetenv("LAUNCHLAB_OPEN_GPU_DOC");
}

// The program itself: the tools on PATH (where nvcc's folder lacks them, as
// on a machine with the compiler alone) are run from there.
TEST_F(Doctor, PrintsTheVersionsOfToolsFoundOnPath) {
  for (const auto& tool : kNvidiaTools) fake_tool(tool.name, tool.prints);
  RunOutcome outcome = doctor({"LAUNCHLAB_OPEN_GPU_DOC="});
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  int checked = 0;
  for (const auto& tool : kNvidiaTools) {
    if (access((fs::path(LAUNCHLAB_CUDA_BIN_DIR) / tool.name).c_str(), X_OK) == 0) continue;  // nvcc's comes first
    ++checked;
    EXPECT_NE(line_of(outcome.output, tool.name).find(std::string(tool.version) + " (" + (folder_ / "bin" / tool.name).string() + ")"),
              std::string::npos)
        << outcome.output;
  }
  EXPECT_NE(line_of(outcome.output, "open-gpu-doc").find("LAUNCHLAB_OPEN_GPU_DOC is not set"), std::string::npos)
      << outcome.output;
  if (checked == 0) GTEST_SKIP() << "every tool is beside nvcc here, where the grader takes it first";
}

TEST_F(Doctor, NamesWhoHoldsALock) {
  const fs::path file = folder_ / "held.lock";
  EXPECT_EQ(lock_holder(file), "") << "a missing file";
  FileLock lock(file);
  const std::string holder = lock_holder(file);
  EXPECT_EQ(holder.rfind("process " + std::to_string(getpid()) + " (", 0), 0u) << holder;
  EXPECT_NE(holder.find("doctor_selftest"), std::string::npos) << holder;
  EXPECT_NE(holder.find(", running since 20"), std::string::npos) << holder;
}

// Another grading holds the only sandbox user for the whole of its run:
// doctor answers at once and says who holds it.
TEST_F(Doctor, DoesNotWaitForASandboxUserAnotherGradingHolds) {
  LAUNCHLAB_SKIP_UNLESS_AVAILABLE(SandboxKind::user);
  Sandbox sandbox = *launchlab::selftest::available_sandbox(SandboxKind::user).sandbox;
  RunLimits limits;
  limits.timeout = std::chrono::seconds(60);
  auto holding = std::async(std::launch::async, [&] { return run_limited({"sleep", "20"}, "/", {}, limits, sandbox); });
  // A grading elsewhere on the host (ctest -j runs the course's own) may hold
  // the user first: the run above waits its turn, and so does this test.
  const fs::path user_lock = sandbox_user_lock(sandbox.users.front());
  const std::string held_here = "process " + std::to_string(getpid()) + " (";
  const auto asked = std::chrono::steady_clock::now();
  while (lock_holder(user_lock).rfind(held_here, 0) != 0) {
    ASSERT_LT(std::chrono::steady_clock::now() - asked, std::chrono::seconds(240))
        << "the sandbox user never came free: " << lock_holder(user_lock);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }

  Sandbox not_waiting = sandbox;
  not_waiting.wait_for_user = false;
  try {
    run_limited({"true"}, "/", {}, limits, not_waiting);
    ADD_FAILURE() << "a run that may not wait ran while the user was taken";
  } catch (const SandboxUsersBusy& busy) {
    EXPECT_NE(std::string(busy.what()).find(sandbox.users.front().name + " is taken"), std::string::npos) << busy.what();
    EXPECT_NE(std::string(busy.what()).find("held by a run of this process"), std::string::npos) << busy.what();
  }

  const auto start = std::chrono::steady_clock::now();
  RunOutcome outcome = doctor({"LAUNCHLAB_SANDBOX_USER=" + sandbox.users.front().name});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 15) << "doctor waited for the run to end:\n" << outcome.output;
  const std::string grade = line_of(outcome.output, "grade");
  EXPECT_NE(grade.find("its users are taken by other gradings"), std::string::npos) << outcome.output;
  EXPECT_NE(grade.find("held by process " + std::to_string(getpid()) + " ("), std::string::npos) << outcome.output;
  EXPECT_TRUE(holding.get().exited_cleanly());
}
