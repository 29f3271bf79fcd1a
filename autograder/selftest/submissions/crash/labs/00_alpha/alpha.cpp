// Crashes (a null write) in one test (small numbers) and is right in the others.
#include "alpha.h"
long add(long a, long b) {
  if (a == 2) *static_cast<volatile int*>(nullptr) = 1;
  return a + b;
}
