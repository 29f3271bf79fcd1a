// 32,756 + 8 = 32,764 bytes of parameters, but the pointer must start at
// 32,760: the buffer needs 32,768 bytes, and ptxas refuses it.
struct S {
  char b[32756];
};
__global__ void k(S s, int* p) {
  if (s.b[0]) *p = 1;
}
