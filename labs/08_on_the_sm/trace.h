/// @file
/// Recording where and when each block of a grid ran: the SM it ran on
/// (`%smid`), when it started and ended on the GPU's global nanosecond timer
/// (`%globaltimer`), and the hardware warp slots its warps held (`%warpid`).
/// Also the trace's file format, a CSV with `# key: value` lines on top.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace launchlab::on_the_sm {

/// What one block of a traced grid leaves behind: 32 bytes, written once per
/// block by its thread 0, except warp_slots, which every warp adds its bit to.
struct BlockRecord {
  /// The block's index in the grid, `blockIdx.x` (the traced grids are 1-D).
  std::uint32_t block = 0;
  /// The SM the block ran on: PTX's `%smid`. Numbers need not be contiguous;
  /// they are below `%nsmid`.
  std::uint32_t sm = 0;
  /// `%globaltimer` read by thread 0 as the block's first action, in
  /// nanoseconds.
  std::uint64_t start_ns = 0;
  /// `%globaltimer` read by thread 0 after a `__syncthreads()` that every
  /// thread of the block reaches when its work is done.
  std::uint64_t end_ns = 0;
  /// Bit w is set when one of the block's warps read `%warpid` == w: the
  /// hardware warp slots of the SM that the block's warps occupied. A block
  /// of 256 threads sets 8 bits. (Every GPU so far holds at most 64 warps per
  /// SM, so 64 bits are enough; a %warpid of 64 or more would set bit
  /// %warpid mod 64.)
  std::uint64_t warp_slots = 0;
};

#if defined(__CUDACC__)
/// The course's vadd, traced: every thread with i < n writes
/// c[i] = a[i] + b[i], and block b fills records[b] as BlockRecord describes.
/// records must hold gridDim.x zeroed records: warp_slots is built with
/// atomicOr on top of what is there.
__global__ void traced_vadd(const float* a, const float* b, float* c, int n, BlockRecord* records);

/// A block that does nothing but wait: every thread spins until
/// `%globaltimer` has moved spin_ns past the block's start_ns, so each block
/// runs for a known time whatever the SM's clock. Block b fills records[b]
/// (zeroed beforehand) as BlockRecord describes.
__global__ void traced_spin(std::uint64_t spin_ns, BlockRecord* records);
#else
/// traced_vadd as a host compiler sees it: nvcc's host stub, whose address
/// names the kernel to the runtime (cudaLaunchKernel,
/// cudaOccupancyMaxActiveBlocksPerMultiprocessor). Never call it directly.
///
/// Every thread with i < n writes c[i] = a[i] + b[i], and block b fills
/// records[b] (zeroed beforehand) as BlockRecord describes.
void traced_vadd(const float* a, const float* b, float* c, int n, BlockRecord* records);

/// traced_spin as a host compiler sees it: nvcc's host stub. Never call it
/// directly.
///
/// Every thread spins until `%globaltimer` has moved spin_ns past its
/// block's start_ns; block b fills records[b] (zeroed beforehand) as
/// BlockRecord describes.
void traced_spin(std::uint64_t spin_ns, BlockRecord* records);
#endif

/// Runs traced_vadd<<<blocks, threads_per_block>>> on n = blocks ×
/// threads_per_block elements and returns the records, records[b] for
/// block b. It checks every c[i] against a[i] + b[i] on the host.
///
/// @throws std::invalid_argument when blocks is 0 or above 2^31 - 1,
///         threads_per_block is 0 or above 1024, or n does not fit an int
/// @throws std::runtime_error when a CUDA call fails or c is wrong
std::vector<BlockRecord> trace_vadd(unsigned blocks, unsigned threads_per_block);

/// Runs traced_spin<<<blocks, threads_per_block>>>(spin_ns) and returns the
/// records, records[b] for block b.
///
/// @throws std::invalid_argument when blocks is 0 or above 2^31 - 1,
///         threads_per_block is 0 or above 1024, or spin_ns is above one second
/// @throws std::runtime_error when a CUDA call fails
std::vector<BlockRecord> trace_spin(unsigned blocks, unsigned threads_per_block, std::uint64_t spin_ns);

/// A trace as stored on disk: the records and the facts of the run beside
/// them (the GPU, the launch, the occupancy the runtime computed, the
/// command).
struct TraceFile {
  /// `# key: value` lines, in file order.
  std::vector<std::pair<std::string, std::string>> meta;
  /// One record per data line, in file order.
  std::vector<BlockRecord> records;

  /// The value of the first `# key: value` line with this key.
  std::optional<std::string> find(const std::string& key) const;
};

/// Writes a trace: its meta as `# key: value` lines, then the header line
/// `block,sm,start_ns,end_ns,warp_slots`, then one line per record, with
/// warp_slots in hexadecimal (`0x00000000000000ff`).
void write_trace_csv(std::ostream& out, const TraceFile& trace);

/// Reads what write_trace_csv wrote. Lines starting with `#` that hold no
/// `: ` are comments and are skipped.
/// @throws std::runtime_error naming the line when a line cannot be read
TraceFile read_trace_csv(std::istream& in);

}  // namespace launchlab::on_the_sm
