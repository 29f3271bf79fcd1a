// Writing values into a parameter buffer, reading them back, and the two
// arrays cuLaunchKernel takes: kernelParams and extra.
#include "param_buffer.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace launchlab::param_buffer {

namespace {

void check_slot_inside(const Slot& slot, std::size_t index, std::size_t buffer_size) {
  if (slot.offset > buffer_size || slot.size > buffer_size - slot.offset) {
    throw std::out_of_range("slot " + std::to_string(index) + " (bytes " + std::to_string(slot.offset) + " to " +
                            std::to_string(slot.offset + slot.size) + ") does not fit in a buffer of " +
                            std::to_string(buffer_size) + " bytes");
  }
}

}  // namespace

std::vector<std::byte> pack(const Layout& layout, std::span<const std::span<const std::byte>> values) {
  if (values.size() != layout.slots.size()) {
    throw std::invalid_argument("pack: the layout has " + std::to_string(layout.slots.size()) + " parameters, " +
                                std::to_string(values.size()) + " values were given");
  }
  std::vector<std::byte> buffer(layout.size, std::byte{0});
  for (std::size_t i = 0; i < values.size(); ++i) {
    const Slot& slot = layout.slots[i];
    if (values[i].size() != slot.size) {
      throw std::invalid_argument("pack: value " + std::to_string(i) + " has " + std::to_string(values[i].size()) +
                                  " bytes, its parameter " + std::to_string(slot.size));
    }
    check_slot_inside(slot, i, buffer.size());
    if (slot.size != 0) std::memcpy(buffer.data() + slot.offset, values[i].data(), slot.size);
  }
  return buffer;
}

std::span<const std::byte> unpack(const Layout& layout, std::span<const std::byte> buffer, std::size_t index) {
  if (index >= layout.slots.size()) {
    throw std::out_of_range("unpack: parameter " + std::to_string(index) + " of a layout with " +
                            std::to_string(layout.slots.size()));
  }
  const Slot& slot = layout.slots[index];
  check_slot_inside(slot, index, buffer.size());
  return buffer.subspan(slot.offset, slot.size);
}

std::vector<void*> kernel_params(const Layout& layout, std::span<std::byte> buffer) {
  std::vector<void*> pointers;
  pointers.reserve(layout.slots.size());
  for (std::size_t i = 0; i < layout.slots.size(); ++i) {
    check_slot_inside(layout.slots[i], i, buffer.size());
    pointers.push_back(buffer.data() + layout.slots[i].offset);
  }
  return pointers;
}

void fill_extra(LaunchExtra& extra, std::span<std::byte> buffer) {
  extra.size = buffer.size();
  extra.items = {CU_LAUNCH_PARAM_BUFFER_POINTER, buffer.data(), CU_LAUNCH_PARAM_BUFFER_SIZE, &extra.size,
                 CU_LAUNCH_PARAM_END};
}

}  // namespace launchlab::param_buffer
