// Whether CUDA works where this runs (sandbox_test.cpp runs it in each
// sandbox kind with the GPU given): it finds the devices, allocates, writes
// and reads back device memory.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

int main() {
  int devices = 0;
  if (cudaError_t error = cudaGetDeviceCount(&devices); error != cudaSuccess) {
    std::printf("cuda: blocked (cudaGetDeviceCount: %s)\n", cudaGetErrorString(error));
    return 1;
  }
  const std::size_t bytes = 64u << 20;
  void* memory = nullptr;
  std::vector<unsigned char> back(bytes, 0);
  if (cudaMalloc(&memory, bytes) != cudaSuccess || cudaMemset(memory, 0x5a, bytes) != cudaSuccess ||
      cudaMemcpy(back.data(), memory, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
    std::printf("cuda: blocked (%s)\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  cudaFree(memory);
  for (unsigned char byte : back) {
    if (byte != 0x5a) {
      std::printf("cuda: blocked (device memory read back wrong)\n");
      return 1;
    }
  }
  std::printf("cuda: ok (%d devices)\n", devices);
  return 0;
}
