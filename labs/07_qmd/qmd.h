/// @file
/// The QMD ("Queue Meta Data"): the descriptor of one compute grid that the
/// GPU reads to launch a kernel. It holds what `vadd<<<4096, 256>>>(...)`
/// says (the grid, the block) and what the driver knows about the kernel (its
/// code's address, its registers, its constant bank with the parameters).
///
/// NVIDIA publishes the layout in its class headers as `MW(hi:lo)` bit
/// ranges, one `#define` per field: in NVIDIA/open-gpu-doc,
/// `classes/compute/clc6c0qmd.h` defines version 03_00 (Ampere and Ada),
/// `clcbc0qmd.h` versions 03_00 and 04_00 (Hopper), `clcdc0qmd.h` versions
/// 04_01, 05_00 (Blackwell) and 05_01. This lab reads those defines from a
/// header's text and reads and writes the fields a launch needs with them,
/// for the three versions. The course's own headers (`headers/qmd_v03_00.h`,
/// `qmd_v04_00.h`, `qmd_v05_00.h`, generated from `headers/fields.csv`) are
/// written in the same notation; with `LAUNCHLAB_OPEN_GPU_DOC` naming an
/// open-gpu-doc checkout, the same code reads NVIDIA's.
///
/// A QMD is handled here as what it is in memory: 32-bit little-endian words.
/// Nothing in this lab crashes on bad input: every function that can be
/// given something impossible throws QmdError, with a message that says what.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace launchlab::qmd {

/// What every function of this lab throws for an impossible request: a field
/// out of range, a value that does not fit, a QMD of the wrong size or version.
class QmdError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ---------------------------------------------------------------------------
// Part A: MW(hi:lo), the bit ranges of NVIDIA's class headers
// ---------------------------------------------------------------------------

/// A bit range as NVIDIA's class headers write it, `MW(hi:lo)`: bits lo to hi,
/// both included, of the QMD seen as one long string of bits. Bit n is bit
/// (n % 32) of 32-bit word (n / 32), so `MW(415:384)` is all of word 12 and
/// `MW(583:580)` is bits 4 to 7 of word 18.
struct Field {
  unsigned hi = 0;  ///< the highest bit of the range, included
  unsigned lo = 0;  ///< the lowest bit of the range; it becomes bit 0 of the value

  /// The number of bits, hi - lo + 1 (meaningful only when hi >= lo).
  constexpr unsigned width() const { return hi - lo + 1; }

  bool operator==(const Field&) const = default;
};

/// Reads `MW(hi:lo)` from a word array.
///
/// The range may cross from one word into the next (the headers' ranges do
/// not, but a reader must not assume it).
///
/// @param words the QMD (or any array) as 32-bit words, word 0 first
/// @param field the range to read
/// @return the bits of the range, with bit lo as bit 0 of the result
/// @throws QmdError when hi < lo, when the range is wider than 64 bits, or
///         when hi is past the last bit of @p words (32 * words.size() - 1)
std::uint64_t read_field(std::span<const std::uint32_t> words, Field field);

/// Writes @p value into `MW(hi:lo)`, leaving every bit outside the range as
/// it was.
///
/// @param words the array to modify
/// @param field the range to write
/// @param value the new contents of the range, as read_field would return it
/// @throws QmdError on the conditions of read_field, and when @p value does
///         not fit in the range's width; @p words is unchanged then
void write_field(std::span<std::uint32_t> words, Field field, std::uint64_t value);

// ---------------------------------------------------------------------------
// Part B: the notation of the class headers
// ---------------------------------------------------------------------------

