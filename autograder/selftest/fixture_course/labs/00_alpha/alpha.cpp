#include "alpha.h"

// TODO(student): return the sum.
long add(long, long) { return 0; }
