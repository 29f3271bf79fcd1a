// Does not compile: a missing semicolon and an undeclared name.
#include "alpha.h"
long add(long a, long b) { return a + undeclared_name }
