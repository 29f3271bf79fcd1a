#include "header_fields.h"

#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "launchlab/testing.h"

namespace launchlab::qmd {
namespace {

std::string hex(std::uint64_t value) {
  std::ostringstream out;
  out << "0x" << std::hex << value;
  return out.str();
}

}  // namespace

nlohmann::json record_value(const Qmd& q) {
  const unsigned number = static_cast<unsigned>(q.version);
  return {
      {"version", number >= 3 && number <= 5 ? to_string(q.version) : "version " + std::to_string(number)},
      {"minor_version", q.minor_version},
      {"grid", q.grid},
      {"block", q.block},
      {"registers", q.registers},
      {"shared_memory", q.shared_memory},
      {"program_address", hex(q.program_address)},
      {"cbank0", {{"address", hex(q.cbank0.address)}, {"size", q.cbank0.size}, {"valid", q.cbank0.valid}}},
      {"barrier_count", q.barrier_count},
      {"sass_version", hex(q.sass_version)},
      {"release0",
       {{"enable", q.release0.enable}, {"address", hex(q.release0.address)}, {"payload", hex(q.release0.payload)}}},
  };
}

}  // namespace launchlab::qmd

namespace launchlab::qmd_tests {
namespace {

std::vector<HeaderField> load() {
  std::istringstream in(launchlab::testing::read_file(launchlab::testing::test_data("07_qmd/fields.csv")));
  std::vector<HeaderField> rows;
  std::string line;
  bool header_seen = false;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (!header_seen) {
      if (line != "version,field,header_name,hi,lo,shift") throw std::runtime_error("fields.csv: unexpected header " + line);
      header_seen = true;
      continue;
    }
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream cells_in(line);
    while (std::getline(cells_in, cell, ',')) cells.push_back(cell);
    if (cells.size() != 6) throw std::runtime_error("fields.csv: bad line " + line);
    HeaderField f;
    f.version = static_cast<unsigned>(std::stoul(cells[0]));
    f.field = cells[1];
    f.header_name = cells[2];
    f.hi = static_cast<unsigned>(std::stoul(cells[3]));
    f.lo = static_cast<unsigned>(std::stoul(cells[4]));
    f.shift = static_cast<unsigned>(std::stoul(cells[5]));
    if (f.hi < f.lo || f.width() > 32) throw std::runtime_error("fields.csv: bad range in " + line);
    rows.push_back(f);
  }
  if (rows.empty()) throw std::runtime_error("fields.csv: no fields");
  return rows;
}

}  // namespace

const std::vector<HeaderField>& header_fields() {
  static const std::vector<HeaderField> rows = load();
  return rows;
}

std::vector<HeaderField> header_fields(unsigned version) {
  std::vector<HeaderField> out;
  for (const auto& f : header_fields()) {
    if (f.version == version) out.push_back(f);
  }
  return out;
}

HeaderField header_field(unsigned version, const std::string& field) {
  for (const auto& f : header_fields()) {
    if (f.version == version && f.field == field) return f;
  }
  throw std::runtime_error("fields.csv has no " + field + " for version " + std::to_string(version));
}

std::string describe(const HeaderField& f) {
  return "V0" + std::to_string(f.version) + "_00 " + f.field + " (" + f.header_name + ", MW(" +
         std::to_string(f.hi) + ":" + std::to_string(f.lo) + "))";
}

qmd::QmdVersion version_of(unsigned number) {
  switch (number) {
    case 3: return qmd::QmdVersion::V03_00;
    case 4: return qmd::QmdVersion::V04_00;
    case 5: return qmd::QmdVersion::V05_00;
  }
  throw std::runtime_error("no QMD version " + std::to_string(number));
}

void set_bits(std::vector<std::uint32_t>& words, unsigned hi, unsigned lo, std::uint64_t value) {
  for (unsigned bit = lo; bit <= hi; ++bit) {
    const std::uint32_t mask = 1u << (bit % 32);
    if ((value >> (bit - lo)) & 1) {
      words.at(bit / 32) |= mask;
    } else {
      words.at(bit / 32) &= ~mask;
    }
  }
}

