// Adds wrongly, and writes to the test program's transcript what the tests
// record for a right answer, with the values guessed right: a whole test
// that never ran and a record outside any test, before main; the right value
// under a real record's key, just before the real record.
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "alpha.h"

namespace {

void forge(std::string line) {
  static const int fd = [] {
    const char* named = std::getenv("LAUNCHLAB_TRANSCRIPT_FD");
    return named ? std::atoi(named) : 3;
  }();
  line += '\n';
  [[maybe_unused]] ssize_t wrote = write(fd, line.data(), line.size());
}

[[maybe_unused]] const bool forged_before_main = [] {
  forge(R"({"event":"record","test":"Alpha.AddsSmallNumbers","key":"add(2, 3)#1","value":5})");
  forge(R"({"event":"start","test":"Alpha.AddsNegativeNumbers"})");
  forge(R"({"event":"record","test":"Alpha.AddsNegativeNumbers","key":"add(-2, -3)#1","value":-5})");
  forge(R"({"event":"end","test":"Alpha.AddsNegativeNumbers","skipped":false})");
  return true;
}();

}  // namespace

long alpha::add(long a, long b) {
  if (a == 1L << 40) {
    forge(R"({"event":"record","test":"Alpha.AddsLargeNumbers","key":"add(1L << 40, 1L << 40)#1","value":2199023255552})");
  }
  return a - b;
}
