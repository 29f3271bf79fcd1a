// A program to trace: one kernel with 32,760 bytes of parameters (CUDA 12.1
// and later accept up to 32,764 on Volta and newer), launched with <<<>>>.
// Its parameters travel inline in the pushbuffer, so its segment, and the
// LENGTH of its GPFIFO entry, are much longer than vadd's.
//
//   nvcc -arch=sm_90 -o large_params large_params.cu
//   ./launchlab trace -- ./large_params
#include <cuda_runtime.h>

#include <cstdio>

// With the 8-byte pointer after it, the list is 32,760 bytes.
struct Payload {
  unsigned char bytes[32752];
};

__global__ void sum_payload(Payload payload, unsigned* out) {
  unsigned sum = 0;
  for (unsigned i = threadIdx.x; i < sizeof payload.bytes; i += blockDim.x) sum += payload.bytes[i];
  atomicAdd(out, sum);
}

int main() {
  static Payload payload;
  unsigned expected = 0;
  for (unsigned i = 0; i < sizeof payload.bytes; ++i) {
    payload.bytes[i] = static_cast<unsigned char>(i * 7);
    expected += payload.bytes[i];
  }
  unsigned* out = nullptr;
  cudaMalloc(&out, sizeof *out);
  cudaMemset(out, 0, sizeof *out);
  sum_payload<<<1, 256>>>(payload, out);
  unsigned got = 0;
  cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost);
  const cudaError_t status = cudaGetLastError();
  std::printf("sum_payload<<<1, 256>>> over %zu bytes of parameters: %s, sum %u (expected %u)\n",
              sizeof payload + sizeof out, cudaGetErrorString(status), got, expected);
  return status == cudaSuccess && got == expected ? 0 : 1;
}
