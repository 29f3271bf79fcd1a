// A program to trace: the course's vadd, launched with <<<>>> through the
// CUDA runtime.
//
//   nvcc -arch=sm_90 -o vadd vadd.cu
//   ./launchlab trace -- ./vadd
#include <cuda_runtime.h>

#include <cstdio>

__global__ void vadd(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  const int n = 1 << 20;
  float *a = nullptr, *b = nullptr, *c = nullptr;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMalloc(&c, n * sizeof(float));
  cudaMemset(a, 0, n * sizeof(float));
  cudaMemset(b, 0, n * sizeof(float));
  vadd<<<4096, 256>>>(a, b, c, n);
  const cudaError_t status = cudaDeviceSynchronize();
  std::printf("vadd<<<4096, 256>>>: %s\n", cudaGetErrorString(status));
  return status == cudaSuccess ? 0 : 1;
}
