// Part B: the QMD layouts of three GPU generations, and a decoder and encoder
// over them.
//
// Every range comes from a header's text through parse_mw_defines: the
// course's headers, or NVIDIA's with LAUNCHLAB_OPEN_GPU_DOC set.
#include <algorithm>
#include <string>
#include <vector>

#include "qmd.h"

namespace launchlab::qmd {
namespace {

/// The defines of one version in a header, by field name (after the
/// NV<class>_QMDV0<n>_00_ prefix).
std::vector<std::pair<std::string, MwDefine>> defines_of(std::string_view header_text, QmdVersion version) {
  const std::string marker = "_QMDV0" + std::to_string(static_cast<unsigned>(version)) + "_00_";
  auto is_hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f'); };
  std::vector<std::pair<std::string, MwDefine>> out;
  for (auto& define : parse_mw_defines(header_text)) {
    const std::string& name = define.name;
    // NV, four hex digits of the class, then the marker.
    if (name.size() <= 6 + marker.size() || !name.starts_with("NV")) continue;
    if (!is_hex(name[2]) || !is_hex(name[3]) || !is_hex(name[4]) || !is_hex(name[5])) continue;
    if (name.compare(6, marker.size(), marker) != 0) continue;
    out.emplace_back(name.substr(6 + marker.size()), std::move(define));
  }
  return out;
}

/// The field named @p field, or @p field followed by _SHIFTEDn, at index 0.
ScaledField find(const std::vector<std::pair<std::string, MwDefine>>& defines, const std::string& field,
                 QmdVersion version) {
  for (const auto& [name, define] : defines) {
    unsigned shift = 0;
    if (name != field) {
      const std::string shifted = field + "_SHIFTED";
      if (!name.starts_with(shifted) || name.size() == shifted.size()) continue;
      const std::string digits = name.substr(shifted.size());
      if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 2) continue;
      shift = static_cast<unsigned>(std::stoul(digits));
    }
    return {define.at(), shift};
  }
  throw QmdError("the header defines no " + field + " (nor " + field + "_SHIFTEDn) for QMD version " +
                 to_string(version));
}

void check_size(std::size_t words, QmdVersion version) {
  const std::size_t expected = qmd_words(version);
  if (words != expected) {
    throw QmdError("a " + to_string(version) + " QMD is " + std::to_string(expected) + " words (" +
                   std::to_string(expected * 4) + " bytes), not " + std::to_string(words));
  }
}

std::string describe(Field field) { return "MW(" + std::to_string(field.hi) + ":" + std::to_string(field.lo) + ")"; }

/// A field's value in bytes or counts: the stored bits times 2^shift.
std::uint64_t read_scaled(std::span<const std::uint32_t> words, ScaledField f) {
  return read_field(words, f.field) << f.shift;
}

/// An address split over LOWER (32 bits) and UPPER, scaled by LOWER's 2^shift.
std::uint64_t read_address(std::span<const std::uint32_t> words, ScaledField lower, ScaledField upper) {
  return ((read_field(words, upper.field) << 32) | read_field(words, lower.field)) << lower.shift;
}

/// Checks that a value in bytes or counts can be stored in a field scaled by
/// 2^shift that is @p bits wide, and returns the value to store.
std::uint64_t scaled(std::uint64_t value, unsigned shift, unsigned bits, const std::string& what) {
  if (shift > 0 && (value & ((1ull << shift) - 1)) != 0) {
    throw QmdError(what + " " + std::to_string(value) + " is not a multiple of " + std::to_string(1ull << shift));
  }
  const std::uint64_t stored = value >> shift;
  if (bits < 64 && (stored >> bits) != 0) {
    throw QmdError(what + " " + std::to_string(value) + " does not fit in " + std::to_string(bits) + " bits" +
                   (shift ? " scaled by " + std::to_string(1ull << shift) : std::string()));
  }
  return stored;
}

}  // namespace

Layout layout_from_header(std::string_view header_text, QmdVersion version) {
  const auto defines = defines_of(header_text, version);
  const bool v3 = version == QmdVersion::V03_00;
  auto get = [&](const std::string& field) { return find(defines, field, version); };
  Layout l;
  l.version = version;
  l.major_version = get("QMD_MAJOR_VERSION");
  l.minor_version = get(v3 ? "QMD_VERSION" : "QMD_MINOR_VERSION");
  const char* grid[] = {"WIDTH", "HEIGHT", "DEPTH"};
  for (int i = 0; i < 3; ++i) {
    l.grid[i] = get((v3 ? "CTA_RASTER_" : "GRID_") + std::string(grid[i]));
    l.block[i] = get("CTA_THREAD_DIMENSION" + std::to_string(i));
  }
  l.registers = get(v3 ? "REGISTER_COUNT_V" : "REGISTER_COUNT");
  l.shared_memory = get("SHARED_MEMORY_SIZE");
  l.program_address_lower = get("PROGRAM_ADDRESS_LOWER");
  l.program_address_upper = get("PROGRAM_ADDRESS_UPPER");
  l.cbank0_address_lower = get("CONSTANT_BUFFER_ADDR_LOWER");
  l.cbank0_address_upper = get("CONSTANT_BUFFER_ADDR_UPPER");
  l.cbank0_size = get("CONSTANT_BUFFER_SIZE");
  l.cbank0_valid = get("CONSTANT_BUFFER_VALID");
  l.barrier_count = get("BARRIER_COUNT");
  l.sass_version = get("SASS_VERSION");
  l.release0_enable = get(v3 ? "RELEASE0_ENABLE" : "RELEASE_ENABLE");
  l.release0_address_lower = get(v3 ? "RELEASE0_ADDRESS_LOWER" : "RELEASE_SEMAPHORE0_ADDR_LOWER");
  l.release0_address_upper = get(v3 ? "RELEASE0_ADDRESS_UPPER" : "RELEASE_SEMAPHORE0_ADDR_UPPER");
  l.release0_payload_lower = get(v3 ? "RELEASE0_PAYLOAD_LOWER" : "RELEASE_SEMAPHORE0_PAYLOAD_LOWER");
  l.release0_payload_upper = get(v3 ? "RELEASE0_PAYLOAD_UPPER" : "RELEASE_SEMAPHORE0_PAYLOAD_UPPER");
  return l;
}

