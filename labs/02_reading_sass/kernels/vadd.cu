// The course's kernel: c[i] = a[i] + b[i], one thread per element, launched
// as vadd<<<4096, 256>>>(da, db, dc, n).
__global__ void vadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
