// The traced kernels: each block writes down where and when it ran.
// The contract is in trace.h; the host code that launches them is launch.cu.

#include <cstdint>

#include "trace.h"

namespace launchlab::on_the_sm {

namespace {

// PTX special registers have no CUDA C++ name: inline PTX reads them, one
// `mov` each. Mark the asm volatile, so that the compiler neither merges two
// readings of the timer nor moves one. ([[maybe_unused]] only keeps the
// compiler quiet until your kernels call them.)
[[maybe_unused]] __device__ __forceinline__ std::uint32_t read_smid() {
  // TODO(student): return %smid, the SM this thread runs on:
  //   asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  return 0;
}

[[maybe_unused]] __device__ __forceinline__ std::uint32_t read_warpid() {
  // TODO(student): return %warpid, the hardware warp slot this warp runs in
  // (a 32-bit register, like %smid).
  return 0;
}

[[maybe_unused]] __device__ __forceinline__ std::uint64_t read_globaltimer() {
  // TODO(student): return %globaltimer, the GPU's 64-bit nanosecond timer.
  // A 64-bit output operand uses the constraint "=l".
  return 0;
}

}  // namespace

__global__ void traced_vadd(const float* a, const float* b, float* c, int n, BlockRecord* records) {
  // TODO(student): trace one block of vadd.
  //  1. Read the timer first thing: that is the block's start_ns.
  //  2. Lane 0 of each warp (threadIdx.x % 32 == 0) sets the bit of its
  //     %warpid in records[blockIdx.x].warp_slots with a 64-bit atomicOr
  //     (the host zeroed the records; cast the address to unsigned long long*).
  //  3. Do vadd's work: c[i] = a[i] + b[i] for i < n.
  //  4. __syncthreads(), so that every warp is done; then thread 0 fills in
  //     block, sm, start_ns and end_ns (a second reading of the timer).
  (void)a;
  (void)b;
  (void)c;
  (void)n;
  (void)records;
}

__global__ void traced_spin(std::uint64_t spin_ns, BlockRecord* records) {
  // TODO(student): the same record as traced_vadd, but instead of vadd's
  // work, every thread spins until the timer has moved spin_ns past its
  // start, so that every block lasts at least spin_ns.
  (void)spin_ns;
  (void)records;
}

}  // namespace launchlab::on_the_sm
