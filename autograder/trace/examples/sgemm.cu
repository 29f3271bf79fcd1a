// A program to trace: one single-precision matrix product through cuBLAS,
// C = A B with 512 x 512 matrices. cuBLAS launches its own kernels (through
// cudaLaunchKernelExC, which reaches the driver's cuLaunchKernelEx).
//
//   nvcc -o sgemm sgemm.cu -lcublas
//   ./launchlab trace -- ./sgemm
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

int main() {
  const int n = 512;
  std::vector<float> a(n * n, 1.0f), b(n * n, 2.0f), c(n * n, 0.0f);
  float *da = nullptr, *db = nullptr, *dc = nullptr;
  cudaMalloc(&da, a.size() * sizeof(float));
  cudaMalloc(&db, b.size() * sizeof(float));
  cudaMalloc(&dc, c.size() * sizeof(float));
  cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice);
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cublasCreate failed\n");
    return 1;
  }
  const float one = 1.0f, zero = 0.0f;
  const cublasStatus_t status = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, da, n, db, n, &zero, dc, n);
  cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost);
  cublasDestroy(handle);
  std::printf("sgemm: status %d, c[0] = %.1f (expected %.1f)\n", static_cast<int>(status), c[0], 2.0f * n);
  return status == CUBLAS_STATUS_SUCCESS && c[0] == 2.0f * n ? 0 : 1;
}
