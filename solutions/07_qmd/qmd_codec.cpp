// Part B: the QMD layouts of three GPU generations, and a decoder and encoder
// over them.
//
// Transcribed from NVIDIA/open-gpu-doc: classes/compute/clcbc0qmd.h (the
// NVCBC0_QMDV03_00_* and NVCBC0_QMDV04_00_* ranges) and
// classes/compute/clcdc0qmd.h (NVCDC0_QMDV05_00_*).
#include <algorithm>
#include <string>
#include <vector>

#include "qmd.h"

namespace launchlab::qmd {
namespace {

/// Where one version keeps each covered field, and by how many bits a
/// SHIFTEDn field is scaled.
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

constexpr Layout kV03 = {
    .major_version = {583, 580},  // QMD_MAJOR_VERSION
    .minor_version = {579, 576},  // QMD_VERSION
    .grid = {{{415, 384}, {431, 416}, {463, 448}}},   // CTA_RASTER_WIDTH, _HEIGHT, _DEPTH
    .block = {{{607, 592}, {623, 608}, {639, 624}}},  // CTA_THREAD_DIMENSION0, 1, 2
    .registers = {656, 648},                          // REGISTER_COUNT_V
    .shared_memory = {561, 544},                      // SHARED_MEMORY_SIZE
    .shared_memory_shift = 0,
    .program_address_lower = {1567, 1536},  // PROGRAM_ADDRESS_LOWER
    .program_address_upper = {1584, 1568},  // PROGRAM_ADDRESS_UPPER
    .program_address_shift = 0,
    .cbank0_address_lower = {1055, 1024},  // CONSTANT_BUFFER_ADDR_LOWER(0)
    .cbank0_address_upper = {1072, 1056},  // CONSTANT_BUFFER_ADDR_UPPER(0)
    .cbank0_address_shift = 0,
    .cbank0_size = {1087, 1075},  // CONSTANT_BUFFER_SIZE_SHIFTED4(0)
    .cbank0_size_shift = 4,
    .cbank0_valid = {640, 640},              // CONSTANT_BUFFER_VALID(0)
    .barrier_count = {767, 763},             // BARRIER_COUNT
    .sass_version = {1663, 1656},            // SASS_VERSION
    .release0_enable = {823, 823},           // RELEASE0_ENABLE
    .release0_address_lower = {799, 768},    // RELEASE0_ADDRESS_LOWER
    .release0_address_upper = {807, 800},    // RELEASE0_ADDRESS_UPPER
    .release0_payload_lower = {863, 832},    // RELEASE0_PAYLOAD_LOWER
    .release0_payload_upper = {895, 864},    // RELEASE0_PAYLOAD_UPPER
};

constexpr Layout kV04 = {
    .major_version = {583, 580},  // QMD_MAJOR_VERSION
    .minor_version = {579, 576},  // QMD_MINOR_VERSION
    .grid = {{{1055, 1024}, {1071, 1056}, {1103, 1088}}},  // GRID_WIDTH, _HEIGHT, _DEPTH
    .block = {{{1167, 1152}, {1183, 1168}, {1199, 1184}}},  // CTA_THREAD_DIMENSION0, 1, 2
    .registers = {1208, 1200},                              // REGISTER_COUNT
    .shared_memory = {601, 584},                            // SHARED_MEMORY_SIZE
    .shared_memory_shift = 0,
    .program_address_lower = {1247, 1216},  // PROGRAM_ADDRESS_LOWER
    .program_address_upper = {1272, 1248},  // PROGRAM_ADDRESS_UPPER
    .program_address_shift = 0,
    .cbank0_address_lower = {1567, 1536},  // CONSTANT_BUFFER_ADDR_LOWER_SHIFTED6(0)
    .cbank0_address_upper = {1586, 1568},  // CONSTANT_BUFFER_ADDR_UPPER_SHIFTED6(0)
    .cbank0_address_shift = 6,
    .cbank0_size = {1599, 1587},  // CONSTANT_BUFFER_SIZE_SHIFTED4(0)
    .cbank0_size_shift = 4,
    .cbank0_valid = {416, 416},             // CONSTANT_BUFFER_VALID(0)
    .barrier_count = {1215, 1211},          // BARRIER_COUNT
    .sass_version = {543, 536},             // SASS_VERSION
    .release0_enable = {320, 320},          // RELEASE_ENABLE(0)
    .release0_address_lower = {671, 640},   // RELEASE_SEMAPHORE0_ADDR_LOWER
    .release0_address_upper = {696, 672},   // RELEASE_SEMAPHORE0_ADDR_UPPER
    .release0_payload_lower = {735, 704},   // RELEASE_SEMAPHORE0_PAYLOAD_LOWER
    .release0_payload_upper = {767, 736},   // RELEASE_SEMAPHORE0_PAYLOAD_UPPER
};

constexpr Layout kV05 = {
    .major_version = {471, 468},  // QMD_MAJOR_VERSION
    .minor_version = {467, 464},  // QMD_MINOR_VERSION
    .grid = {{{1279, 1248}, {1295, 1280}, {1327, 1312}}},  // GRID_WIDTH, _HEIGHT, _DEPTH
    .block = {{{1103, 1088}, {1119, 1104}, {1127, 1120}}},  // CTA_THREAD_DIMENSION0, 1, 2
    .registers = {1136, 1128},                              // REGISTER_COUNT
    .shared_memory = {1162, 1152},                          // SHARED_MEMORY_SIZE_SHIFTED7
    .shared_memory_shift = 7,
    .program_address_lower = {1055, 1024},  // PROGRAM_ADDRESS_LOWER_SHIFTED4
    .program_address_upper = {1076, 1056},  // PROGRAM_ADDRESS_UPPER_SHIFTED4
    .program_address_shift = 4,
    .cbank0_address_lower = {1375, 1344},  // CONSTANT_BUFFER_ADDR_LOWER_SHIFTED6(0)
    .cbank0_address_upper = {1394, 1376},  // CONSTANT_BUFFER_ADDR_UPPER_SHIFTED6(0)
    .cbank0_address_shift = 6,
    .cbank0_size = {1407, 1395},  // CONSTANT_BUFFER_SIZE_SHIFTED4(0)
    .cbank0_size_shift = 4,
    .cbank0_valid = {1856, 1856},          // CONSTANT_BUFFER_VALID(0)
    .barrier_count = {1141, 1137},         // BARRIER_COUNT
    .sass_version = {455, 448},            // SASS_VERSION
    .release0_enable = {288, 288},         // RELEASE_ENABLE(0)
    .release0_address_lower = {511, 480},  // RELEASE_SEMAPHORE0_ADDR_LOWER
    .release0_address_upper = {536, 512},  // RELEASE_SEMAPHORE0_ADDR_UPPER
    .release0_payload_lower = {575, 544},  // RELEASE_SEMAPHORE0_PAYLOAD_LOWER
    .release0_payload_upper = {607, 576},  // RELEASE_SEMAPHORE0_PAYLOAD_UPPER
};

const Layout& layout_of(QmdVersion version) {
  switch (version) {
    case QmdVersion::V03_00: return kV03;
    case QmdVersion::V04_00: return kV04;
    case QmdVersion::V05_00: return kV05;
  }
  throw QmdError("unknown QMD version " + std::to_string(static_cast<unsigned>(version)));
}

void check_size(std::size_t words, QmdVersion version) {
  const std::size_t expected = qmd_words(version);
  if (words != expected) {
    throw QmdError("a " + to_string(version) + " QMD is " + std::to_string(expected) + " words (" +
                   std::to_string(expected * 4) + " bytes), not " + std::to_string(words));
  }
}

/// An address split over LOWER (32 bits) and UPPER, scaled by 2^shift.
std::uint64_t read_address(std::span<const std::uint32_t> words, Field lower, Field upper, unsigned shift) {
  return ((read_field(words, upper) << 32) | read_field(words, lower)) << shift;
}

/// Checks that a value in bytes can be stored in a field scaled by 2^shift
/// that is @p bits wide, and returns the value to store.
std::uint64_t scaled(std::uint64_t bytes, unsigned shift, unsigned bits, const char* what) {
  if (shift > 0 && (bytes & ((1ull << shift) - 1)) != 0) {
    throw QmdError(std::string(what) + " " + std::to_string(bytes) + " is not a multiple of " +
                   std::to_string(1ull << shift));
  }
  const std::uint64_t stored = bytes >> shift;
  if (bits < 64 && (stored >> bits) != 0) {
    throw QmdError(std::string(what) + " " + std::to_string(bytes) + " does not fit in " + std::to_string(bits) +
                   " bits" + (shift ? " scaled by " + std::to_string(1ull << shift) : std::string()));
  }
  return stored;
}

/// Checks a plain value against its field's width, naming it on failure.
std::uint64_t fits(std::uint64_t value, Field field, const char* what) {
  if (field.width() < 64 && (value >> field.width()) != 0) {
    throw QmdError(std::string(what) + " " + std::to_string(value) + " does not fit in MW(" +
                   std::to_string(field.hi) + ":" + std::to_string(field.lo) + "), " +
                   std::to_string(field.width()) + " bits");
  }
  return value;
}

}  // namespace

Qmd decode(std::span<const std::uint32_t> words, QmdVersion version) {
  const Layout& l = layout_of(version);
  check_size(words.size(), version);
  const std::uint64_t major = read_field(words, l.major_version);
  if (major != static_cast<unsigned>(version)) {
    throw QmdError("QMD_MAJOR_VERSION (MW(" + std::to_string(l.major_version.hi) + ":" +
                   std::to_string(l.major_version.lo) + ")) holds " + std::to_string(major) + ", not " +
                   std::to_string(static_cast<unsigned>(version)) + ": this is not a " + to_string(version) +
                   " QMD");
  }
  Qmd q;
  q.version = version;
  q.minor_version = static_cast<std::uint32_t>(read_field(words, l.minor_version));
  for (int i = 0; i < 3; ++i) {
    q.grid[i] = static_cast<std::uint32_t>(read_field(words, l.grid[i]));
    q.block[i] = static_cast<std::uint32_t>(read_field(words, l.block[i]));
  }
  q.registers = static_cast<std::uint32_t>(read_field(words, l.registers));
  q.shared_memory = static_cast<std::uint32_t>(read_field(words, l.shared_memory) << l.shared_memory_shift);
  q.program_address =
      read_address(words, l.program_address_lower, l.program_address_upper, l.program_address_shift);
  q.cbank0.address = read_address(words, l.cbank0_address_lower, l.cbank0_address_upper, l.cbank0_address_shift);
  q.cbank0.size = static_cast<std::uint32_t>(read_field(words, l.cbank0_size) << l.cbank0_size_shift);
  q.cbank0.valid = read_field(words, l.cbank0_valid) != 0;
  q.barrier_count = static_cast<std::uint32_t>(read_field(words, l.barrier_count));
  q.sass_version = static_cast<std::uint32_t>(read_field(words, l.sass_version));
  q.release0.enable = read_field(words, l.release0_enable) != 0;
  q.release0.address = read_address(words, l.release0_address_lower, l.release0_address_upper, 0);
  q.release0.payload = (read_field(words, l.release0_payload_upper) << 32) | read_field(words, l.release0_payload_lower);
  return q;
}

void encode_into(const Qmd& q, std::span<std::uint32_t> words) {
  const Layout& l = layout_of(q.version);
  check_size(words.size(), q.version);

  // Work on a copy: a value that does not fit must leave words untouched.
  std::vector<std::uint32_t> out(words.begin(), words.end());
  auto put = [&](Field field, std::uint64_t value, const char* what) { write_field(out, field, fits(value, field, what)); };
  auto put_address = [&](Field lower, Field upper, unsigned shift, std::uint64_t bytes, const char* what) {
    const std::uint64_t stored = scaled(bytes, shift, 32 + upper.width(), what);
    write_field(out, lower, stored & 0xffffffffull);
    write_field(out, upper, stored >> 32);
  };

  put(l.major_version, static_cast<unsigned>(q.version), "the major version");
  put(l.minor_version, q.minor_version, "the minor version");
  const char* grid_names[] = {"grid width", "grid height", "grid depth"};
  const char* block_names[] = {"block x", "block y", "block z"};
  for (int i = 0; i < 3; ++i) {
    put(l.grid[i], q.grid[i], grid_names[i]);
    put(l.block[i], q.block[i], block_names[i]);
  }
  put(l.registers, q.registers, "the register count");
  write_field(out, l.shared_memory,
              scaled(q.shared_memory, l.shared_memory_shift, l.shared_memory.width(), "shared memory size"));
  put_address(l.program_address_lower, l.program_address_upper, l.program_address_shift, q.program_address,
              "program address");
  put_address(l.cbank0_address_lower, l.cbank0_address_upper, l.cbank0_address_shift, q.cbank0.address,
              "constant bank 0 address");
  write_field(out, l.cbank0_size, scaled(q.cbank0.size, l.cbank0_size_shift, l.cbank0_size.width(), "constant bank 0 size"));
  put(l.cbank0_valid, q.cbank0.valid ? 1 : 0, "constant bank 0 valid");
  put(l.barrier_count, q.barrier_count, "the barrier count");
  put(l.sass_version, q.sass_version, "the SASS version");
  put(l.release0_enable, q.release0.enable ? 1 : 0, "release 0 enable");
  put_address(l.release0_address_lower, l.release0_address_upper, 0, q.release0.address, "release 0 address");
  put(l.release0_payload_lower, q.release0.payload & 0xffffffffull, "release 0 payload");
  put(l.release0_payload_upper, q.release0.payload >> 32, "release 0 payload");

  std::copy(out.begin(), out.end(), words.begin());
}

std::vector<std::uint32_t> encode(const Qmd& q) {
  std::vector<std::uint32_t> words(qmd_words(q.version), 0);
  encode_into(q, words);
  return words;
}

}  // namespace launchlab::qmd
