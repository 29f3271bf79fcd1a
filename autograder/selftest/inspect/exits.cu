// Many early exits: EIATTR_EXIT_INSTR_OFFSETS grows past sixteen bytes.
__global__ void exits(int* out, int n) {
  int i = threadIdx.x;
  if (i == n) return;
  out[0] = i;
  if (i == 2 * n) return;
  out[1] = i;
  if (i == 3 * n) return;
  out[2] = i;
  if (i == 4 * n) return;
  out[3] = i;
  if (i == 5 * n) return;
  out[4] = i;
}