Qmd decode(std::span<const std::uint32_t> words, const Layout& l) {
  check_size(words.size(), l.version);
  const std::uint64_t major = read_field(words, l.major_version.field);
  if (major != static_cast<unsigned>(l.version)) {
    throw QmdError("QMD_MAJOR_VERSION (" + describe(l.major_version.field) + ") holds " + std::to_string(major) +
                   ", not " + std::to_string(static_cast<unsigned>(l.version)) + ": this is not a " +
                   to_string(l.version) + " QMD");
  }
  Qmd q;
  q.version = l.version;
  q.minor_version = static_cast<std::uint32_t>(read_scaled(words, l.minor_version));
  for (int i = 0; i < 3; ++i) {
    q.grid[i] = static_cast<std::uint32_t>(read_scaled(words, l.grid[i]));
    q.block[i] = static_cast<std::uint32_t>(read_scaled(words, l.block[i]));
  }
  q.registers = static_cast<std::uint32_t>(read_scaled(words, l.registers));
  q.shared_memory = static_cast<std::uint32_t>(read_scaled(words, l.shared_memory));
  q.program_address = read_address(words, l.program_address_lower, l.program_address_upper);
  q.cbank0.address = read_address(words, l.cbank0_address_lower, l.cbank0_address_upper);
  q.cbank0.size = static_cast<std::uint32_t>(read_scaled(words, l.cbank0_size));
  q.cbank0.valid = read_field(words, l.cbank0_valid.field) != 0;
  q.barrier_count = static_cast<std::uint32_t>(read_scaled(words, l.barrier_count));
  q.sass_version = static_cast<std::uint32_t>(read_scaled(words, l.sass_version));
  q.release0.enable = read_field(words, l.release0_enable.field) != 0;
  q.release0.address = read_address(words, l.release0_address_lower, l.release0_address_upper);
  q.release0.payload = read_address(words, l.release0_payload_lower, l.release0_payload_upper);
  return q;
}

void encode_into(const Qmd& q, const Layout& l, std::span<std::uint32_t> words) {
  if (q.version != l.version) {
    throw QmdError("a " + to_string(q.version) + " Qmd cannot be written with the layout of " + to_string(l.version));
  }
  check_size(words.size(), l.version);

  // Work on a copy: a value that does not fit must leave words untouched.
  std::vector<std::uint32_t> out(words.begin(), words.end());
  auto put = [&](ScaledField f, std::uint64_t value, const std::string& what) {
    write_field(out, f.field, scaled(value, f.shift, f.field.width(), what + " (" + describe(f.field) + ")"));
  };
  auto put_address = [&](ScaledField lower, ScaledField upper, std::uint64_t bytes, const char* what) {
    const std::uint64_t stored = scaled(bytes, lower.shift, 32 + upper.field.width(), what);
    write_field(out, lower.field, stored & 0xffffffffull);
    write_field(out, upper.field, stored >> 32);
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
  put(l.shared_memory, q.shared_memory, "shared memory size");
  put_address(l.program_address_lower, l.program_address_upper, q.program_address, "program address");
  put_address(l.cbank0_address_lower, l.cbank0_address_upper, q.cbank0.address, "constant bank 0 address");
  put(l.cbank0_size, q.cbank0.size, "constant bank 0 size");
  put(l.cbank0_valid, q.cbank0.valid ? 1 : 0, "constant bank 0 valid");
  put(l.barrier_count, q.barrier_count, "the barrier count");
  put(l.sass_version, q.sass_version, "the SASS version");
  put(l.release0_enable, q.release0.enable ? 1 : 0, "release 0 enable");
  put_address(l.release0_address_lower, l.release0_address_upper, q.release0.address, "release 0 address");
  put_address(l.release0_payload_lower, l.release0_payload_upper, q.release0.payload, "release 0 payload");

  std::copy(out.begin(), out.end(), words.begin());
}

}  // namespace launchlab::qmd
