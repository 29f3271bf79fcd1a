// The sandbox kinds this machine can run, for tests that run in each.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "launchlab/grader/sandbox.h"

namespace launchlab::selftest {

inline constexpr grader::SandboxKind every_sandbox_kind[] = {
    grader::SandboxKind::none, grader::SandboxKind::bubblewrap, grader::SandboxKind::user,
    grader::SandboxKind::user_bubblewrap};

/// The sandbox of that kind as choose_sandbox makes it here, or why there is
/// none. As root, the dedicated user (LAUNCHLAB_SANDBOX_USER, else
/// launchlab-sandbox) is created with useradd when it is missing.
struct AvailableSandbox {
  std::optional<grader::Sandbox> sandbox;
  std::string why_not;
};
const AvailableSandbox& available_sandbox(grader::SandboxKind kind);

/// The test name suffix for a kind.
std::string kind_name(const testing::TestParamInfo<grader::SandboxKind>& info);

}  // namespace launchlab::selftest

/// Skips the test when the kind cannot run here, saying why.
#define LAUNCHLAB_SKIP_UNLESS_AVAILABLE(kind)                                                         \
  do {                                                                                                \
    const auto& launchlab_available = ::launchlab::selftest::available_sandbox(kind);                 \
    if (!launchlab_available.sandbox) GTEST_SKIP() << launchlab_available.why_not;                    \
  } while (false)
