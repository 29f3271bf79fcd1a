// One byte more than a kernel's parameters may take: cicc refuses it.
struct S {
  char b[32765];
};
__global__ void k(S s) {
  if (s.b[0]) __trap();
}
