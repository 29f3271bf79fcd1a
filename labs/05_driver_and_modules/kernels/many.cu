// 256 kernels in one module, for measuring lazy against eager loading:
// kNNN writes value + NNN, where NNN runs 1000-1077, 1100-1177, 1200-1277
// and 1300-1377 (the last two digits are octal digits, so that the macros
// below can build the names from digits 0 to 7).
#define LAUNCHLAB_K(n) \
  extern "C" __global__ void k##n(int* out, int value) { out[threadIdx.x] = value + n; }
#define LAUNCHLAB_K8(p)                                                                         \
  LAUNCHLAB_K(p##0) LAUNCHLAB_K(p##1) LAUNCHLAB_K(p##2) LAUNCHLAB_K(p##3) LAUNCHLAB_K(p##4) \
  LAUNCHLAB_K(p##5) LAUNCHLAB_K(p##6) LAUNCHLAB_K(p##7)
#define LAUNCHLAB_K64(p)                                                                                \
  LAUNCHLAB_K8(p##0) LAUNCHLAB_K8(p##1) LAUNCHLAB_K8(p##2) LAUNCHLAB_K8(p##3) LAUNCHLAB_K8(p##4)     \
  LAUNCHLAB_K8(p##5) LAUNCHLAB_K8(p##6) LAUNCHLAB_K8(p##7)

LAUNCHLAB_K64(10)
LAUNCHLAB_K64(11)
LAUNCHLAB_K64(12)
LAUNCHLAB_K64(13)
