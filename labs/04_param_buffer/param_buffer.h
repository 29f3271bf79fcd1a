/// @file
/// A kernel's parameter buffer: where each parameter's bytes go (the layout),
/// writing values there (packing), reading them back, and the two ways
/// cuLaunchKernel takes parameters (`kernelParams` and `extra`).
///
/// Everything here is plain host code: no function in this header calls the
/// CUDA runtime or the driver, so all of it runs without a GPU. The tests
/// compare your layouts with the ones nvcc records in the cubin and, on a
/// GPU, with cuFuncGetParamInfo, and launch kernels with your buffers.
#pragma once

#include <cuda.h>

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace launchlab::param_buffer {

/// The most bytes a kernel's parameters may take: 32,764 since CUDA 12.1 on
/// Volta and later GPUs (4,096 before). nvcc refuses a kernel whose
/// parameters need more ("Formal parameter space overflowed (32765 bytes
/// required, max 32764 bytes allowed)").
inline constexpr std::size_t kMaxParamBytes = 32764;

/// One parameter of a kernel, as the host compiler sees its type.
struct Param {
  std::string name;           ///< for messages only: "d", "out", ...
  std::size_t size = 0;       ///< sizeof the type
  std::size_t alignment = 1;  ///< alignof the type: a power of two
};

/// The description of a parameter of type T: its sizeof and alignof.
/// `param_of<double>("d")` is {"d", 8, 8}, `param_of<float4>("f")` is
/// {"f", 16, 16}.
template <class T>
Param param_of(std::string name) {
  return Param{std::move(name), sizeof(T), alignof(T)};
}

/// Where one parameter's bytes sit in the buffer.
struct Slot {
  std::size_t offset = 0;  ///< the first byte, from the start of the buffer
  std::size_t size = 0;    ///< how many bytes, the parameter's size
};

/// Where every parameter of a kernel goes, and how long the buffer is.
struct Layout {
  std::vector<Slot> slots;  ///< one per parameter, in declaration order
  /// The buffer's length: the end of the last parameter (0 without
  /// parameters). No padding follows the last parameter.
  std::size_t size = 0;
};

/// The smallest multiple of alignment that is at least offset:
/// align_up(9, 8) is 16, align_up(16, 8) is 16, align_up(5, 1) is 5.
///
/// @param offset    any offset
/// @param alignment a power of two
/// @throws std::invalid_argument when alignment is 0 or not a power of two
std::size_t align_up(std::size_t offset, std::size_t alignment);

/// The layout of a kernel's parameter buffer, as nvcc and the driver lay it
/// out: parameter by parameter, each at the next offset that is a multiple of
/// its own alignment. For `k(char c, double d, int* p, short s, float4 f)`
/// the offsets are 0, 8, 16, 24, 32 and the size 48.
///
/// @param params the parameters, in declaration order
/// @throws std::invalid_argument when a parameter's size is 0 or its
///         alignment is not a power of two (the message names the parameter)
/// @throws std::length_error when the parameters need more than
///         kMaxParamBytes bytes, padding included (the message says how many)
Layout lay_out(std::span<const Param> params);

/// The parameter buffer: layout.size bytes, with values[i] copied to
/// layout.slots[i].offset and every byte that belongs to no parameter
/// (padding) set to zero.
///
/// @param layout a layout from lay_out
/// @param values each parameter's bytes, in order
/// @throws std::invalid_argument when the number of values differs from the
///         number of slots, or a value's size differs from its slot's (the
///         message names the index and both sizes)
std::vector<std::byte> pack(const Layout& layout, std::span<const std::span<const std::byte>> values);

/// The bytes a kernel with this layout reads as parameter index, out of
/// buffer: `layout.slots[index].size` bytes from `layout.slots[index].offset`.
/// The kernel does not know how the buffer was filled: read with the right
/// layout, a wrongly packed buffer gives exactly the wrong bytes it holds.
///
/// @throws std::out_of_range when index is not a parameter of layout, or the
///         slot does not lie inside buffer
std::span<const std::byte> unpack(const Layout& layout, std::span<const std::byte> buffer, std::size_t index);

/// The array cuLaunchKernel takes as `kernelParams` (and the runtime's
/// cudaLaunchKernel as `args`): one pointer per parameter, to the first byte
/// of that parameter's value. Here the values live in a packed buffer, so
/// pointer i is `buffer.data() + layout.slots[i].offset`.
///
/// @throws std::out_of_range when a slot does not lie inside buffer
std::vector<void*> kernel_params(const Layout& layout, std::span<std::byte> buffer);

/// cuLaunchKernel's `extra` array for a packed buffer, with the size it
/// points to. It holds the address of its own member `size`, so it is
/// neither copied nor moved: fill it where it will be used.
struct LaunchExtra {
  LaunchExtra() = default;
  LaunchExtra(const LaunchExtra&) = delete;
  LaunchExtra& operator=(const LaunchExtra&) = delete;

  std::size_t size = 0;              ///< the buffer's length, which items[3] points to
  std::array<void*, 5> items{};      ///< what cuLaunchKernel's `extra` receives: items.data()
};

/// Fills extra for a launch with buffer, as cuda.h documents it:
/// `{CU_LAUNCH_PARAM_BUFFER_POINTER, buffer.data(), CU_LAUNCH_PARAM_BUFFER_SIZE,
/// &extra.size, CU_LAUNCH_PARAM_END}`, with extra.size = buffer.size().
void fill_extra(LaunchExtra& extra, std::span<std::byte> buffer);

}  // namespace launchlab::param_buffer
