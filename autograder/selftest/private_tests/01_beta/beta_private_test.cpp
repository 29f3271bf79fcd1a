// Does not compile (an undeclared name): an instructor's mistake.
#include "launchlab/record.h"
#include "stats.h"

namespace beta {
namespace {

TEST(BetaPrivate, FindsTheLargestOfMany) {
  const std::vector<long> many = instructors_undeclared_name;
  RECORD_EQ(largest(many), 3L);
}

}  // namespace
}  // namespace beta
