#include "alpha.h"

// TODO(student): return the sum.
long alpha::add(long, long) { return 0; }
