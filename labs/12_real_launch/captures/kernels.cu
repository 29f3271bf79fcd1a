// The kernels whose launches the captures record. Compiled to one cubin,
//   nvcc -cubin -arch=sm_90 -o kernels.sm_90.cubin kernels.cu
// and loaded with cuModuleLoad, so that the capture, lab 03's reader and the
// driver's attributes all speak of the same file. extern "C" keeps the names
// as written: a capture names a kernel by its symbol.
#include <cstdint>

// Where kernels without an output pointer leave a value, so that the compiler
// keeps the code that reads their parameters.
__device__ unsigned long long launchlab_sink;

// Each parameter-size kernel takes one blob of N bytes (alignment 1), so that
// the parameter buffer is exactly N bytes.
template <int N>
struct Blob {
  unsigned char bytes[N];
};

__device__ unsigned long long linear_thread() {
  const unsigned long long block =
      blockIdx.x + static_cast<unsigned long long>(gridDim.x) * (blockIdx.y + static_cast<unsigned long long>(gridDim.y) * blockIdx.z);
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  return block * threads + threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

template <int N>
__device__ void fold_blob(const Blob<N>& blob) {
  const unsigned i = (threadIdx.x * 131u) % N;
  if (blob.bytes[i] == 0xffu && blob.bytes[N - 1] == 0xfeu) atomicAdd(&launchlab_sink, 1ull);
}

// Live values in proportion to N: kernels of several register counts.
template <int N>
__device__ void spin(float* out, int rounds) {
  float acc[N];
#pragma unroll
  for (int i = 0; i < N; ++i) acc[i] = static_cast<float>(threadIdx.x + i);
  for (int round = 0; round < rounds; ++round) {
#pragma unroll
    for (int i = 0; i < N; ++i) acc[i] = acc[i] * acc[(i + 1) % N] + 0.5f;
  }
  float sum = 0.0f;
#pragma unroll
  for (int i = 0; i < N; ++i) sum += acc[i];
  out[linear_thread() % 1024] = sum;
}

extern "C" {

__global__ void empty() {}

// out[t] = m for the first n threads of the grid.
__global__ void fill(int* out, int n, int m) {
  const unsigned long long t = linear_thread();
  if (t < static_cast<unsigned long long>(n)) out[t] = m;
}

// Uses `dynamic_floats` floats of dynamic shared memory (at most what the launch gave).
__global__ void shared_dynamic(float* out, int dynamic_floats) {
  extern __shared__ float dynamic[];
  if (dynamic_floats > 0) {
    const int i = static_cast<int>(threadIdx.x) % dynamic_floats;
    dynamic[i] = static_cast<float>(threadIdx.x);
    __syncthreads();
    if (threadIdx.x == 0 && blockIdx.x == 0) out[0] = dynamic[dynamic_floats - 1];
  }
}

// 4 KiB of static shared memory, and optionally dynamic shared memory after it.
__global__ void shared_static(float* out, int dynamic_floats) {
  __shared__ float tile[1024];
  extern __shared__ float dynamic[];
  tile[threadIdx.x % 1024] = static_cast<float>(threadIdx.x);
  if (dynamic_floats > 0) dynamic[threadIdx.x % dynamic_floats] = 1.0f;
  __syncthreads();
  if (threadIdx.x == 0 && blockIdx.x == 0) out[0] = tile[1023] + (dynamic_floats > 0 ? dynamic[0] : 0.0f);
}

// Lab 04's example: offsets 0, 8, 16, 24, 32, 48 bytes in all.
__global__ void mixed(char c, double d, int* p, short s, float4 f) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    p[0] = c;
    p[1] = static_cast<int>(d);
    p[2] = s;
    p[3] = static_cast<int>(f.x + f.y + f.z + f.w);
  }
}

// Many live values: more registers than fill.
__global__ void __launch_bounds__(128) heavy_registers(float* out, int n) {
  float acc[48];
#pragma unroll
  for (int i = 0; i < 48; ++i) acc[i] = static_cast<float>(threadIdx.x * (i + 1));
  for (int round = 0; round < n; ++round) {
#pragma unroll
    for (int i = 0; i < 48; ++i) acc[i] = acc[i] * acc[(i + 7) % 48] + 1.0f;
  }
  float sum = 0.0f;
#pragma unroll
  for (int i = 0; i < 48; ++i) sum += acc[i];
  out[linear_thread() % 1024] = sum;
}

// A local array indexed at run time: a stack frame (local memory).
__global__ void uses_local(float* out, int index) {
  float scratch[64];
  for (int i = 0; i < 64; ++i) scratch[i] = static_cast<float>(i * threadIdx.x);
  out[linear_thread() % 1024] = scratch[(index + threadIdx.x) & 63];
}

// A named barrier besides barrier 0: BARRIER_COUNT 2.
__global__ void named_barrier(int* out) {
  if (threadIdx.x < 64) asm volatile("bar.sync 1, 64;");
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x % 1024] = 1;
}

// A thread-block cluster of two blocks, fixed at compile time.
__global__ void __cluster_dims__(2, 1, 1) clustered(int* out) {
  if (threadIdx.x == 0) out[blockIdx.x % 1024] = static_cast<int>(blockIdx.x);
}

__global__ void registers_6(float* out, int rounds) { spin<6>(out, rounds); }
__global__ void registers_12(float* out, int rounds) { spin<12>(out, rounds); }
__global__ void registers_20(float* out, int rounds) { spin<20>(out, rounds); }
__global__ void registers_32(float* out, int rounds) { spin<32>(out, rounds); }
__global__ void registers_100(float* out, int rounds) { spin<100>(out, rounds); }

// Parameter buffers of 1 KiB to the 32,764-byte maximum.
__global__ void param_1024(Blob<1024> blob) { fold_blob(blob); }
__global__ void param_4096(Blob<4096> blob) { fold_blob(blob); }
__global__ void param_4100(Blob<4100> blob) { fold_blob(blob); }
__global__ void param_8192(Blob<8192> blob) { fold_blob(blob); }
__global__ void param_16384(Blob<16384> blob) { fold_blob(blob); }
__global__ void param_32764(Blob<32764> blob) { fold_blob(blob); }

// Copies n 8-byte words from any GPU address: reads the code and the
// constant bank a QMD points at (only reads).
__global__ void peek(const unsigned long long* from, unsigned long long* to, int n) {
  for (int i = static_cast<int>(threadIdx.x); i < n; i += static_cast<int>(blockDim.x)) to[i] = from[i];
}

}  // extern "C"
