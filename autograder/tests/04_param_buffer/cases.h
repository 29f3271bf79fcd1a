// What the tests of 04_param_buffer share about the echo kernels of
// kernels/echo_kernels.cuh: each kernel's parameters as the host compiler
// describes them (sizeof, alignof), and on a GPU, launching a kernel and
// reading back what it echoed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "param_buffer.h"

namespace launchlab::param_buffer {

/// A slot as the tests record it, {"offset": 8, "size": 8}, so that a
/// difference names the field.
inline nlohmann::json record_value(const Slot& slot) { return {{"offset", slot.offset}, {"size", slot.size}}; }

}  // namespace launchlab::param_buffer

namespace launchlab::param_buffer_tests {

/// One echo kernel: its name (extern "C", so also its name in the cubin) and
/// its parameters as param_of<T> describes them.
struct EchoCase {
  std::string kernel;
  std::vector<param_buffer::Param> params;
  const void* host_function = nullptr;  ///< the host stub: names the kernel to the runtime
  std::string signature;                ///< "mixed(char c, double d, int* p, short s, float4 f)", for messages
};

/// Every echo kernel, in the order of kernels/echo_kernels.cuh.
const std::vector<EchoCase>& echo_cases();
/// The echo kernel of that name (throws std::invalid_argument for another).
const EchoCase& echo_case(const std::string& kernel);

/// Bytes as numbers, as the tests record them ([k] is byte k).
inline std::vector<int> as_ints(std::span<const std::byte> bytes) {
  std::vector<int> out;
  for (std::byte b : bytes) out.push_back(static_cast<int>(b));
  return out;
}

/// A call of lay_out on these parameters, for messages:
/// "lay_out({s: 32756 bytes, alignment 1}, {p: 8 bytes, alignment 8})".
inline std::string show(const std::vector<param_buffer::Param>& params) {
  std::string out;
  for (const param_buffer::Param& p : params) {
    if (!out.empty()) out += ", ";
    out += "{" + p.name + ": " + std::to_string(p.size) + (p.size == 1 ? " byte" : " bytes") + ", alignment " +
           std::to_string(p.alignment) + "}";
  }
  return "lay_out({" + out + "})";
}

/// What lay_out(c.params) gave, or no slots when it threw.
param_buffer::Layout layout_or_empty(const EchoCase& c);

/// Distinct, reproducible bytes for each parameter of a case (none is 0, so
/// that a parameter the kernel never saw shows).
std::vector<std::vector<std::byte>> sample_values(const EchoCase& c);

// ---- on a GPU (these call the CUDA runtime) ---------------------------------

/// Fills the echo buffers with a byte no sample value uses.
void clear_echo();
/// The first `count` bytes the last echo kernel wrote.
std::vector<std::byte> read_echo_bytes(std::size_t count);
/// The offsets the last echo kernel saw for its first `count` parameters.
std::vector<std::uint64_t> read_echo_offsets(std::size_t count);
/// The byte clear_echo() writes.
inline constexpr std::byte kNeverWritten{0x00};

}  // namespace launchlab::param_buffer_tests
