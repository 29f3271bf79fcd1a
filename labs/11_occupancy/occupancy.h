/// @file
/// An occupancy calculator: how many blocks of a kernel fit on one SM at a
/// time, and which resource stops more from fitting. The limits of each
/// architecture come from NVIDIA's documentation (the CUDA C++ Programming
/// Guide's table of compute capabilities) and from NVIDIA's own calculator,
/// the header cuda_occupancy.h that ships with the CUDA toolkit.
#pragma once

#include <cstddef>
#include <vector>

namespace launchlab::occupancy {

/// What one SM of an architecture can hold, and how it hands out registers
/// and shared memory.
struct ArchLimits {
  int sm = 0;                          ///< the architecture as 10 * major + minor of its compute capability: 90 for 9.0
  int warp_size = 0;                   ///< threads per warp (32)
  int max_threads_per_block = 0;       ///< the largest block (1024)
  int max_threads_per_sm = 0;          ///< resident threads per SM
  int max_warps_per_sm = 0;            ///< resident warps per SM: max_threads_per_sm / warp_size
  int max_blocks_per_sm = 0;           ///< resident blocks per SM, however small they are
  int registers_per_sm = 0;            ///< 32-bit registers in one SM's register file
  int max_registers_per_block = 0;     ///< 32-bit registers one block may hold
  int max_registers_per_thread = 0;    ///< the most a kernel can use (255)
  int register_allocation_unit = 0;    ///< a warp's registers are allocated in multiples of this many (registers per thread times warp_size, rounded up)
  int register_file_partitions = 0;    ///< the register file is split evenly among the SM's warp schedulers, and a warp takes all its registers from one part (4)
  int max_shared_per_sm = 0;           ///< bytes: the largest shared memory capacity one SM can be configured with
  int max_shared_per_block = 0;        ///< bytes one block may use without opting in (48 KiB)
  int max_shared_per_block_optin = 0;  ///< bytes one block may use after cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize, ...)
  int reserved_shared_per_block = 0;   ///< bytes of shared memory the driver reserves in every block for its own use
  int shared_allocation_unit = 0;      ///< a block's shared memory is allocated in multiples of this many bytes
  std::vector<int> shared_capacities_kib;  ///< the shared memory capacities (KiB) an SM can be set to, ascending, from 0 to max_shared_per_sm / 1024: the carveout options
};

/// The documented limits of one architecture.
/// @param sm 80, 86, 89, 90, 100 or 120 (compute capability 8.0, 8.6, 8.9, 9.0, 10.0, 12.0)
/// @throws std::invalid_argument for any other value
ArchLimits arch_limits(int sm);

/// What a compiled kernel needs, as cudaFuncGetAttributes reports it.
struct KernelResources {
  int registers_per_thread = 0;                   ///< cudaFuncAttributes::numRegs
  std::size_t static_shared_bytes = 0;            ///< cudaFuncAttributes::sharedSizeBytes (`__shared__` arrays)
  std::size_t max_dynamic_shared_bytes = 49152;   ///< cudaFuncAttributes::maxDynamicSharedSizeBytes: 48 KiB minus the static bytes unless raised with cudaFuncSetAttribute
};

/// How the kernel is launched.
struct LaunchShape {
  int block_size = 0;                    ///< threads per block (at least 1)
  std::size_t dynamic_shared_bytes = 0;  ///< the third launch parameter, <<<grid, block, bytes>>>
  int carveout_percent = -1;             ///< the kernel's cudaFuncAttributePreferredSharedMemoryCarveout: -1 for no preference, else 0 to 100
};

/// A resource that can stop another block from fitting on the SM. The values
/// are bits, and match the first four of cuda_occupancy.h's cudaOccLimitingFactor.
enum class Limiter : unsigned {
  warps = 0x1,          ///< resident warps (threads) per SM, or a block larger than the architecture allows
  registers = 0x2,      ///< the register file
  shared_memory = 0x4,  ///< shared memory
  blocks = 0x8,         ///< resident blocks per SM
};

/// Whether @p limiters (a bitwise or of Limiter values) holds @p limiter.
inline bool has_limiter(unsigned limiters, Limiter limiter) {
  return (limiters & static_cast<unsigned>(limiter)) != 0;
}

/// What compute_occupancy() found. Block counts are per SM.
struct Occupancy {
  int active_blocks = 0;          ///< blocks resident at once: the smallest of the four limits below
  int active_warps = 0;           ///< active_blocks times the warps of one block
  double occupancy = 0;           ///< active_warps / max_warps_per_sm
  unsigned limiters = 0;          ///< every Limiter whose limit equals active_blocks, or'ed together
  int blocks_by_warps = 0;        ///< the limit from resident warps
  int blocks_by_registers = 0;    ///< the limit from the register file; INT_MAX when the kernel uses no registers
  int blocks_by_shared = 0;       ///< the limit from shared memory; INT_MAX when a block allocates none
  int blocks_by_block_limit = 0;  ///< max_blocks_per_sm
  int registers_per_warp = 0;     ///< registers allocated to one warp
  std::size_t shared_per_block = 0;  ///< bytes of shared memory allocated to one block
  /// bytes: the shared memory capacity the SM is set to for this launch; 0
  /// when no capacity the SM can be set to holds one block
  std::size_t shared_capacity = 0;
};

/// Blocks of a kernel resident on one SM at a time, the way NVIDIA's
/// calculator (cuda_occupancy.h, cudaOccMaxActiveBlocksPerMultiprocessor)
/// and the runtime (cudaOccupancyMaxActiveBlocksPerMultiprocessor) count
/// them. These are the rules; working out the arithmetic is the lab.
///
/// A block is resident whole or not at all, and keeps everything it was
/// given until it ends. Each of four resources allows some number of blocks
/// at once: the most whose allocations all fit in what the SM has of it
/// (the blocks_by_* fields). The SM holds the smallest of the four
/// (active_blocks), and every resource whose number equals it is a limiter.
/// A launch that could not start at all allows 0 blocks by the resource
/// that forbids it.
///
/// - **Warps** (OCC_LIMIT_WARPS). The SM has max_warps_per_sm warp slots
///   (cudaOccDeviceProp::maxThreadsPerMultiprocessor / warpSize), and a
///   block takes one slot for each warp_size threads it has or starts: a
///   partial warp takes a whole slot. A block of more than
///   max_threads_per_block threads cannot start.
/// - **Registers** (OCC_LIMIT_REGISTERS). Registers are allocated per warp:
///   registers_per_thread for each of its warp_size threads, rounded up to a
///   whole number of register_allocation_unit (cudaOccRegAllocationGranularity);
///   that is registers_per_warp. The registers_per_sm registers
///   (regsPerMultiprocessor) are split into register_file_partitions equal
///   parts (cudaOccSubPartitionsPerMultiprocessor), and each warp takes all
///   of its registers from one part. A kernel of more than
///   max_registers_per_thread registers (cudaOccRegAllocationMaxPerThread),
///   or a block whose warps' registers together exceed
///   max_registers_per_block (regsPerBlock), cannot start. A kernel of no
///   registers is not limited by them: INT_MAX.
/// - **Shared memory** (OCC_LIMIT_SHARED_MEMORY). A block is allocated its
///   static bytes, its dynamic bytes and the reserved_shared_per_block bytes
///   the driver keeps in every block (reservedSharedMemPerBlock), rounded up
///   to a whole number of shared_allocation_unit
///   (cudaOccSMemAllocationGranularity); that is shared_per_block. The SM's
///   blocks share one capacity, shared_capacity, which is one of
///   shared_capacities_kib: with no carveout preference (-1), the largest,
///   max_shared_per_sm; with a preference of p percent, the smallest
///   capacity of at least p * max_shared_per_sm / 100 bytes (integer
///   division; cudaOccSMemPreferenceVoltaPlus); and, when that capacity
///   cannot hold one block, the smallest capacity that can
///   (cudaOccMaxBlocksPerSMSmemLimit). When no capacity can hold one block,
///   shared_capacity is 0. A launch whose dynamic bytes
///   are above the kernel's max_dynamic_shared_bytes, or whose static and
///   dynamic bytes together are above max_shared_per_block_optin
///   (sharedMemPerBlockOptin), cannot start; shared_capacity is then still
///   the capacity these rules choose. A block of no shared memory at all is
///   not limited by it: INT_MAX.
/// - **Blocks** (OCC_LIMIT_BLOCKS). At most max_blocks_per_sm
///   (cudaOccMaxBlocksPerMultiprocessor), however small they are.
///
/// active_warps and occupancy count the warp slots the active blocks take.
/// cuda_occupancy.h knows two more limits, block barriers
/// (cudaOccMaxBlocksPerSMBlockBarrierLimit) and, on compute capability 10
/// to 12, virtual resources (cudaOccMaxVirtualResourceCountPerSM); for the
/// kernels of this lab they limit nothing, and the calculator leaves them
/// out.
///
/// @throws std::invalid_argument when block_size is below 1 or carveout_percent
///         is outside -1 to 100
Occupancy compute_occupancy(const ArchLimits& arch, const KernelResources& kernel, const LaunchShape& launch);

}  // namespace launchlab::occupancy
