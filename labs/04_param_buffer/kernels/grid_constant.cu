// Taking the address of a kernel parameter, with and without
// __grid_constant__. Compare the PTX of the two kernels:
//   nvcc -ptx -arch=sm_90 grid_constant.cu -o - | grep -E 'entry|local_depot|cvta'
struct Big {
  int v[64];
};

__device__ const int* g_seen;

// The compiler copies b to the thread's local memory and hands out the
// address of the copy.
__global__ void copied(const Big b) { g_seen = &b.v[0]; }

// The address is b's own, in the parameter space.
__global__ void in_place(const __grid_constant__ Big b) { g_seen = &b.v[0]; }
