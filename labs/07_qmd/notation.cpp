// Part B: reading the MW(...) defines of a class header's text.
//
// Open a header first (labs/07_qmd/headers/qmd_v04_00.h, or NVIDIA's
// classes/compute/clcbc0qmd.h) and sort its lines into the kinds
// parse_mw_defines must tell apart: a plain define of a range, an indexed
// define whose bounds are formulas in its parameter, a define of a value,
// and everything else. Then write the reader for the rules in qmd.h.
#include "qmd.h"

namespace launchlab::qmd {

std::vector<MwDefine> parse_mw_defines(std::string_view header_text) {
  // TODO(student): go through the text a line at a time (count the lines
  // from 1 for the error messages; drop a '\r' before the '\n'). Keep the
  // lines that are `#define NAME MW(...)` or `#define NAME(i,j) MW(...)`;
  // read each bound as a number, or as the formula (base+(i)*step+(j)*step)
  // of an indexed define, with one step per parameter. Skip every other
  // line, and throw QmdError naming "line N" for a define whose MW(...)
  // breaks the rules.
  (void)header_text;
  return {};
}

}  // namespace launchlab::qmd
