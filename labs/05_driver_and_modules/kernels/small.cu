// Two kernels, for loading a cubin, a fatbin and PTX by hand.
extern "C" __global__ void store(int* out, int value) { out[threadIdx.x] = value; }

extern "C" __global__ void twice(int* out, int value) { out[threadIdx.x] = 2 * value; }
