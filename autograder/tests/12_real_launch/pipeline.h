// What the tests of 12_real_launch share: the committed captures and cubins
// (captures/README.md), the learner's pipeline run over a capture (or over
// two live snapshots), and the CUDA side's truth about each launch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "real_launch.h"

namespace launchlab::real_launch_tests {

using real_launch::Capture;
using real_launch::Dim3;
using real_launch::LaunchRecord;

/// Where parameters start in constant bank 0 on sm_90 (FACTS.md: SASS and
/// EIATTR_PARAM_CBANK of nvcc 13.0's cubins), the tests' own value.
inline constexpr std::size_t kSm90ParamBase = 0x210;

/// The committed capture files, by name without ".capture", sorted.
std::vector<std::string> capture_names();
/// A committed capture, read with the given reader (cached).
const Capture& capture(const std::string& name);
/// A committed cubin (captures/<file>), as bytes and as lab 03 reads it (cached).
const std::vector<std::byte>& cubin_bytes(const std::string& file);
const containers::ElfFile& cubin(const std::string& file);

/// One launch as the learner's pipeline decoded it from a method stream.
struct DecodedLaunch {
  std::size_t stream = 0;               ///< which method stream (index in address order)
  real_launch::QmdLaunch qmd;           ///< the kernel's QMD
  std::vector<std::byte> bank;          ///< constant bank 0 as uploaded
};

/// Everything the learner's pipeline found in two snapshots.
struct Decoded {
  std::vector<real_launch::Change> changes;
  std::vector<real_launch::MethodStream> streams;
  std::vector<std::vector<real_launch::InlineUpload>> uploads;  ///< per stream
  std::vector<std::vector<real_launch::QmdLaunch>> qmds;        ///< per stream, every QMD
  std::vector<DecodedLaunch> launches;                          ///< the QMDs that launch threads, stream by stream
  std::string error;                                            ///< what threw, if anything did (then the rest is partial)
};

/// Runs the learner's changed_ranges, method_streams, inline_uploads,
/// qmd_launches and constant_bank over two snapshots.
Decoded decode(const real_launch::Snapshot& before, const real_launch::Snapshot& after, qmd::QmdVersion version);
/// The same over a capture (cached by name).
const Decoded& decoded(const std::string& name);

/// A launch in the terms both sides can state: gridDim, blockDim and the
/// parameter bytes, "grid (1021, 5, 7) block (96, 2, 1) params 000080...".
/// From a recorded launch: what the CUDA side passed (its packed buffer).
std::string signature(const Capture& capture, const LaunchRecord& launch);
/// The same from the launch and the buffer the CUDA side packed for it.
std::string signature(const LaunchRecord& launch, std::span<const std::byte> packed);
/// From a decoded one: the bank's header, and the uploaded bytes from
/// kSm90ParamBase to the end of the bank as uploaded.
std::string signature(const DecodedLaunch& launch);
/// Both, sorted: the launches of a capture as the CUDA side made them and as
/// the learner's pipeline found them, in an order that does not depend on
/// which stream's pushbuffer lies first in memory.
std::vector<std::string> recorded_signatures(const Capture& capture);
std::vector<std::string> decoded_signatures(const Decoded& decoded);

/// The recorded launch's argument bytes packed at the offsets the driver
/// reported (cuFuncGetParamInfo, in the capture): the CUDA side's buffer.
std::vector<std::byte> packed_params(const Capture& capture, const LaunchRecord& launch);

/// Hexadecimal text of bytes.
std::string hex(std::span<const std::byte> bytes);
/// "(x, y, z)".
std::string show(const Dim3& d);

}  // namespace launchlab::real_launch_tests
