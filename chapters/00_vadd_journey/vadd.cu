// The program the course follows, whole: the kernel of every chapter and a
// host program that runs it once. Building it needs only the CUDA toolkit,
// running it a GPU:
//
//   nvcc -arch=sm_90 -o vadd vadd.cu && ./vadd
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void vadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// Every CUDA runtime call says whether it worked: stop at the first that did
// not, with the call and CUDA's words for what went wrong.
static void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(status));
    std::exit(1);
  }
}

int main() {
  const int n = 1 << 20;  // 1,048,576 floats, 4 MiB per array
  const size_t bytes = n * sizeof(float);
  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = 2.0f * static_cast<float>(i);  // every sum, 3i < 2^22, is exact in a float
  }

  float *da = nullptr, *db = nullptr, *dc = nullptr;
  check(cudaMalloc(&da, bytes), "cudaMalloc(a)");
  check(cudaMalloc(&db, bytes), "cudaMalloc(b)");
  check(cudaMalloc(&dc, bytes), "cudaMalloc(c)");
  check(cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy(a)");
  check(cudaMemcpy(db, b.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy(b)");

  // 4096 blocks of 256 threads: one thread per element.
  vadd<<<4096, 256>>>(da, db, dc, n);
  check(cudaGetLastError(), "vadd<<<4096, 256>>>");
  // On the default stream this copy starts when the kernel has finished.
  check(cudaMemcpy(c.data(), dc, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy(c)");
  check(cudaFree(da), "cudaFree(a)");
  check(cudaFree(db), "cudaFree(b)");
  check(cudaFree(dc), "cudaFree(c)");

  for (int i = 0; i < n; ++i) {
    if (c[i] != a[i] + b[i]) {
      std::fprintf(stderr, "c[%d] is %g, not %g\n", i, c[i], a[i] + b[i]);
      return 1;
    }
  }
  std::printf("vadd: all %d sums are right\n", n);
  return 0;
}
