#include "alpha.h"

long alpha::add(long a, long b) { return a + b; }
