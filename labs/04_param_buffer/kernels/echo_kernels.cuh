// Kernels that echo their parameters: each copies the bytes of every
// parameter, in order, to launchlab_echo_bytes, and records where in the
// parameter space each parameter lies (its address minus the first one's) in
// launchlab_echo_offsets. Parameters are `const __grid_constant__`, so taking
// their address reads the parameter buffer itself, padding bytes included,
// instead of a copy.
//
// The tests compile this file twice: into the test program (echo_kernels.cu),
// to launch the kernels on a GPU, and with `nvcc -x cu -cubin` at test time,
// to read the layout nvcc records for each kernel in the cubin.
#ifndef LAUNCHLAB_TESTS_ECHO_KERNELS_CUH
#define LAUNCHLAB_TESTS_ECHO_KERNELS_CUH

#include <vector_types.h>

#include <cstddef>

namespace launchlab::param_buffer_tests {

struct Padded {  // 24 bytes, alignment 8: 7 padding bytes after tag, 6 after count
  char tag;
  double value;
  short count;
};
struct Pair {  // 8 bytes, alignment 4
  int a;
  int b;
};
struct WithArray {  // 16 bytes, alignment 4: an array inside a struct
  char tag;
  int values[3];
};
struct Matrix {  // 36 bytes, alignment 4
  float m[3][3];
};
struct Nested {  // 40 bytes, alignment 8: a struct in a struct, and an odd array
  short s;
  Padded p;
  char c[5];
};
struct alignas(16) Aligned16 {  // 16 bytes, alignment 16
  int x;
};
struct Largest {  // 32,764 bytes: the most a kernel's parameters may take
  unsigned char bytes[32764];
};
struct Big {  // 32,000 bytes, alignment 4
  int values[8000];
};

/// Room for the bytes of every parameter of any kernel below.
inline constexpr std::size_t kEchoCapacity = 32768;
/// Room for the offsets of every parameter of any kernel below.
inline constexpr std::size_t kMaxEchoParams = 16;

}  // namespace launchlab::param_buffer_tests

#if defined(__CUDACC__)

__device__ unsigned char launchlab_echo_bytes[launchlab::param_buffer_tests::kEchoCapacity];
__device__ unsigned long long launchlab_echo_offsets[launchlab::param_buffer_tests::kMaxEchoParams];

template <class... Ts>
__device__ void launchlab_echo(const Ts&... params) {
  const unsigned char* base = nullptr;
  std::size_t position = 0;
  int index = 0;
  (
      [&] {
        const unsigned char* bytes = reinterpret_cast<const unsigned char*>(&params);
        if (index == 0) base = bytes;
        if (threadIdx.x == 0) launchlab_echo_offsets[index] = static_cast<unsigned long long>(bytes - base);
        for (std::size_t j = threadIdx.x; j < sizeof(Ts); j += blockDim.x) launchlab_echo_bytes[position + j] = bytes[j];
        position += sizeof(Ts);
        ++index;
      }(),
      ...);
}

// A parameter the kernel reads in place: `__grid_constant__ T const name`.
#define LL_P(T) __grid_constant__ T const
using namespace launchlab::param_buffer_tests;

extern "C" __global__ void scalars(LL_P(char) c, LL_P(short) s, LL_P(int) i, LL_P(double) d) {
  launchlab_echo(c, s, i, d);
}

extern "C" __global__ void mixed(LL_P(char) c, LL_P(double) d, LL_P(int*) p, LL_P(short) s, LL_P(float4) f) {
  launchlab_echo(c, d, p, s, f);
}

extern "C" __global__ void tail(LL_P(int*) p, LL_P(short) s) { launchlab_echo(p, s); }

extern "C" __global__ void structs(LL_P(char) c, LL_P(Padded) pd, LL_P(short) s, LL_P(Pair) pr, LL_P(char) last) {
  launchlab_echo(c, pd, s, pr, last);
}

extern "C" __global__ void arrays(LL_P(char) c, LL_P(WithArray) wa, LL_P(Matrix) m, LL_P(double) d, LL_P(Nested) n) {
  launchlab_echo(c, wa, m, d, n);
}

extern "C" __global__ void vectors(LL_P(char) c, LL_P(Aligned16) a, LL_P(double2) d2, LL_P(long long) ll,
                                   LL_P(unsigned char) u, LL_P(float4) f, LL_P(char2) c2) {
  launchlab_echo(c, a, d2, ll, u, f, c2);
}

extern "C" __global__ void pointers(LL_P(unsigned char) u, LL_P(const float*) a, LL_P(unsigned short) h, LL_P(char*) b,
                                    LL_P(unsigned int) w, LL_P(void*) v) {
  launchlab_echo(u, a, h, b, w, v);
}

extern "C" __global__ void largest(LL_P(Largest) l) { launchlab_echo(l); }

extern "C" __global__ void big_after_char(LL_P(char) c, LL_P(Big) b) { launchlab_echo(c, b); }

#undef LL_P

#endif  // __CUDACC__

#endif  // LAUNCHLAB_TESTS_ECHO_KERNELS_CUH
