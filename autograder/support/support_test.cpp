// The test support's helpers that run code in other processes, on their own:
// they need no lab and no GPU.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "launchlab/testing.h"

namespace launchlab::testing {
namespace {

TEST(ForkedChild, GivesWhatTheChildSaidAndLeavesThisProcessAsItWas) {
  const pid_t here = getpid();
  int value = 1;
  EXPECT_EQ(outcome_in_a_forked_child([&] {
              value = 2;
              return std::string(getpid() == here ? "this process" : "a child") + " saw " + std::to_string(value);
            }),
            "a child saw 2");
  EXPECT_EQ(value, 1);
}

TEST(ForkedChild, SaysHowAChildThatSaidNothingEnded) {
  EXPECT_EQ(outcome_in_a_forked_child([]() -> std::string {
              kill(getpid(), SIGKILL);
              return "never";
            }),
            "the call did not finish in a forked child: the child was killed by signal 9");
  EXPECT_EQ(outcome_in_a_forked_child(
                []() -> std::string {
                  pause();
                  return "never";
                },
                std::chrono::seconds(1)),
            "the call did not finish in a forked child: the child ran past its time limit and was stopped");
}

}  // namespace
}  // namespace launchlab::testing
