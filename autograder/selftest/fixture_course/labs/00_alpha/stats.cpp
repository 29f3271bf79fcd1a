#include "stats.h"

// TODO(student): add the values up.
long alpha::total(const std::vector<long>&) { return 0; }