std::uint64_t get_bits(const std::vector<std::uint32_t>& words, unsigned hi, unsigned lo) {
  std::uint64_t value = 0;
  for (unsigned bit = hi + 1; bit-- > lo;) value = (value << 1) | ((words.at(bit / 32) >> (bit % 32)) & 1);
  return value;
}

std::vector<std::uint32_t> blank_qmd(unsigned version) {
  std::vector<std::uint32_t> words(qmd::qmd_words(version_of(version)), 0);
  const HeaderField major = header_field(version, "major_version");
  set_bits(words, major.hi, major.lo, version);
  return words;
}

namespace {

// Which member of Qmd a line describes, and which 32-bit half of it.
struct Part {
  enum Kind { Version, Minor, Grid, Block, Registers, Shared, Program, Cbank, CbankSize, CbankValid, Barrier, Sass,
              ReleaseEnable, ReleaseAddress, ReleasePayload };
  Kind kind;
  int index = 0;   // x, y, z for grid and block
  bool upper = false;
};

Part part_of(const HeaderField& f) {
  const std::string& n = f.field;
  if (n == "major_version") return {Part::Version};
  if (n == "minor_version") return {Part::Minor};
  if (n == "grid_width") return {Part::Grid, 0};
  if (n == "grid_height") return {Part::Grid, 1};
  if (n == "grid_depth") return {Part::Grid, 2};
  if (n == "block_x") return {Part::Block, 0};
  if (n == "block_y") return {Part::Block, 1};
  if (n == "block_z") return {Part::Block, 2};
  if (n == "registers") return {Part::Registers};
  if (n == "shared_memory") return {Part::Shared};
  if (n == "program_address_lower") return {Part::Program, 0, false};
  if (n == "program_address_upper") return {Part::Program, 0, true};
  if (n == "cbank0_address_lower") return {Part::Cbank, 0, false};
  if (n == "cbank0_address_upper") return {Part::Cbank, 0, true};
  if (n == "cbank0_size") return {Part::CbankSize};
  if (n == "cbank0_valid") return {Part::CbankValid};
  if (n == "barrier_count") return {Part::Barrier};
  if (n == "sass_version") return {Part::Sass};
  if (n == "release0_enable") return {Part::ReleaseEnable};
  if (n == "release0_address_lower") return {Part::ReleaseAddress, 0, false};
  if (n == "release0_address_upper") return {Part::ReleaseAddress, 0, true};
  if (n == "release0_payload_lower") return {Part::ReleasePayload, 0, false};
  if (n == "release0_payload_upper") return {Part::ReleasePayload, 0, true};
  throw std::runtime_error("fields.csv: unknown field " + n);
}

std::uint64_t half(std::uint64_t bytes, unsigned shift, bool upper) {
  const std::uint64_t stored = bytes >> shift;
  return upper ? stored >> 32 : stored & 0xffffffffull;
}

void set_half(std::uint64_t& bytes, unsigned shift, bool upper, std::uint64_t raw) {
  std::uint64_t stored = bytes >> shift;
  stored = upper ? ((stored & 0xffffffffull) | (raw << 32)) : ((stored & ~0xffffffffull) | raw);
  bytes = stored << shift;
}

}  // namespace

std::uint64_t get_part(const qmd::Qmd& q, const HeaderField& f) {
  const Part p = part_of(f);
  switch (p.kind) {
    case Part::Version: return static_cast<unsigned>(q.version);
    case Part::Minor: return q.minor_version;
    case Part::Grid: return q.grid[p.index];
    case Part::Block: return q.block[p.index];
    case Part::Registers: return q.registers;
    case Part::Shared: return q.shared_memory >> f.shift;
    case Part::Program: return half(q.program_address, f.shift, p.upper);
    case Part::Cbank: return half(q.cbank0.address, f.shift, p.upper);
    case Part::CbankSize: return q.cbank0.size >> f.shift;
    case Part::CbankValid: return q.cbank0.valid ? 1 : 0;
    case Part::Barrier: return q.barrier_count;
    case Part::Sass: return q.sass_version;
    case Part::ReleaseEnable: return q.release0.enable ? 1 : 0;
    case Part::ReleaseAddress: return half(q.release0.address, 0, p.upper);
    case Part::ReleasePayload: return half(q.release0.payload, 0, p.upper);
  }
  return 0;
}

