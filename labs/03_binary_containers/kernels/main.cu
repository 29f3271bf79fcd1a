// The host side of a tiny program: it only names the kernel, so that the
// executable carries vadd's fatbin (and an empty one of its own).
#include <cstdio>

__global__ void vadd(const float* a, const float* b, float* c, int n);

int main() {
  std::printf("vadd's host stub is at %p\n", reinterpret_cast<void*>(vadd));
  return 0;
}
