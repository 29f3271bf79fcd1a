// What `launchlab trace` says about a launch: the launch as the CUDA side
// made it, and what the driver's memory says libcuda wrote for it, decoded
// with lab 12's code (which uses labs 06 and 07), as JSON and as text.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "real_launch.h"

namespace launchlab::trace {

/// A launch call as the tracer saw it at the API.
struct Call {
  std::string api;                      ///< "cuLaunchKernel", "cuLaunchKernelEx", ...
  std::string kernel;                   ///< the kernel's symbol, as the driver names it
  real_launch::Dim3 grid{1, 1, 1};
  real_launch::Dim3 block{1, 1, 1};
  real_launch::Dim3 cluster{0, 0, 0};   ///< a cluster given at launch, 0 when none
  std::uint32_t shared_bytes = 0;       ///< dynamic shared memory
  std::uint64_t stream = 0;             ///< the stream handle's value (0: the NULL stream)
  std::optional<std::vector<std::byte>> params;  ///< the parameter buffer, when it could be read
};

/// The GPU architecture whose launches this tool decodes (sm_90: QMD V04_00,
/// parameters at c[0x0][0x210]); the only one it has been checked on.
inline constexpr int kDecodedArch = 90;
/// Where sm_90 puts the parameters in constant bank 0.
inline constexpr std::size_t kParamBase = 0x210;

/// The driver's mappings of the GPU device file that may be read to follow a
/// launch into its channel: readable and shared mappings of /dev/nvidia0. On
/// an H200 with driver 580 there is one, of 2 MiB, holding each channel's
/// GPFIFO ring and USERD in memory the driver placed in RAM (chapter 12). The
/// doorbell's mappings of the same file are write-only and never kept.
std::vector<real_launch::Mapping> channel_mappings(std::span<const real_launch::Mapping> maps);

/// Reads the given channel mappings through /proc/self/mem opened read-only,
/// one Region per mapping. Any mapping that channel_mappings would not keep
/// throws before anything is read, as take_snapshot does.
real_launch::Snapshot read_channel_memory(std::span<const real_launch::Mapping> mappings);

/// One pushbuffer segment handed to the GPU between two snapshots: the
/// GPFIFO entry the driver wrote, the channel's GP_PUT and GP_GET in USERD
/// (Nvc56fControl, clc56f.h) before and after, and the semaphore the segment
/// releases at its end.
struct Submission {
  std::uint64_t entry_address = 0;   ///< where the 8-byte entry lies
  std::uint64_t ring = 0;            ///< where the ring's entry 0 lies
  std::uint32_t index = 0;           ///< the entry's index in its ring
  std::uint32_t entry0 = 0, entry1 = 0;
  channels::GpEntry entry;           ///< lab 06's decode of entry0 and entry1
  std::uint64_t userd = 0;           ///< the channel's USERD
  std::uint32_t gp_put_before = 0, gp_put_after = 0;
  std::optional<std::uint32_t> gp_get_before, gp_get_after;  ///< when USERD's GP_GET was read
  /// The segment, when the snapshot holds all its words, and lab 06's parse
  /// of it (empty with parse_error set when it does not parse whole).
  std::vector<std::uint32_t> segment;
  std::vector<channels::MethodGroup> groups;
  std::string parse_error;
};

/// Every GPFIFO entry written between two snapshots of the channel's memory,
/// in ring order per channel. A channel is found by its GP_PUT: a word at
/// byte kUserdGpPut of a kUserdSize-aligned block of a channel mapping whose
/// value grew by N (1 to 1024). Its new entries are N changed 8-byte slots
/// below that USERD, outside every USERD found, whose indices, counted from
/// one ring start, run from the old GP_PUT to the new one less 1; the slots
/// nearest below the USERD are tried first (the rings measured on an H200 lie
/// 0x2000 below their USERD). Segments are read from @p after.
std::vector<Submission> gpfifo_submissions(const real_launch::Snapshot& before, const real_launch::Snapshot& after,
                                           std::span<const real_launch::Mapping> channel);

/// The JSON objects of the calls made between two snapshots, one per call,
/// in order: `recorded` (grid, block, shared_bytes, cluster, stream, and the
/// parameters' length and bytes where known), `status` ("decoded" or
/// "not decoded: why"), and when decoded `qmd` (address, version, type,
/// grid, block, registers, shared_memory, program_address, constant_bank,
/// barrier_count, sass_version), `constant_bank` (block_dim, grid_dim,
/// parameters), `agrees` (each recorded field the decoded launch has, and
/// whether it is the same), `methods` (the method stream's groups) and
/// `uploads`. With @p raw, `raw` holds every changed range's words before
/// and after. When @p channel names the channel's mappings and @p after holds
/// some of their memory, `submission` holds the GPFIFO entry whose segment
/// carries the launch's QMD (gpfifo_submissions), USERD's GP_PUT and GP_GET,
/// and the semaphore the segment releases; `agrees` then also says whether
/// the entry was found, starts a method group of the decoded stream, ends one
/// after LENGTH words, and holds the SEND_PCAS_A of the launch's QMD.
nlohmann::json decode_calls(const std::vector<Call>& calls, const real_launch::Snapshot& before,
                            const real_launch::Snapshot& after, int arch, bool raw,
                            std::span<const real_launch::Mapping> channel = {});

/// One call's JSON object as text, for people.
std::string to_text(const nlohmann::json& launch);

/// Whether a decoded call agrees with its launch in every field compared.
bool agrees(const nlohmann::json& launch);

/// The calls of a capture, with its snapshots decoded.
nlohmann::json replay(const real_launch::Capture& capture, bool raw);

}  // namespace launchlab::trace