/// One `#define` of a class header whose value is an `MW(...)` range.
///
/// A plain define names one range, `#define NVCBC0_QMDV04_00_GRID_WIDTH MW(1055:1024)`.
/// An indexed define has parameters and bounds that are formulas in them,
/// `#define NVCBC0_QMDV04_00_CONSTANT_BUFFER_VALID(i) MW((416+(i)*4):(416+(i)*4))`
/// or, with two, `#define NVCDC0_QMDV05_01_SUB_TASK_CONSTANT_BANK_VALID(i,j)
/// MW((886+(i)*416+(j)*202):(886+(i)*416+(j)*202))`: each bound is its base
/// plus, for each parameter, a step times that parameter's index.
struct MwDefine {
  std::string name;                     ///< the macro's name, without its parameter list: "NVCBC0_QMDV04_00_CONSTANT_BUFFER_VALID"
  std::vector<std::string> parameters;  ///< the parameters' names in the order of the list, {"i"}; empty for a plain define
  unsigned hi_base = 0;                 ///< hi with every index 0 (a plain define's hi)
  unsigned lo_base = 0;                 ///< lo with every index 0 (a plain define's lo)
  std::vector<unsigned> hi_steps;       ///< per parameter, in the order of parameters: how much hi grows per index (0 where hi does not use it)
  std::vector<unsigned> lo_steps;       ///< the same for lo

  /// The range of the given indexes, one per parameter in their order
  /// (missing ones are 0): `at({2})` is bank 2's range of an `(i)` define.
  Field at(std::initializer_list<unsigned> indexes = {}) const {
    Field f{hi_base, lo_base};
    std::size_t k = 0;
    for (unsigned index : indexes) {
      if (k < hi_steps.size()) f.hi += hi_steps[k] * index;
      if (k < lo_steps.size()) f.lo += lo_steps[k] * index;
      ++k;
    }
    return f;
  }

  bool operator==(const MwDefine&) const = default;
};

/// Reads every `MW(...)` define of a class header's text, in the order of the text.
///
/// The text is read a line at a time (a line ends at `\n`; a `\r` before it
/// is part of the line break). A line is an MW define when, after optional
/// spaces or tabs, it reads `#`, optional spaces or tabs, `define`, the name
/// (letters, digits and `_`), optionally a parameter list right after the
/// name (`(` names separated by `,` `)`), then the value `MW(` hi `:` lo `)`.
/// Each bound is a decimal
/// integer, or, in an indexed define, `(` base then one or more terms
/// `+(` parameter `)*` step `)`, with decimal integers base and step and each
/// parameter at most once. Spaces and tabs may stand between any two of these
/// pieces except inside the names and the numbers; anything after the closing
/// `)` that is only spaces, tabs or a comment (`//...` or `/*...*/` on that
/// line) is ignored.
///
/// Left to you, because no test gives such a line: a blank between the name
/// and its parameter list, or between `MW` and `(`; a comment that is not
/// closed on its line; a parameter list that is not names separated by
/// commas, or names one parameter twice; a bound in parentheses without a
/// term. Skipping such a line or throwing are both right.
///
/// Every other line is not an MW define and is skipped: comments (also those
/// that mention `MW(X:Y)`), `#ifndef`, and defines whose value is not an MW
/// range, such as `#define NVCBC0_QMDV04_00_QMD_TYPE_GRID_CTA 0x00000002`.
///
/// @param header_text the whole text of a header
/// @return the MW defines, first line first; hi_steps and lo_steps have one
///         entry per parameter
/// @throws QmdError for a define whose value starts with `MW(` but breaks
///         these rules (a missing bound, a letter in a number, text after the
///         closing parenthesis that is not a comment, a formula in a define
///         without parameters or in a name that is not one of its parameters,
///         a parameter twice in one bound, a number above 2^32 - 1, hi below
///         lo with every index 0); the message says `line N`, the line's
///         number counted from 1
std::vector<MwDefine> parse_mw_defines(std::string_view header_text);

// ---------------------------------------------------------------------------
// Part C: the QMD of three GPU generations
// ---------------------------------------------------------------------------

/// The QMD versions this lab knows, by the value of their QMD_MAJOR_VERSION
/// field. The headers name them QMDV03_00, QMDV04_00 and QMDV05_00.
enum class QmdVersion : unsigned {
  V03_00 = 3,  ///< Ampere and Ada (compute classes 0xC6C0, 0xC7C0, 0xC9C0): 64 words, 256 bytes
  V04_00 = 4,  ///< Hopper (HOPPER_COMPUTE_A, 0xCBC0): 96 words, 384 bytes
  V05_00 = 5,  ///< Blackwell (0xCDC0, BLACKWELL_COMPUTE_B 0xCEC0): 96 words, 384 bytes
};

