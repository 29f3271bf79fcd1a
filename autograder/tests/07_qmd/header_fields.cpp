#include "header_fields.h"

#include <algorithm>
#include <map>
#include <random>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "launchlab/bytes.h"

namespace launchlab::qmd {
namespace {

using launchlab::bytes::hex;

std::string scaled_range(const ScaledField& f) {
  return "MW(" + std::to_string(f.field.hi) + ":" + std::to_string(f.field.lo) + ")" +
         (f.shift ? " SHIFTED" + std::to_string(f.shift) : std::string());
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

nlohmann::json record_value(const Layout& l) {
  const unsigned number = static_cast<unsigned>(l.version);
  auto three = [](const std::array<ScaledField, 3>& f) {
    return nlohmann::json::array({scaled_range(f[0]), scaled_range(f[1]), scaled_range(f[2])});
  };
  return {
      {"version", number >= 3 && number <= 5 ? to_string(l.version) : "version " + std::to_string(number)},
      {"major_version", scaled_range(l.major_version)},
      {"minor_version", scaled_range(l.minor_version)},
      {"grid", three(l.grid)},
      {"block", three(l.block)},
      {"registers", scaled_range(l.registers)},
      {"shared_memory", scaled_range(l.shared_memory)},
      {"program_address_lower", scaled_range(l.program_address_lower)},
      {"program_address_upper", scaled_range(l.program_address_upper)},
      {"cbank0_address_lower", scaled_range(l.cbank0_address_lower)},
      {"cbank0_address_upper", scaled_range(l.cbank0_address_upper)},
      {"cbank0_size", scaled_range(l.cbank0_size)},
      {"cbank0_valid", scaled_range(l.cbank0_valid)},
      {"barrier_count", scaled_range(l.barrier_count)},
      {"sass_version", scaled_range(l.sass_version)},
      {"release0_enable", scaled_range(l.release0_enable)},
      {"release0_address_lower", scaled_range(l.release0_address_lower)},
      {"release0_address_upper", scaled_range(l.release0_address_upper)},
      {"release0_payload_lower", scaled_range(l.release0_payload_lower)},
      {"release0_payload_upper", scaled_range(l.release0_payload_upper)},
  };
}

}  // namespace launchlab::qmd

namespace launchlab::qmd_tests {
namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, separator)) parts.push_back(part);
  if (!text.empty() && text.back() == separator) parts.emplace_back();
  return parts;
}

Rows load() {
  const std::string_view text = lab_files::lab_07_qmd("headers/fields.csv");
  if (text.empty()) throw std::runtime_error("the lab has no headers/fields.csv");
  std::istringstream in{std::string(text)};
  Rows rows;
  std::string line;
  bool header_seen = false;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (!header_seen) {
      if (line != "version,field,header_name,hi,lo,stride,values") {
        throw std::runtime_error("fields.csv: unexpected header " + line);
      }
      header_seen = true;
      continue;
    }
    const std::vector<std::string> cells = split(line, ',');
    if (cells.size() != 7) throw std::runtime_error("fields.csv: bad line " + line);
    HeaderField f;
    f.version = static_cast<unsigned>(std::stoul(cells[0]));
    f.field = cells[1];
    f.header_name = cells[2];
    f.hi = static_cast<unsigned>(std::stoul(cells[3]));
    f.lo = static_cast<unsigned>(std::stoul(cells[4]));
    f.stride = static_cast<unsigned>(std::stoul(cells[5]));
    std::smatch shifted;
    if (std::regex_search(f.header_name, shifted, std::regex("_SHIFTED([0-9]+)$"))) {
      f.shift = static_cast<unsigned>(std::stoul(shifted[1]));
    }
    for (const auto& value : split(cells[6], ' ')) {
      if (value.empty()) continue;
      const auto equals = value.find('=');
      if (equals == std::string::npos) throw std::runtime_error("fields.csv: bad value in " + line);
      f.values.emplace_back(value.substr(0, equals), value.substr(equals + 1));
    }
    if (f.hi < f.lo || f.width() > 32) throw std::runtime_error("fields.csv: bad range in " + line);
    rows.push_back(f);
  }
  if (rows.empty()) throw std::runtime_error("fields.csv: no fields");
  return rows;
}

}  // namespace

