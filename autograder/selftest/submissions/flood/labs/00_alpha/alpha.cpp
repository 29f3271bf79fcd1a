// Prints 100 MB in one test (large numbers) and is right in the others.
#include <cstdio>
#include <string>

#include "alpha.h"
long add(long a, long b) {
  if (a > (1L << 30)) {
    std::string line(1000, 'x');
    for (int i = 0; i < 100000; ++i) std::puts(line.c_str());
  }
  return a + b;
}
