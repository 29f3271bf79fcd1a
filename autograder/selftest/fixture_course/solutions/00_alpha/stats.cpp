#include "stats.h"

#include <numeric>

long alpha::total(const std::vector<long>& values) { return std::accumulate(values.begin(), values.end(), 0L); }
