// Kernels whose parameter lists straddle the sizes where nvcc changes how it
// places and describes parameters (large_params.sh compiles them).
//
// Compiled with -DPARAM_BYTES=N, `big` takes exactly N bytes of parameters
// (N a multiple of 4, at most 32,764) and reads the first and the last word,
// so that the SASS shows where both sit in constant bank 0. Compiled with
// -DREADS_32009, the file holds `reads_32009` alone; without either, the
// mixed kernels below.

struct Words4 {
  int words[4];
};

#ifdef PARAM_BYTES
static_assert(PARAM_BYTES % 4 == 0 && PARAM_BYTES >= 4 && PARAM_BYTES <= 32764);

struct Blob {
  int words[PARAM_BYTES / 4];
};

__device__ int sink[2];

extern "C" __global__ void big(Blob blob) {
  sink[0] = blob.words[0];
  sink[1] = blob.words[PARAM_BYTES / 4 - 1];
}

#elif defined(READS_32009)

struct Blob {
  int words[8000];
};

__device__ int sink[2];
__device__ double sink_double;

// 32,009 bytes: a 32,000-byte blob, a double at 32,000 and a char at
// 32,008, each read once, so that the SASS shows reads at +0, +32000 and
// +32008 of the list. Past bank offset 0x8000 on every architecture but
// sm_90 (0x210 + 32,008 = 0x7f18), where cuobjdump prints them negative.
extern "C" __global__ void reads_32009(Blob blob, double d, char c) {
  sink[0] = blob.words[0];
  sink_double = d;
  sink[1] = c;
}

#else

template <int Bytes>
struct Blob {
  int words[Bytes / 4];
};

__device__ int sink[4];

// 12 bytes: the usual record and base, whatever else the module holds.
extern "C" __global__ void small(int* out, int n) { out[0] = n; }

// Two parameters of 2,400 bytes: is the switch decided by the total or by
// the largest parameter?
extern "C" __global__ void two_halves(Blob<2400> a, Blob<2400> b) {
  sink[0] = a.words[0];
  sink[1] = b.words[599];
}

// 4,352 bytes and a char: 4,353 in all, one byte past the switch.
extern "C" __global__ void blob_and_char(Blob<4352> blob, char c) { sink[0] = blob.words[0] + c; }

// A pointer, then 4,352 bytes: 4,360 in all.
extern "C" __global__ void pointer_then_blob(int* out, Blob<4352> blob) {
  out[0] = blob.words[0];
  out[1] = blob.words[1087];
}

// Scalars of every alignment after a large blob: the offsets and sizes the
// records give for each.
extern "C" __global__ void blob_then_scalars(Blob<8192> blob, char c, double d, int* out, short s) {
  out[0] = blob.words[5] + c + static_cast<int>(d) + s;
}

// The largest list nvcc accepts, read at its end: bank offsets of 0x8000 and
// more, which cuobjdump prints as negative numbers.
extern "C" __global__ void read_at_the_end(Blob<32748> blob, Words4 tail) {
  sink[0] = blob.words[8186];
  sink[1] = tail.words[0];
  sink[2] = tail.words[3];
}

#endif