/// The size of a QMD of @p version in 32-bit words: the last bit any header
/// field names, rounded up to a word (V03_00 ends at MW(2047:2016), V04_00 and
/// V05_00 at MW(3071:3071)).
/// @throws QmdError for a value that is none of the three versions
constexpr std::size_t qmd_words(QmdVersion version) {
  switch (version) {
    case QmdVersion::V03_00: return 64;
    case QmdVersion::V04_00: return 96;
    case QmdVersion::V05_00: return 96;
  }
  throw QmdError("unknown QMD version " + std::to_string(static_cast<unsigned>(version)));
}

/// "V03_00", "V04_00" or "V05_00", as the headers spell them.
std::string to_string(QmdVersion version);

/// Constant bank 0 as the QMD describes it: where the bank lives in GPU
/// memory and how big it is. The kernel's parameters live in this bank.
struct ConstantBank {
  std::uint64_t address = 0;  ///< GPU virtual address, in bytes (CONSTANT_BUFFER_ADDR_LOWER/UPPER(0), shifts undone)
  std::uint32_t size = 0;     ///< size in bytes (CONSTANT_BUFFER_SIZE_SHIFTED4(0) times 16)
  bool valid = false;         ///< CONSTANT_BUFFER_VALID(0)

  bool operator==(const ConstantBank&) const = default;
};

/// Release semaphore 0: a value the GPU writes to memory when the grid has
/// finished, one of the ways the CPU learns of completion.
struct ReleaseSemaphore {
  bool enable = false;        ///< RELEASE0_ENABLE (V03_00), RELEASE_ENABLE(0) (V04_00, V05_00)
  std::uint64_t address = 0;  ///< GPU virtual address of the semaphore, in bytes
  std::uint64_t payload = 0;  ///< the value written: PAYLOAD_UPPER in bits 63:32, PAYLOAD_LOWER in 31:0

  bool operator==(const ReleaseSemaphore&) const = default;
};

/// The fields of a QMD this lab covers, in plain units: counts as counts,
/// sizes and addresses in bytes, with the headers' SHIFTEDn scaling undone
/// (a CONSTANT_BUFFER_SIZE_SHIFTED4 of 0x21 is a size of 528 bytes).
///
/// Every other bit of a QMD (scheduling hints, the other seven constant
/// banks, the other release semaphores, ...) is outside this struct: decode
/// ignores it and encode_into leaves it alone.
struct Qmd {
  QmdVersion version = QmdVersion::V03_00;  ///< QMD_MAJOR_VERSION
  std::uint32_t minor_version = 0;          ///< QMD_VERSION (V03_00) or QMD_MINOR_VERSION (V04_00, V05_00)
  std::array<std::uint32_t, 3> grid{};      ///< blocks in x, y, z: CTA_RASTER_WIDTH/HEIGHT/DEPTH (V03_00), GRID_WIDTH/HEIGHT/DEPTH
  std::array<std::uint32_t, 3> block{};     ///< threads per block in x, y, z: CTA_THREAD_DIMENSION0/1/2
  std::uint32_t registers = 0;              ///< registers per thread: REGISTER_COUNT_V (V03_00), REGISTER_COUNT
  std::uint32_t shared_memory = 0;          ///< shared memory per block in bytes: SHARED_MEMORY_SIZE, SHARED_MEMORY_SIZE_SHIFTED7 (V05_00)
  std::uint64_t program_address = 0;        ///< GPU virtual address of the kernel's first instruction, in bytes
  ConstantBank cbank0;                      ///< constant bank 0, which holds the parameters
  std::uint32_t barrier_count = 0;          ///< BARRIER_COUNT: named barriers the kernel uses
  std::uint32_t sass_version = 0;           ///< SASS_VERSION
  ReleaseSemaphore release0;                ///< release semaphore 0

  bool operator==(const Qmd&) const = default;
};

/// A range of a layout and its scale: a `SHIFTEDn` field stores its value
/// divided by 2^n, so shift is n (0 for a name without `SHIFTED`).
struct ScaledField {
  Field field;         ///< the range, MW(hi:lo)
  unsigned shift = 0;  ///< n of a name that ends in `_SHIFTEDn`

  bool operator==(const ScaledField&) const = default;
};

