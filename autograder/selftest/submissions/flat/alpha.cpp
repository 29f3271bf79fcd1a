// Tries nothing: the reference answer, uploaded as a lone file (Gradescope's layout).
#include "alpha.h"
long add(long a, long b) { return a + b; }