const Rows& table_rows() {
  static const Rows rows = load();
  return rows;
}

Rows header_fields(unsigned version) {
  Rows out;
  for (const auto& f : table_rows()) {
    if (f.version == version && f.covered()) out.push_back(f);
  }
  return out;
}

HeaderField header_field(const Rows& rows, const std::string& field) {
  for (const auto& f : rows) {
    if (f.field == field) return f;
  }
  throw std::runtime_error("fields.csv has no " + field);
}

HeaderField header_field(unsigned version, const std::string& field) {
  return header_field(header_fields(version), field);
}

std::string describe(const HeaderField& f) {
  return version_name(f.version) + " " + f.field + " (" + f.header_name + (f.stride ? "(0)" : "") + ", " +
         mw(f.hi, f.lo) + ")";
}

qmd::QmdVersion version_of(unsigned number) {
  switch (number) {
    case 3: return qmd::QmdVersion::V03_00;
    case 4: return qmd::QmdVersion::V04_00;
    case 5: return qmd::QmdVersion::V05_00;
  }
  throw std::runtime_error("no QMD version " + std::to_string(number));
}

std::string version_name(unsigned number) { return "V0" + std::to_string(number) + "_00"; }

std::string course_prefix(unsigned version) {
  // The classes whose headers fields.csv was read from.
  const char* klass = version == 3 ? "C6C0" : version == 4 ? "CBC0" : "CDC0";
  return "NV" + std::string(klass) + "_QMD" + version_name(version) + "_";
}

qmd::Layout table_layout(const Rows& rows, unsigned version) {
  qmd::Layout l;
  l.version = version_of(version);
  auto at = [&](const std::string& field) {
    const HeaderField f = header_field(rows, field);
    return qmd::ScaledField{{f.hi, f.lo}, f.shift};
  };
  l.major_version = at("major_version");
  l.minor_version = at("minor_version");
  l.grid = {at("grid_width"), at("grid_height"), at("grid_depth")};
  l.block = {at("block_x"), at("block_y"), at("block_z")};
  l.registers = at("registers");
  l.shared_memory = at("shared_memory");
  l.program_address_lower = at("program_address_lower");
  l.program_address_upper = at("program_address_upper");
  l.cbank0_address_lower = at("cbank0_address_lower");
  l.cbank0_address_upper = at("cbank0_address_upper");
  l.cbank0_size = at("cbank0_size");
  l.cbank0_valid = at("cbank0_valid");
  l.barrier_count = at("barrier_count");
  l.sass_version = at("sass_version");
  l.release0_enable = at("release0_enable");
  l.release0_address_lower = at("release0_address_lower");
  l.release0_address_upper = at("release0_address_upper");
  l.release0_payload_lower = at("release0_payload_lower");
  l.release0_payload_upper = at("release0_payload_upper");
  return l;
}

std::string write_header(const Rows& rows, const std::string& prefix) {
  std::string out = "/* A header in the notation of NVIDIA's class headers, written by the tests. */\n\n";
  for (const auto& f : rows) {
    std::string name = prefix + f.header_name;
    std::string range = mw(f.hi, f.lo);
    if (f.stride) {
      name += "(i)";
      const std::string step = "+(i)*" + std::to_string(f.stride) + ")";
      range = "MW((" + std::to_string(f.hi) + step + ":(" + std::to_string(f.lo) + step + ")";
    }
    name.resize(std::max<std::size_t>(name.size(), 58), ' ');
    out += "#define " + name + " " + range + "\n";
    for (const auto& [value, number] : f.values) out += "#define " + prefix + f.header_name + "_" + value + " " + number + "\n";
  }
  return out;
}

