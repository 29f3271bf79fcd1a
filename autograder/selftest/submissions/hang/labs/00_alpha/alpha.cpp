// Hangs in one test (negative numbers) and is right in the others.
#include "alpha.h"
long add(long a, long b) {
  volatile bool forever = a < 0;
  while (forever) {
  }
  return a + b;
}
