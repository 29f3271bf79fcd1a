// Writing values into a parameter buffer, reading them back, and the two
// arrays cuLaunchKernel takes: kernelParams and extra.
#include "param_buffer.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace launchlab::param_buffer {

std::vector<std::byte> pack(const Layout& layout, std::span<const std::span<const std::byte>> values) {
  // This starter ignores the layout: it writes the values one after the
  // other, the way a packer that knows nothing of alignment would.
  //
  // TODO(student): make a buffer of layout.size zero bytes and copy values[i]
  // to layout.slots[i].offset. Throw std::invalid_argument when there are
  // not as many values as slots, or a value's size is not its slot's size.
  (void)layout;
  std::vector<std::byte> buffer;
  for (const auto& value : values) buffer.insert(buffer.end(), value.begin(), value.end());
  return buffer;
}

std::span<const std::byte> unpack(const Layout& layout, std::span<const std::byte> buffer, std::size_t index) {
  // TODO(student): the slot's bytes of buffer; std::out_of_range when index
  // is not a slot of layout or the slot does not fit inside buffer.
  (void)layout;
  (void)buffer;
  (void)index;
  return {};
}

std::vector<void*> kernel_params(const Layout& layout, std::span<std::byte> buffer) {
  // TODO(student): one pointer per slot, to that slot's first byte in buffer
  // (std::out_of_range when a slot does not fit inside buffer).
  (void)layout;
  (void)buffer;
  return {};
}

void fill_extra(LaunchExtra& extra, std::span<std::byte> buffer) {
  // TODO(student): the five items of cuLaunchKernel's extra array for this
  // buffer, as cuda.h documents them (CU_LAUNCH_PARAM_BUFFER_POINTER, ...).
  (void)extra;
  (void)buffer;
}

}  // namespace launchlab::param_buffer
