// The tests of lab 01_beta.
#include <stdexcept>

#include "launchlab/record.h"

#include "stats.h"

namespace beta {
namespace {

TEST(Beta, FindsTheLargest) {
  RECORD_EQ(largest({3, 9, -4}), 9L);
  RECORD_EQ(largest({-7}), -7L);
}

TEST(Beta, RefusesAnEmptyList) { RECORD_THROWS(largest({}), std::invalid_argument); }

}  // namespace
}  // namespace beta
