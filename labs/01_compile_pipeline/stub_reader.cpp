// Part C: reading the host stub (x.cudafe1.stub.c).
//
//   mkdir -p k && nvcc --keep --keep-dir k -arch=sm_90 -c vadd.cu -o vadd.o
//   cat k/vadd.cudafe1.stub.c
#include "pipeline.h"

#include <stdexcept>
#include <string>

namespace launchlab::pipeline {

StubFile read_stub(std::string_view text) {
  StubFile stub;
  // TODO(student): find the line `#include "<something>.fatbin.c"` and store
  // the quoted name in stub.fatbin_include.
  //
  // TODO(student): find every identifier that starts with "__device_stub_"
  // (as a whole word: "__wrapper__device_stub_scale" is not one). Match its
  // parentheses; when the next thing after them is '{', it is a definition:
  // match the braces too, and in that body read each
  // __cudaSetupArgSimple(var, 24UL) and __cudaSetupArg(var, 32UL) call, in
  // order, into a StubArgument. Declarations and calls end in ';' instead.
  // Lines starting with '#' (`# 1 "vadd.cu"`) are line markers.
  //
  // TODO(student): read every __cudaRegisterEntry(handle, host function,
  // symbol, max threads) call into stub.entries. Split its arguments at the
  // commas that are not inside parentheses.
  //
  // Malformed text (a parenthesis or brace that never closes, an offset that
  // is not a number) throws std::runtime_error("line N: ..."), N being the
  // line of the unclosed '(' or '{', or of the call.
  (void)text;
  return stub;
}

}  // namespace launchlab::pipeline