void set_part(qmd::Qmd& q, const HeaderField& f, std::uint64_t raw) {
  const Part p = part_of(f);
  switch (p.kind) {
    case Part::Version: q.version = version_of(static_cast<unsigned>(raw)); break;
    case Part::Minor: q.minor_version = static_cast<std::uint32_t>(raw); break;
    case Part::Grid: q.grid[p.index] = static_cast<std::uint32_t>(raw); break;
    case Part::Block: q.block[p.index] = static_cast<std::uint32_t>(raw); break;
    case Part::Registers: q.registers = static_cast<std::uint32_t>(raw); break;
    case Part::Shared: q.shared_memory = static_cast<std::uint32_t>(raw << f.shift); break;
    case Part::Program: set_half(q.program_address, f.shift, p.upper, raw); break;
    case Part::Cbank: set_half(q.cbank0.address, f.shift, p.upper, raw); break;
    case Part::CbankSize: q.cbank0.size = static_cast<std::uint32_t>(raw << f.shift); break;
    case Part::CbankValid: q.cbank0.valid = raw != 0; break;
    case Part::Barrier: q.barrier_count = static_cast<std::uint32_t>(raw); break;
    case Part::Sass: q.sass_version = static_cast<std::uint32_t>(raw); break;
    case Part::ReleaseEnable: q.release0.enable = raw != 0; break;
    case Part::ReleaseAddress: set_half(q.release0.address, 0, p.upper, raw); break;
    case Part::ReleasePayload: set_half(q.release0.payload, 0, p.upper, raw); break;
  }
}

qmd::Qmd table_decode(const std::vector<std::uint32_t>& words, unsigned version) {
  qmd::Qmd q;
  q.version = version_of(version);
  for (const auto& f : header_fields(version)) {
    if (f.field != "major_version") set_part(q, f, get_bits(words, f.hi, f.lo));
  }
  return q;
}

std::string mw(unsigned hi, unsigned lo) { return "MW(" + std::to_string(hi) + ":" + std::to_string(lo) + ")"; }

std::vector<std::string> set_bit_runs(std::span<const std::uint32_t> words, unsigned version) {
  // Which range of the header each bit belongs to (-1: none of the covered ones).
  const std::vector<HeaderField> fields = header_fields(version);
  auto owner = [&](unsigned bit) {
    for (std::size_t i = 0; i < fields.size(); ++i) {
      if (bit >= fields[i].lo && bit <= fields[i].hi) return static_cast<int>(i);
    }
    return -1;
  };
  std::vector<std::string> runs = {std::to_string(words.size()) + " words"};
  const unsigned bits = static_cast<unsigned>(words.size() * 32);
  auto set = [&](unsigned b) { return b < bits && ((words[b / 32] >> (b % 32)) & 1) != 0; };
  for (unsigned bit = 0; bit < bits;) {
    if (!set(bit)) {
      ++bit;
      continue;
    }
    const unsigned lo = bit;
    const int field = owner(lo);
    while (set(bit) && owner(bit) == field) ++bit;
    runs.push_back(mw(bit - 1, lo) + " " + (field < 0 ? std::string("(no covered field)") : fields[field].header_name));
  }
  return runs;
}

std::vector<std::string> hex_words(std::span<const std::uint32_t> words) {
  std::vector<std::string> out;
  char buffer[16];
  for (std::uint32_t w : words) {
    std::snprintf(buffer, sizeof buffer, "0x%08x", w);
    out.push_back(buffer);
  }
  return out;
}

std::vector<std::uint32_t> covered_mask(unsigned version) {
  std::vector<std::uint32_t> mask(qmd::qmd_words(version_of(version)), 0);
  for (const auto& f : header_fields(version)) set_bits(mask, f.hi, f.lo, f.all_ones());
  return mask;
}

}  // namespace launchlab::qmd_tests
