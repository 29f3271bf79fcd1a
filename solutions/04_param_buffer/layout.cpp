// Where each parameter's bytes go in a kernel's parameter buffer.
//
// See it for yourself: `nvcc --keep --keep-dir k -arch=sm_90 -c k.cu` and read
// the offsets in k/k.cudafe1.stub.c (__cudaSetupArgSimple(__par1, 8UL)).
#include "param_buffer.h"

#include <limits>
#include <stdexcept>
#include <string>

namespace launchlab::param_buffer {

namespace {

bool is_power_of_two(std::size_t n) { return n != 0 && (n & (n - 1)) == 0; }

}  // namespace

std::size_t align_up(std::size_t offset, std::size_t alignment) {
  if (!is_power_of_two(alignment)) {
    throw std::invalid_argument("align_up: alignment " + std::to_string(alignment) + " is not a power of two");
  }
  const std::size_t mask = alignment - 1;
  if (offset > std::numeric_limits<std::size_t>::max() - mask) {
    throw std::length_error("align_up: " + std::to_string(offset) + " cannot be rounded up to a multiple of " +
                            std::to_string(alignment));
  }
  return (offset + mask) & ~mask;
}

Layout lay_out(std::span<const Param> params) {
  Layout layout;
  layout.slots.reserve(params.size());
  std::size_t end = 0;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const Param& p = params[i];
    const std::string which = "parameter " + std::to_string(i) + " (" + p.name + ")";
    if (p.size == 0) throw std::invalid_argument(which + " has size 0");
    if (!is_power_of_two(p.alignment)) {
      throw std::invalid_argument(which + " has alignment " + std::to_string(p.alignment) +
                                  ", which is not a power of two");
    }
    // Sizes are checked against the limit as they grow, so nothing overflows.
    if (p.size > kMaxParamBytes) {
      throw std::length_error(which + " alone takes " + std::to_string(p.size) + " bytes; at most " +
                              std::to_string(kMaxParamBytes) + " fit");
    }
    const std::size_t offset = align_up(end, p.alignment);
    if (offset + p.size > kMaxParamBytes) {
      throw std::length_error("the parameters need " + std::to_string(offset + p.size) + " bytes up to the end of " +
                              which + "; at most " + std::to_string(kMaxParamBytes) + " fit");
    }
    layout.slots.push_back(Slot{offset, p.size});
    end = offset + p.size;
  }
  layout.size = end;
  return layout;
}

}  // namespace launchlab::param_buffer
