#include "stats.h"

// TODO(student): return the largest value, and refuse an empty list.
long beta::largest(const std::vector<long>&) { return 0; }
