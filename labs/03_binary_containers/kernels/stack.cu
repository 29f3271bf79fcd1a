// A kernel whose array must live in local memory: it is written and read at
// run-time indices, so ptxas cannot keep it in registers. Its stack frame
// shows in ptxas -v and in EIATTR_FRAME_SIZE.
__global__ void stack_array(float* out, int k, int n) {
  float scratch[256];
  for (int j = 0; j < n; ++j) scratch[(k * j) & 255] = out[j];
  out[threadIdx.x] = scratch[(k + threadIdx.x) & 255];
}

// No local memory at all, for contrast.
__global__ void no_stack(float* out) { out[threadIdx.x] = 1.0f; }
