// Part C: the QMD layouts of three GPU generations, read from a header's
// text, and a decoder and encoder over them.
//
// No range is written in this file: every one comes from the header through
// parse_mw_defines. The names to look for are in qmd.h, beside each member
// of Layout; the header says where each one is.
#include <string>
#include <vector>

#include "qmd.h"

namespace launchlab::qmd {

Layout layout_from_header(std::string_view header_text, QmdVersion version) {
  // TODO(student):
  //  - read the header's MW defines with parse_mw_defines;
  //  - keep those of this version: NV, four hex digits, _QMDV0<n>_00_, then
  //    the field's name (a header may hold several versions);
  //  - for each member of Layout, find the define whose field name is the
  //    one qmd.h gives, or that name followed by _SHIFTEDn (the shift is n);
  //    take an indexed define at index 0;
  //  - throw QmdError naming the field when the header has no such define.
  (void)header_text;
  Layout layout;
  layout.version = version;
  return layout;
}

Qmd decode(std::span<const std::uint32_t> words, const Layout& layout) {
  // TODO(student):
  //  - throw QmdError when words.size() is not qmd_words(layout.version);
  //  - read QMD_MAJOR_VERSION where the layout keeps it and throw QmdError,
  //    saying which number you found, when it is not this version's number;
  //  - read every covered field into a Qmd, in bytes: undo each SHIFTEDn
  //    (multiply by 2^n), and join LOWER (bits 31:0) and UPPER (bits 63:32)
  //    before you scale an address.
  (void)words;
  Qmd qmd;
  qmd.version = layout.version;
  return qmd;
}

void encode_into(const Qmd& qmd, const Layout& layout, std::span<std::uint32_t> words) {
  // TODO(student): the inverse of decode. Check the version and the size;
  // write QMD_MAJOR_VERSION and every covered field, and nothing else. Throw
  // QmdError, without changing words, for a value that does not fit its
  // field or is not a multiple of its field's scale (2^n for SHIFTEDn).
  (void)qmd;
  (void)layout;
  (void)words;
}

}  // namespace launchlab::qmd