Rows moved_rows(unsigned version, std::uint32_t seed) {
  Rows rows = header_fields(version);
  std::mt19937 rng(seed);
  std::shuffle(rows.begin(), rows.end(), rng);
  const unsigned bits = static_cast<unsigned>(qmd::qmd_words(version_of(version)) * 32);
  // Each range at the next free bit, or at the next word when it would cross
  // one, with a random gap of up to 40 bits before it.
  unsigned next = 0;
  for (auto& f : rows) {
    const unsigned width = f.width();
    unsigned lo = next + static_cast<unsigned>(rng() % 41);
    if (lo / 32 != (lo + width - 1) / 32) lo = (lo / 32 + 1) * 32;
    f.lo = lo;
    f.hi = lo + width - 1;
    next = f.hi + 1;
  }
  if (next > bits) throw std::runtime_error("moved_rows: the made-up layout does not fit");
  return rows;
}

namespace {

// One bound as describe_define writes it: "416", or "(416+(i)*4)" with a term
// for each parameter it moves with, in the order of the parameter list.
std::string bound_text(unsigned base, const std::vector<unsigned>& steps, const std::vector<std::string>& parameters) {
  std::string terms;
  for (std::size_t k = 0; k < steps.size() && k < parameters.size(); ++k) {
    if (steps[k] != 0) terms += "+(" + parameters[k] + ")*" + std::to_string(steps[k]);
  }
  return terms.empty() ? std::to_string(base) : "(" + std::to_string(base) + terms + ")";
}

std::string list_text(const std::vector<std::string>& parameters) {
  if (parameters.empty()) return "";
  std::string out = "(";
  for (std::size_t k = 0; k < parameters.size(); ++k) out += (k ? "," : "") + parameters[k];
  return out + ")";
}

}  // namespace

std::vector<std::string> reference_defines(std::string_view header_text) {
  static const std::string bound =
      R"(\s*([0-9]+|\(\s*[0-9]+(?:\s*\+\s*\(\s*\w+\s*\)\s*\*\s*[0-9]+)+\s*\))\s*)";
  static const std::regex define(R"(^[ \t]*#[ \t]*define[ \t]+(\w+)(?:\(([\w ,\t]+)\))?[ \t]+MW\()" + bound + ":" +
                                 bound + R"(\).*$)");
  static const std::regex term(R"(\+\s*\(\s*(\w+)\s*\)\s*\*\s*([0-9]+))");
  static const std::regex base(R"(^\(?\s*([0-9]+))");
  std::vector<std::string> out;
  std::istringstream in{std::string(header_text)};
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::smatch m;
    if (!std::regex_match(line, m, define)) continue;
    std::vector<std::string> parameters;
    for (const auto& name : split(m[2], ',')) {
      const auto first = name.find_first_not_of(" \t"), last = name.find_last_not_of(" \t");
      if (first != std::string::npos) parameters.push_back(name.substr(first, last - first + 1));
    }
    auto text = [&](const std::string& bound_source) {
      std::smatch b;
      std::regex_search(bound_source, b, base);
      std::vector<unsigned> steps(parameters.size(), 0);
      for (std::sregex_iterator t(bound_source.begin(), bound_source.end(), term), end; t != end; ++t) {
        const auto at = std::find(parameters.begin(), parameters.end(), (*t)[1].str());
        if (at != parameters.end()) steps[static_cast<std::size_t>(at - parameters.begin())] = std::stoul((*t)[2]);
      }
      return bound_text(static_cast<unsigned>(std::stoul(b[1])), steps, parameters);
    };
    out.push_back(std::string(m[1]) + list_text(parameters) + " MW(" + text(m[3]) + ":" + text(m[4]) + ")");
  }
  return out;
}