/// Where one QMD version keeps each covered field, as a header defines it.
/// Each member names, after the `NV<class>_QMDV0<n>_00_` prefix, the defines
/// it comes from (V03_00 / V04_00 and V05_00 where they differ); an address
/// is split into LOWER (bits 31:0 of the stored value) and UPPER (the bits
/// above), both with the same shift.
struct Layout {
  QmdVersion version = QmdVersion::V03_00;  ///< the version these ranges are of
  ScaledField major_version;                ///< QMD_MAJOR_VERSION
  ScaledField minor_version;                ///< QMD_VERSION / QMD_MINOR_VERSION
  std::array<ScaledField, 3> grid;          ///< CTA_RASTER_WIDTH, _HEIGHT, _DEPTH / GRID_WIDTH, _HEIGHT, _DEPTH
  std::array<ScaledField, 3> block;         ///< CTA_THREAD_DIMENSION0, 1, 2
  ScaledField registers;                    ///< REGISTER_COUNT_V / REGISTER_COUNT
  ScaledField shared_memory;                ///< SHARED_MEMORY_SIZE (V05_00: SHARED_MEMORY_SIZE_SHIFTED7)
  ScaledField program_address_lower;        ///< PROGRAM_ADDRESS_LOWER (V05_00: PROGRAM_ADDRESS_LOWER_SHIFTED4)
  ScaledField program_address_upper;        ///< PROGRAM_ADDRESS_UPPER (V05_00: PROGRAM_ADDRESS_UPPER_SHIFTED4)
  ScaledField cbank0_address_lower;         ///< CONSTANT_BUFFER_ADDR_LOWER(0) (V04_00, V05_00: CONSTANT_BUFFER_ADDR_LOWER_SHIFTED6(0))
  ScaledField cbank0_address_upper;         ///< CONSTANT_BUFFER_ADDR_UPPER(0) (V04_00, V05_00: CONSTANT_BUFFER_ADDR_UPPER_SHIFTED6(0))
  ScaledField cbank0_size;                  ///< CONSTANT_BUFFER_SIZE_SHIFTED4(0)
  ScaledField cbank0_valid;                 ///< CONSTANT_BUFFER_VALID(0)
  ScaledField barrier_count;                ///< BARRIER_COUNT
  ScaledField sass_version;                 ///< SASS_VERSION
  ScaledField release0_enable;              ///< RELEASE0_ENABLE / RELEASE_ENABLE(0)
  ScaledField release0_address_lower;       ///< RELEASE0_ADDRESS_LOWER / RELEASE_SEMAPHORE0_ADDR_LOWER
  ScaledField release0_address_upper;       ///< RELEASE0_ADDRESS_UPPER / RELEASE_SEMAPHORE0_ADDR_UPPER
  ScaledField release0_payload_lower;       ///< RELEASE0_PAYLOAD_LOWER / RELEASE_SEMAPHORE0_PAYLOAD_LOWER
  ScaledField release0_payload_upper;       ///< RELEASE0_PAYLOAD_UPPER / RELEASE_SEMAPHORE0_PAYLOAD_UPPER

  bool operator==(const Layout&) const = default;
};

/// Reads the layout of @p version from a header's text.
///
/// A define is one of @p version's when its name is `NV`, four hexadecimal
/// digits (the class, such as `CBC0`), `_QMDV`, the version as two digits and
/// `_00_`, then the field's name (`NVCBC0_QMDV04_00_GRID_WIDTH`); a header
/// may define several versions and many more fields, and every other define
/// is ignored. Each member of Layout takes the define whose field name is
/// the one Layout names, exactly, or that name followed by `_SHIFTEDn`, which
/// sets its shift to n. Indexed defines are taken at index 0. The tests give
/// each field once per version, and LOWER and UPPER with one shift: which
/// define wins when a name comes twice, or with and without `_SHIFTEDn`, is
/// left to you.
///
/// @param header_text the text of a header, as parse_mw_defines reads it
/// @param version     the version whose defines to use
/// @return the ranges of every covered field, with their shifts
/// @throws QmdError as parse_mw_defines does, and when one of the fields is
///         not defined for @p version (the message names the field, such as
///         `GRID_WIDTH`)
Layout layout_from_header(std::string_view header_text, QmdVersion version);

