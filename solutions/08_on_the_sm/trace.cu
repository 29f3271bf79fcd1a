// The traced kernels: each block writes down where and when it ran.
// The contract is in trace.h; the host code that launches them is launch.cu.

#include <cstdint>

#include "trace.h"

namespace launchlab::on_the_sm {

namespace {

// PTX special registers have no CUDA C++ name: one mov reads each. `volatile`
// keeps the compiler from merging or moving two reads of the timer.
__device__ __forceinline__ std::uint32_t read_smid() {
  std::uint32_t sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  return sm;
}

__device__ __forceinline__ std::uint32_t read_warpid() {
  std::uint32_t warp;
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(warp));
  return warp;
}

__device__ __forceinline__ std::uint64_t read_globaltimer() {
  std::uint64_t ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  return ns;
}

// Lane 0 of each warp adds the warp's hardware slot to the block's mask. The
// record was zeroed by the host, so the bits of all warps add up.
__device__ void mark_warp_slot(BlockRecord& record) {
  if ((threadIdx.x & 31u) == 0) {
    const unsigned long long bit = 1ull << (read_warpid() & 63u);
    atomicOr(reinterpret_cast<unsigned long long*>(&record.warp_slots), bit);
  }
}

// Called by every thread once its work is done: the barrier makes thread 0
// wait for the block's last warp before it reads the end time.
__device__ void close_record(BlockRecord& record, std::uint64_t start_ns) {
  __syncthreads();
  if (threadIdx.x == 0) {
    record.block = blockIdx.x;
    record.sm = read_smid();
    record.start_ns = start_ns;
    record.end_ns = read_globaltimer();
  }
}

}  // namespace

__global__ void traced_vadd(const float* a, const float* b, float* c, int n, BlockRecord* records) {
  const std::uint64_t start_ns = read_globaltimer();
  BlockRecord& record = records[blockIdx.x];
  mark_warp_slot(record);
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (static_cast<long long>(i) < n) c[i] = a[i] + b[i];
  close_record(record, start_ns);
}

__global__ void traced_spin(std::uint64_t spin_ns, BlockRecord* records) {
  const std::uint64_t start_ns = read_globaltimer();
  BlockRecord& record = records[blockIdx.x];
  mark_warp_slot(record);
  // Each thread waits spin_ns from its own first reading, which is no earlier
  // than thread 0's start_ns: the block lasts at least spin_ns.
  while (read_globaltimer() - start_ns < spin_ns) {
  }
  close_record(record, start_ns);
}

}  // namespace launchlab::on_the_sm
