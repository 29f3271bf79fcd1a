// Part B: the QMD layouts of three GPU generations, and a decoder and encoder
// over them.
//
// Read the ranges from NVIDIA's class headers, not from anywhere else:
// NVIDIA/open-gpu-doc, classes/compute/clcbc0qmd.h holds
// NVCBC0_QMDV03_00_* (Ampere, Ada) and NVCBC0_QMDV04_00_* (Hopper);
// classes/compute/clcdc0qmd.h holds NVCDC0_QMDV05_00_* (Blackwell). An
// indexed field such as CONSTANT_BUFFER_VALID(i) is MW((640+(i)*1):(640+(i)*1))
// in V03_00: work out i = 0.
#include <string>
#include <vector>

#include "qmd.h"

namespace launchlab::qmd {
namespace {

/// Where one version keeps each covered field, and by how many bits a
/// SHIFTEDn field is scaled. A suggestion: change it as you like.
struct Layout {
  Field major_version;
  Field minor_version;
  std::array<Field, 3> grid;
  std::array<Field, 3> block;
  Field registers;
  Field shared_memory;
  unsigned shared_memory_shift;
  Field program_address_lower;
  Field program_address_upper;
  unsigned program_address_shift;
  Field cbank0_address_lower;
  Field cbank0_address_upper;
  unsigned cbank0_address_shift;
  Field cbank0_size;
  unsigned cbank0_size_shift;
  Field cbank0_valid;
  Field barrier_count;
  Field sass_version;
  Field release0_enable;
  Field release0_address_lower;
  Field release0_address_upper;
  Field release0_payload_lower;
  Field release0_payload_upper;
};

// TODO(student): fill in the three layouts from the headers. Two ranges of
// V03_00 to show the form; every {0, 0} below is still to be looked up.
constexpr Layout kV03 = {
    .major_version = {583, 580},  // NVCBC0_QMDV03_00_QMD_MAJOR_VERSION  MW(583:580)
    .minor_version = {0, 0},
    .grid = {{{415, 384}, {0, 0}, {0, 0}}},  // CTA_RASTER_WIDTH MW(415:384), then _HEIGHT, _DEPTH
    .block = {{{0, 0}, {0, 0}, {0, 0}}},
    .registers = {0, 0},
    .shared_memory = {0, 0},
    .shared_memory_shift = 0,
    .program_address_lower = {0, 0},
    .program_address_upper = {0, 0},
    .program_address_shift = 0,
    .cbank0_address_lower = {0, 0},
    .cbank0_address_upper = {0, 0},
    .cbank0_address_shift = 0,
    .cbank0_size = {0, 0},
    .cbank0_size_shift = 0,
    .cbank0_valid = {0, 0},
    .barrier_count = {0, 0},
    .sass_version = {0, 0},
    .release0_enable = {0, 0},
    .release0_address_lower = {0, 0},
    .release0_address_upper = {0, 0},
    .release0_payload_lower = {0, 0},
    .release0_payload_upper = {0, 0},
};
constexpr Layout kV04 = {};  // TODO(student): NVCBC0_QMDV04_00_*
constexpr Layout kV05 = {};  // TODO(student): NVCDC0_QMDV05_00_*

const Layout& layout_of(QmdVersion version) {
  switch (version) {
    case QmdVersion::V03_00: return kV03;
    case QmdVersion::V04_00: return kV04;
    case QmdVersion::V05_00: return kV05;
  }
  throw QmdError("unknown QMD version " + std::to_string(static_cast<unsigned>(version)));
}

}  // namespace

Qmd decode(std::span<const std::uint32_t> words, QmdVersion version) {
  const Layout& layout = layout_of(version);
  // TODO(student):
  //  - throw QmdError when words.size() is not qmd_words(version);
  //  - read QMD_MAJOR_VERSION where this version keeps it and throw QmdError,
  //    saying which number you found, when it is not this version's number;
  //  - read every covered field into a Qmd, in bytes: undo each SHIFTEDn
  //    (multiply by 2^n), and join LOWER (bits 31:0) and UPPER (bits 63:32)
  //    before you scale an address.
  (void)layout;
  (void)words;
  Qmd qmd;
  qmd.version = version;
  return qmd;
}

void encode_into(const Qmd& qmd, std::span<std::uint32_t> words) {
  const Layout& layout = layout_of(qmd.version);
  // TODO(student): the inverse of decode. Check the size; write
  // QMD_MAJOR_VERSION and every covered field, and nothing else. Throw
  // QmdError, without changing words, for a value that does not fit its
  // field or is not a multiple of its field's scale (2^n for SHIFTEDn).
  (void)layout;
  (void)words;
}

std::vector<std::uint32_t> encode(const Qmd& qmd) {
  std::vector<std::uint32_t> words(qmd_words(qmd.version), 0);
  encode_into(qmd, words);
  return words;
}

}  // namespace launchlab::qmd