/// Decodes a QMD with the ranges of a layout.
///
/// @param words  the QMD as 32-bit words; exactly qmd_words(layout.version) of them
/// @param layout where the fields are, as layout_from_header read them
/// @return the covered fields, in bytes and counts (see Qmd)
/// @throws QmdError when the size is not qmd_words(layout.version), or when
///         QMD_MAJOR_VERSION, read where @p layout puts it, is not that
///         version's number (the message says which number was found)
Qmd decode(std::span<const std::uint32_t> words, const Layout& layout);

/// Writes the covered fields of @p qmd into an existing QMD with the ranges
/// of a layout, leaving every other bit as it was; QMD_MAJOR_VERSION gets
/// qmd.version's number.
///
/// For any QMD q and layout l, `encode_into(decode(q, l), l, q)` leaves q as
/// it was.
///
/// @param qmd    the values to write; qmd.version must be layout.version
/// @param layout where the fields are
/// @param words  the QMD to modify; exactly qmd_words(layout.version) words
/// @throws QmdError when the versions or the size differ, or when a value
///         cannot be represented: it does not fit its field, or it is not a
///         multiple of the field's scale (a V04_00 constant bank address
///         must be a multiple of 64, SHIFTED6). @p words is unchanged then.
void encode_into(const Qmd& qmd, const Layout& layout, std::span<std::uint32_t> words);

// ---------------------------------------------------------------------------
// Given: where the headers come from, and the codec with them
// ---------------------------------------------------------------------------

/// The course's header of @p version, `headers/qmd_v03_00.h`,
/// `qmd_v04_00.h` or `qmd_v05_00.h` of this lab, as compiled into it.
std::string_view course_header(QmdVersion version);

/// The header of an open-gpu-doc checkout that defines @p version:
/// `classes/compute/clc6c0qmd.h` (V03_00), `clcbc0qmd.h` (V04_00) or
/// `clcdc0qmd.h` (V05_00) below @p checkout.
std::filesystem::path open_gpu_doc_header(const std::filesystem::path& checkout, QmdVersion version);

/// The text of the header the codec reads @p version's layout from: NVIDIA's
/// (open_gpu_doc_header) when the environment variable
/// `LAUNCHLAB_OPEN_GPU_DOC` names an open-gpu-doc checkout, the course's
/// (course_header) when it is unset or empty.
/// @throws QmdError when `LAUNCHLAB_OPEN_GPU_DOC` is set and the header
///         cannot be read there
std::string header_text(QmdVersion version);

/// `layout_from_header(header_text(version), version)`, read once per
/// version and program.
const Layout& layout(QmdVersion version);

/// Decodes a QMD of a given version: decode(words, layout(version)).
///
/// @param words   the QMD as 32-bit words; exactly qmd_words(version) of them
/// @param version the version the caller expects (the QMD does not say which
///                layout it uses; the version field sits at a place that
///                depends on the layout)
/// @throws QmdError as decode(words, layout) does
Qmd decode(std::span<const std::uint32_t> words, QmdVersion version);

/// encode_into(qmd, layout(qmd.version), words).
/// @throws QmdError as encode_into(qmd, layout, words) does
void encode_into(const Qmd& qmd, std::span<std::uint32_t> words);

/// A new QMD of qmd_words(qmd.version) words, all zero except the covered
/// fields, which hold @p qmd.
/// @throws QmdError as encode_into does
std::vector<std::uint32_t> encode(const Qmd& qmd);

// ---------------------------------------------------------------------------
// Given: bytes in, text out (used by `launchlab inspect qmd`)
// ---------------------------------------------------------------------------

/// The 32-bit little-endian words of a byte string (a QMD file, a pushbuffer).
/// @throws QmdError when the length is not a multiple of 4
std::vector<std::uint32_t> words_from_bytes(std::string_view bytes);

/// The version named by a command-line number: 3, 4 or 5.
/// @throws QmdError for anything else
QmdVersion version_from_number(std::string_view number);

/// A QMD as JSON, the output of `launchlab inspect qmd FILE --json`:
/// `{"version": [4, 0], "grid": [4096, 1, 1], ...}` with sizes and addresses
/// in bytes, one member per line.
std::string to_json(const Qmd& qmd);

/// A QMD as a short table for people, the output of `launchlab inspect qmd FILE`.
std::string to_text(const Qmd& qmd);

}  // namespace launchlab::qmd