std::string describe_define(const qmd::MwDefine& d) {
  return d.name + list_text(d.parameters) + " MW(" + bound_text(d.hi_base, d.hi_steps, d.parameters) + ":" +
         bound_text(d.lo_base, d.lo_steps, d.parameters) + ")";
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

std::vector<std::uint32_t> blank_qmd(const Rows& rows, unsigned version) {
  std::vector<std::uint32_t> words(qmd::qmd_words(version_of(version)), 0);
  const HeaderField major = header_field(rows, "major_version");
  set_bits(words, major.hi, major.lo, version);
  return words;
}

std::vector<std::uint32_t> blank_qmd(unsigned version) { return blank_qmd(header_fields(version), version); }

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
  static const std::map<std::string, Part, std::less<>> kParts = {
      {"major_version", {Part::Version}},
      {"minor_version", {Part::Minor}},
      {"grid_width", {Part::Grid, 0}},
      {"grid_height", {Part::Grid, 1}},
      {"grid_depth", {Part::Grid, 2}},
      {"block_x", {Part::Block, 0}},
      {"block_y", {Part::Block, 1}},
      {"block_z", {Part::Block, 2}},
      {"registers", {Part::Registers}},
      {"shared_memory", {Part::Shared}},
      {"program_address_lower", {Part::Program, 0, false}},
      {"program_address_upper", {Part::Program, 0, true}},
      {"cbank0_address_lower", {Part::Cbank, 0, false}},
      {"cbank0_address_upper", {Part::Cbank, 0, true}},
      {"cbank0_size", {Part::CbankSize}},
      {"cbank0_valid", {Part::CbankValid}},
      {"barrier_count", {Part::Barrier}},
      {"sass_version", {Part::Sass}},
      {"release0_enable", {Part::ReleaseEnable}},
      {"release0_address_lower", {Part::ReleaseAddress, 0, false}},
      {"release0_address_upper", {Part::ReleaseAddress, 0, true}},
      {"release0_payload_lower", {Part::ReleasePayload, 0, false}},
      {"release0_payload_upper", {Part::ReleasePayload, 0, true}},
  };
  const std::string& n = f.field;
  if (const auto it = kParts.find(n); it != kParts.end()) return it->second;
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

qmd::Qmd table_decode(const std::vector<std::uint32_t>& words, const Rows& rows, unsigned version) {
  qmd::Qmd q;
  q.version = version_of(version);
  for (const auto& f : rows) {
    if (f.field != "major_version") set_part(q, f, get_bits(words, f.hi, f.lo));
  }
  return q;
}

qmd::Qmd table_decode(const std::vector<std::uint32_t>& words, unsigned version) {
  return table_decode(words, header_fields(version), version);
}

std::string mw(unsigned hi, unsigned lo) { return "MW(" + std::to_string(hi) + ":" + std::to_string(lo) + ")"; }

std::vector<std::string> set_bit_runs(std::span<const std::uint32_t> words, const Rows& fields) {
  // Which range of the header each bit belongs to (-1: none of the covered ones).
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

std::vector<std::string> set_bit_runs(std::span<const std::uint32_t> words, unsigned version) {
  return set_bit_runs(words, header_fields(version));
}

std::vector<std::string> hex_words(std::span<const std::uint32_t> words) {
  std::vector<std::string> out;
  for (std::uint32_t w : words) out.push_back(launchlab::bytes::hex(w, 8));
  return out;
}

std::vector<std::uint32_t> covered_mask(const Rows& rows, unsigned version) {
  std::vector<std::uint32_t> mask(qmd::qmd_words(version_of(version)), 0);
  for (const auto& f : rows) set_bits(mask, f.hi, f.lo, f.all_ones());
  return mask;
}

std::vector<std::uint32_t> covered_mask(unsigned version) { return covered_mask(header_fields(version), version); }

std::string fixture_bytes(const std::string& name) {
  const std::string_view bytes = lab_files::lab_07_qmd("fixtures/" + name);
  if (bytes.empty()) throw std::runtime_error("the lab has no fixtures/" + name);
  return std::string(bytes);
}

}  // namespace launchlab::qmd_tests
