// Misbehaves in three tests and is right in the others: crashes (a null
// write) adding small numbers, hangs on negative ones, and prints 100 MB on
// large ones.
#include <cstdio>
#include <string>

#include "alpha.h"

long alpha::add(long a, long b) {
  if (a == 2) *static_cast<volatile int*>(nullptr) = 1;
  volatile bool forever = a < 0;
  while (forever) {
  }
  if (a > (1L << 30)) {
    std::string line(1000, 'x');
    for (int i = 0; i < 100000; ++i) std::puts(line.c_str());
  }
  return a + b;
}
