// Several kernels in one file: templates (explicit and implicit
// instantiations), a namespace, extern "C", __launch_bounds__, and a device
// function and variables that are not kernels.
__device__ int counter;
__constant__ float coeffs[4];

__device__ __noinline__ float helper(float x, int k) { return x * coeffs[k & 3]; }

template <typename T, int N>
__global__ void scale(T* x, T f) {
  x[threadIdx.x] *= f * N;
}
template __global__ void scale<float, 2>(float*, float);
template __global__ void scale<double, 3>(double*, double);

template <typename T>
__global__ void fill(T* out, T value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}

namespace ns {
__global__ void inner(const int* __restrict__ a, int n) {
  if (n < 0) atomicAdd(&counter, a[0]);
}
}  // namespace ns

extern "C" __global__ void plain_c(float* x) { x[threadIdx.x] = 0.0f; }

__global__ void __launch_bounds__(128, 4) bounded(float* x, int n) {
  __shared__ float tile[128];
  tile[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = helper(tile[127 - threadIdx.x], n);
  atomicAdd(&counter, 1);
}

void launch_fills(float* f, int* i, int n) {
  fill<<<1, 32>>>(f, 1.0f, n);
  fill<<<1, 32>>>(i, 7, n);
}
