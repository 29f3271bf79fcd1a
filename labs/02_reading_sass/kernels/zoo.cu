// Kernels that make ptxas show what the chapter talks about: special
// registers, predication, shared and local memory, atomics, parameters of
// every size and alignment, __launch_bounds__, a struct passed by value.
// Each kernel reads each of its parameters, so that each appears in the SASS.
#include <cstdint>

struct Big { float v[16]; };  // 64 bytes, passed by value in the parameter buffer

__device__ int counter;

// The parameter list of FACTS: offsets 0, 8, 16, 24, 32 (48 bytes in all).
__global__ void mixed(char c, double d, int* p, short s, float4 f) {
  if (c) *p = static_cast<int>(d) + s + static_cast<int>(f.x + f.w);
}

// No parameters at all: writes a __device__ variable.
__global__ void noparams() { counter = 1; }

// Special registers: thread and block indices, the lane, the SM, the clock.
__global__ void special(unsigned* out) {
  unsigned lane, sm;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  unsigned i = (blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x * blockDim.y + threadIdx.y * blockDim.x + threadIdx.x;
  out[4 * i + 0] = lane;
  out[4 * i + 1] = sm;
  out[4 * i + 2] = static_cast<unsigned>(clock64());
  out[4 * i + 3] = threadIdx.z + blockIdx.z;
}

// __launch_bounds__ becomes a maximum thread count in .nv.info.
__global__ void __launch_bounds__(128) bounded(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i] + 1.0f;
}

// A local array indexed at run time lives in local memory: a stack frame.
__global__ void local_array(float* out, int k, int n) {
  float scratch[32];
  for (int j = 0; j < 32; ++j) scratch[j] = out[j] * static_cast<float>(j + n);
  out[threadIdx.x] = scratch[(k + threadIdx.x) & 31];
}

// A struct passed by value: 64 bytes of parameter space.
__global__ void by_value(Big b, float* out) {
  float sum = 0.0f;
  for (int j = 0; j < 16; ++j) sum += b.v[j];
  out[threadIdx.x] = sum;
}

// Predication: a short if/else ptxas turns into predicated instructions.
__global__ void predicated(const int* in, int* out, int n, int threshold) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  out[i] = v > threshold ? v - threshold : threshold - v;
}

// Shared memory and a barrier.
__global__ void shared_sum(float* out, const float* in) {
  __shared__ float tile[256];
  tile[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  for (unsigned stride = 128; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) tile[threadIdx.x] += tile[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = tile[0];
}

// Atomics on global memory.
__global__ void atomic_count(int* histogram, const unsigned char* bytes, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&histogram[bytes[i]], 1);
}

// extern "C": the symbol is the plain name.
extern "C" __global__ void plain_c(int* out, int a, int b) { out[threadIdx.x] = a * threadIdx.x + b; }

// A template instance.
template <class T>
__global__ void scale(T* data, T factor, std::int64_t n) {
  std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= factor;
}
template __global__ void scale<float>(float*, float, std::int64_t);
template __global__ void scale<double>(double*, double, std::int64_t);
