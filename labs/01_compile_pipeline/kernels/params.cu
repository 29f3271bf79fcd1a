// Kernels whose parameters have every size and alignment a stub must place:
// scalars of 1, 2, 4 and 8 bytes, a pointer, a 16-byte-aligned vector type,
// structs with padding, over-alignment and an odd size, and no parameter.
#include <cstdint>

struct Padded { char tag; double value; short count; };  // 24 bytes, aligned to 8
struct Pair { int a; int b; };                           //  8 bytes, aligned to 4
struct Big { float v[9]; };                              // 36 bytes, aligned to 4
struct alignas(16) Aligned { int x; };                   // 16 bytes, aligned to 16

__global__ void k(char c, double d, int* p, short s, float4 f) {
  if (c) *p = static_cast<int>(d) + s + static_cast<int>(f.x);
}

__global__ void padded(Padded pd, int* out) { *out = pd.tag + static_cast<int>(pd.value) + pd.count; }

__global__ void pairs(Pair pr, Big big, Aligned al, unsigned char u8, std::int64_t i64) {
  if (u8 == 255 && big.v[8] + pr.a + pr.b + al.x + i64 < 0) __trap();
}

__global__ void empty() {}

// A kernel with internal linkage: its PTX .entry is not .visible.
static __global__ void hidden(int n) {
  if (n < 0) __trap();
}

void launch_hidden() { hidden<<<1, 1>>>(0); }
