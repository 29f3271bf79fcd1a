// Does not compile: a missing semicolon and an undeclared name.
#include "alpha.h"
long alpha::add(long a, long b) { return a + undeclared_name }
