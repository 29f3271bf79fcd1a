/// @file
/// The QMD ("Queue Meta Data"): the descriptor of one compute grid that the
/// GPU reads to launch a kernel. It holds what `vadd<<<4096, 256>>>(...)`
/// says (the grid, the block) and what the driver knows about the kernel (its
/// code's address, its registers, its constant bank with the parameters).
///
/// NVIDIA publishes the layout in its class headers as `MW(hi:lo)` bit
/// ranges: `classes/compute/clcbc0qmd.h` in NVIDIA/open-gpu-doc defines
/// versions 03_00 (Ampere and Ada) and 04_00 (Hopper), `clcdc0qmd.h` defines
/// version 05_00 (Blackwell). This lab reads and writes the fields a launch
/// needs, for the three versions.
///
/// A QMD is handled here as what it is in memory: 32-bit little-endian words.
/// Nothing in this lab crashes on bad input: every function that can be
/// given something impossible throws QmdError, with a message that says what.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
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
// Part B: the QMD of three GPU generations
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

/// Decodes a QMD of a given version.
///
/// @param words   the QMD as 32-bit words; exactly qmd_words(version) of them
/// @param version the version the caller expects (the QMD does not say which
///                layout it uses; the version field sits at a place that
///                depends on the layout)
/// @return the covered fields, in bytes and counts (see Qmd)
/// @throws QmdError when the size is not qmd_words(version), or when
///         QMD_MAJOR_VERSION, read where @p version puts it, is not that
///         version's number (the message says which number was found)
Qmd decode(std::span<const std::uint32_t> words, QmdVersion version);

/// Writes the covered fields of @p qmd into an existing QMD, leaving every
/// other bit as it was; QMD_MAJOR_VERSION gets qmd.version's number.
///
/// For any QMD q of version v, `encode_into(decode(q, v), q)` leaves q as it
/// was.
///
/// @param qmd   the values to write
/// @param words the QMD to modify; exactly qmd_words(qmd.version) words
/// @throws QmdError when the size is wrong, or when a value cannot be
///         represented: it does not fit its field, or it is not a multiple of
///         the field's scale (a V04_00 constant bank address must be a
///         multiple of 64, SHIFTED6). @p words is unchanged then.
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
