// Part D: reading PTX.
//
//   mkdir -p k && nvcc --keep --keep-dir k -arch=sm_90 -c vadd.cu -o vadd.o
//   cat k/vadd.ptx
#include "pipeline.h"

#include <stdexcept>
#include <string>

namespace launchlab::pipeline {

std::optional<std::size_t> ptx_type_size(std::string_view type) {
  // TODO(student): the size in bytes of each fundamental type listed in
  // pipeline.h (".u8" is 1, ".f64" is 8, ".b128" is 16); nothing for any
  // other name, ".pred" included.
  (void)type;
  return std::nullopt;
}

PtxModule read_ptx(std::string_view text) {
  PtxModule module;
  // TODO(student): read `.version`, `.target` and `.address_size`.
  //
  // TODO(student): find every `.entry` (after `.visible` or not; `.func` is
  // a device function, not an entry). Comments come first: drop `// ...`
  // and `/* ... */` so that a brace or a .param inside one does not count.
  // Then for each entry:
  //  - its parameters are the comma-separated `.param` declarations between
  //    its parentheses: `.param [.align N] .type name[N]`; the size is the
  //    type's size (ptx_type_size) times N, the alignment is N of .align or
  //    else the type's size;
  //  - directives such as `.maxntid 128, 1, 1` may follow before the body;
  //  - the body runs from '{' to the matching '}' (blocks nest): collect its
  //    `.reg .type %name<N>;` declarations (N registers) and `.reg .type name;`
  //    (one register).
  // An unknown parameter type, a list or body that never closes, or a .reg
  // without ';' throws std::runtime_error("line N: ..."), N being the line
  // pipeline.h names for each (for a body that never closes, its '{').
  (void)text;
  return module;
}

}  // namespace launchlab::pipeline
