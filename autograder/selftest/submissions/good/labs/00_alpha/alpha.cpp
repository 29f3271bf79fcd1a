// Tries nothing: the reference answer.
#include "alpha.h"
long add(long a, long b) { return a + b; }
