// Where each parameter's bytes go in a kernel's parameter buffer.
//
// See it for yourself: `nvcc --keep --keep-dir k -arch=sm_90 -c k.cu` and read
// the offsets in k/k.cudafe1.stub.c (__cudaSetupArgSimple(__par1, 8UL)).
#include "param_buffer.h"

#include <stdexcept>
#include <string>

namespace launchlab::param_buffer {

std::size_t align_up(std::size_t offset, std::size_t alignment) {
  // TODO(student): round offset up to the next multiple of alignment, and
  // throw std::invalid_argument when alignment is 0 or not a power of two.
  (void)alignment;
  return offset;
}

Layout lay_out(std::span<const Param> params) {
  // This starter puts each parameter right after the previous one, as if
  // alignment did not exist. It is right for a kernel whose parameters all
  // have one size, and wrong for k(char c, double d, ...).
  //
  // TODO(student): place each parameter at the next offset that is a multiple
  // of its own alignment (align_up). Reject a parameter whose size is 0 or
  // whose alignment is not a power of two (std::invalid_argument naming it),
  // and a layout that ends past kMaxParamBytes (std::length_error saying how
  // many bytes it needs).
  Layout layout;
  std::size_t end = 0;
  for (const Param& p : params) {
    layout.slots.push_back(Slot{end, p.size});
    end += p.size;
  }
  layout.size = end;
  return layout;
}

}  // namespace launchlab::param_buffer
