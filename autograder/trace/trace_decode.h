// What `launchlab trace` says about a launch: the launch as the CUDA side
// made it, and what the driver's memory says libcuda wrote for it, decoded
// with lab 12's code (which uses labs 06 and 07), as JSON and as text.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
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

/// The JSON objects of the calls made between two snapshots, one per call,
/// in order: `recorded` (grid, block, shared_bytes, cluster, stream, and the
/// parameters' length and bytes where known), `status` ("decoded" or
/// "not decoded: why"), and when decoded `qmd` (address, version, type,
/// grid, block, registers, shared_memory, program_address, constant_bank,
/// barrier_count, sass_version), `constant_bank` (block_dim, grid_dim,
/// parameters), `agrees` (each recorded field the decoded launch has, and
/// whether it is the same), `methods` (the method stream's groups) and
/// `uploads`. With @p raw, `raw` holds every changed range's words before
/// and after.
nlohmann::json decode_calls(const std::vector<Call>& calls, const real_launch::Snapshot& before,
                            const real_launch::Snapshot& after, int arch, bool raw);

/// One call's JSON object as text, for people.
std::string to_text(const nlohmann::json& launch);

/// Whether a decoded call agrees with its launch in every field compared.
bool agrees(const nlohmann::json& launch);

/// The calls of a capture, with its snapshots decoded.
nlohmann::json replay(const real_launch::Capture& capture, bool raw);

}  // namespace launchlab::trace
