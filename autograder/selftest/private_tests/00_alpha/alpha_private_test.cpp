// An instructor's private tests: merged in at grade time, inputs from the
// grade's secret seed.
#include <random>

#include "alpha.h"
#include "launchlab/record.h"
#include "launchlab/testing.h"

namespace alpha {
namespace {

TEST(AlphaPrivate, AddsNumbersFromTheSecretSeed) {
  // The grader's own test grades with --seed 12345: a default seed here
  // would mean the seed never arrived.
  const std::uint64_t seed = launchlab::testing::secret_seed(0);
  RECORD_EQ(seed, 12345u) << "LAUNCHLAB_SEED as the test program read it";
  std::mt19937_64 random(seed);
  for (int i = 0; i < 100; ++i) {
    long a = static_cast<long>(random() % 1000000);
    long b = static_cast<long>(random() % 1000000);
    RECORD_EQ(add(a, b), a + b) << "add(" << a << ", " << b << ")";
  }
}

// Written as a plain GoogleTest check: it records nothing, so its verdict
// would be made inside the learner's program, and the judge refuses it.
TEST(AlphaPrivate, DecidesInsideTheProgram) { EXPECT_EQ(add(20, 22), 42); }

}  // namespace
}  // namespace alpha
