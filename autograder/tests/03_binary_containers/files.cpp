#include "files.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "launchlab/testing.h"

namespace launchlab::containers {
using nlohmann::json;
using containers_tests::hex;

json record_value(const KernelParam& p) { return {{"ordinal", p.ordinal}, {"offset", p.offset}, {"size", p.size}}; }

json record_value(const NvInfoRecord& r) {
  json payload = json::array();
  for (std::byte b : r.payload) payload.push_back(std::to_integer<unsigned>(b));
  return {{"offset", hex(r.offset)}, {"format", r.format}, {"attribute", hex(r.attribute)}, {"value", r.value},
          {"payload", payload}};
}

}  // namespace launchlab::containers

namespace launchlab::cubin_fixtures {

nlohmann::json record_value(const CuobjdumpParam& p) {
  return {{"ordinal", p.ordinal}, {"offset", p.offset}, {"size", p.size}};
}

}  // namespace launchlab::cubin_fixtures

namespace launchlab::containers_tests {
namespace fs = std::filesystem;
namespace lt = launchlab::testing;
using nlohmann::json;

json record_value(const Hex& h) { return hex(h.value); }

std::vector<std::byte> bytes_of(const fs::path& path) {
  std::string text = lt::read_file(path);
  std::vector<std::byte> bytes(text.size());
  std::transform(text.begin(), text.end(), bytes.begin(), [](char c) { return static_cast<std::byte>(c); });
  return bytes;
}

fs::path fixture_path(std::string_view name) { return lt::lab_material("03_binary_containers/fixtures/" + std::string(name)); }
std::string fixture_text(std::string_view name) { return lt::read_file(fixture_path(name)); }

std::string checksum(std::span<const std::byte> bytes) {
  std::uint64_t hash = 14695981039346656037ull;
  for (std::byte b : bytes) {
    hash ^= std::to_integer<std::uint64_t>(b);
    hash *= 1099511628211ull;
  }
  char text[24];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return std::to_string(bytes.size()) + " bytes, checksum " + text;
}

json record_value(const KernelFacts& f) {
  return {{"registers", lt::encode(f.registers)},   {"frame_size", lt::encode(f.frame_size)},
          {"param_base", hex(f.param_base)},        {"param_size", f.param_size},
          {"params", lt::encode(f.params)},         {"max_threads", lt::encode(f.max_threads)}};
}

KernelFacts facts_of(const containers::KernelInfo& k) {
  return {k.registers, k.frame_size, k.param_base, k.param_size, k.params, k.max_threads};
}

std::vector<std::string> sorted_kernel_names(const containers::CubinInfo& info) {
  std::vector<std::string> names;
  for (const auto& k : info.kernels) names.push_back(k.name);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::pair<std::string, int>> entry_list(const FatbinFile& file) {
  std::vector<std::pair<std::string, int>> entries;
  for (const auto& c : file.containers) {
    for (const auto& e : c.entries)
      entries.emplace_back(e.kind == 1 ? "ptx" : e.kind == 2 ? "elf" : "kind " + std::to_string(e.kind),
                           static_cast<int>(e.arch));
  }
  return entries;
}

std::optional<fs::path> readelf() { return lt::find_cuda_tool("readelf"); }

const fs::path& work_dir() {
  static lt::TempDir dir;
  static const bool copied = [] {
    for (const char* k : {"vadd.cu", "zoo.cu"})
      fs::copy_file(lt::lab_material(std::string("02_reading_sass/kernels/") + k), dir.path() / k);
    for (const char* k : {"main.cu", "stack.cu"})
      fs::copy_file(lt::lab_material(std::string("03_binary_containers/kernels/") + k), dir.path() / k);
    return true;
  }();
  (void)copied;
  return dir.path();
}

std::vector<std::string> describe_list(const std::vector<std::pair<std::string, int>>& list) {
  std::vector<std::string> out;
  for (const auto& [kind, arch] : list) out.push_back(kind + " " + std::to_string(arch));
  return out;
}

#ifndef LAUNCHLAB_EXERCISE
namespace {

std::uint64_t hex_number(const std::string& s) { return std::stoull(s, nullptr, 16); }
std::uint64_t number(const std::string& s) {
  return s.rfind("0x", 0) == 0 ? std::stoull(s.substr(2), nullptr, 16) : std::stoull(s);
}

}  // namespace

KernelFacts facts_of(const cubin_fixtures::CuobjdumpKernel& k) {
  KernelFacts f{k.registers, k.frame_size, k.param_base, k.param_size, {}, k.max_threads};
  for (const auto& p : k.params) f.params.push_back({p.ordinal, p.offset, p.size});
  return f;
}

std::vector<TruthSection> readelf_sections(const fs::path& file) {
  // [Nr] Name Type Address Off Size ES Flg Lk Inf Al
  static const std::regex row(
      R"(^\s*\[\s*(\d+)\]\s(.{0,}?)\s+(\S+)\s+([0-9a-f]{8,})\s+([0-9a-f]{6,})\s+([0-9a-f]{6,})\s+([0-9a-f]{2,})\s+([A-Za-z]*)\s+(\d+)\s+(\d+)\s+(\d+)\s*$)");
  std::vector<TruthSection> sections;
  for (const auto& line : lt::lines_of(lt::output_of({readelf()->string(), "-SW", file.string()}, {}))) {
    std::smatch m;
    if (!std::regex_match(line, m, row)) continue;
    TruthSection s;
    s.name = lt::collapse_spaces(m[2].str());
    s.address = hex_number(m[4].str());
    s.offset = hex_number(m[5].str());
    s.size = hex_number(m[6].str());
    s.entry_size = hex_number(m[7].str());
    s.link = static_cast<std::uint32_t>(std::stoul(m[9].str()));
    s.info = static_cast<std::uint32_t>(std::stoul(m[10].str()));
    s.alignment = std::stoull(m[11].str());
    sections.push_back(s);
  }
  return sections;
}

std::vector<TruthSymbol> readelf_symbols(const fs::path& file) {
  static const std::regex row(
      R"(^\s*(\d+):\s+([0-9a-f]+)\s+(\d+|0x[0-9a-f]+)\s+(\w+)\s+(\w+)\s+(\w+)(?:\s+\[<other>: ([0-9a-f]+)\])?\s+(\w+)\s?(.*)$)");
  std::vector<TruthSymbol> symbols;
  bool in_symtab = false;
  for (const auto& line : lt::lines_of(lt::output_of({readelf()->string(), "-sW", file.string()}, {}))) {
    if (line.rfind("Symbol table '", 0) == 0) {
      in_symtab = line.find("'.symtab'") != std::string::npos;
      continue;
    }
    std::smatch m;
    if (!in_symtab || !std::regex_match(line, m, row)) continue;
    TruthSymbol s;
    s.value = hex_number(m[2].str());
    s.size = number(m[3].str());
    s.type = m[4].str();
    s.binding = m[5].str();
    s.other = m[7].matched ? static_cast<std::uint8_t>(hex_number(m[7].str())) : 0;
    s.section = m[8].str();
    s.name = m[9].str();
    symbols.push_back(s);
  }
  return symbols;
}

TruthHeader readelf_header(const fs::path& file) {
  TruthHeader h;
  for (const auto& line : lt::lines_of(lt::output_of({readelf()->string(), "-h", file.string()}, {}))) {
    std::string t = lt::collapse_spaces(line);
    if (t.rfind(" ", 0) == 0) t.erase(0, 1);
    if (t.rfind("Flags: ", 0) == 0) h.flags = static_cast<std::uint32_t>(hex_number(t.substr(7, t.find(',') - 7)));
    if (t.rfind("ABI Version: ", 0) == 0) h.abi_version = std::stoi(t.substr(13));
    if (t.rfind("Type: ", 0) == 0) h.type = t.substr(6, t.find(' ', 6) - 6);
  }
  return h;
}

std::vector<std::pair<std::string, int>> cuobjdump_list(std::string_view listing) {
  static const std::regex row(R"(^(ELF|PTX) file\s+\d+:\s+.*\.sm_(\d+)[a-z]?\.(cubin|ptx)\s*$)");
  std::vector<std::pair<std::string, int>> entries;
  for (const auto& line : lt::lines_of(listing)) {
    std::smatch m;
    if (std::regex_match(line, m, row)) entries.emplace_back(m[1].str() == "ELF" ? "elf" : "ptx", std::stoi(m[2].str()));
  }
  return entries;
}

std::map<std::string, TruthPtxas> ptxas_verbose(std::string_view output) {
  static const std::regex entry_re(R"(Compiling entry function '([^']+)')");
  static const std::regex stack_re(R"((\d+) bytes stack frame)");
  static const std::regex used_re(R"(Used (\d+) registers)");
  static const std::regex cmem_re(R"((\d+) bytes cmem\[0\])");
  std::map<std::string, TruthPtxas> out;
  std::string entry;
  for (const auto& line : lt::lines_of(output)) {
    std::smatch m;
    if (std::regex_search(line, m, entry_re)) entry = m[1].str();
    if (entry.empty()) continue;
    if (std::regex_search(line, m, stack_re)) out[entry].stack_frame = static_cast<std::uint32_t>(std::stoul(m[1].str()));
    if (std::regex_search(line, m, used_re)) out[entry].registers = static_cast<std::uint32_t>(std::stoul(m[1].str()));
    if (std::regex_search(line, m, cmem_re)) out[entry].cmem0 = static_cast<std::uint32_t>(std::stoul(m[1].str()));
  }
  return out;
}

std::map<std::string, std::vector<KernelParam>> ptx_params(std::string_view ptx) {
  static const std::regex entry_re(R"(^\.(?:visible|weak)?\s*\.entry\s+([\w$]+)\s*\((\))?\s*$)");
  // ".param .u64 .ptr .align 1 name": from sm_100 on a pointer names its
  // pointee's alignment, which is not the parameter's.
  static const std::regex param_re(
      R"(^\s*\.param\s+(?:\.align\s+(\d+)\s+)?\.([a-z])(\d+)(?:\s+\.ptr(?:\s+\.[a-z]+)?\s+\.align\s+\d+)?\s+[\w$]+(?:\[(\d+)\])?,?\s*$)");
  std::map<std::string, std::vector<KernelParam>> out;
  std::string entry;
  std::uint32_t end = 0, ordinal = 0;
  for (const auto& line : lt::lines_of(ptx)) {
    std::smatch m;
    if (std::regex_match(line, m, entry_re)) {
      entry = m[1].str();
      out[entry];
      end = ordinal = 0;
      if (m[2].matched) entry.clear();
    } else if (!entry.empty() && std::regex_match(line, m, param_re)) {
      std::uint32_t element = static_cast<std::uint32_t>(std::stoul(m[3].str())) / 8;
      std::uint32_t size = element * (m[4].matched ? static_cast<std::uint32_t>(std::stoul(m[4].str())) : 1);
      std::uint32_t align = m[1].matched ? static_cast<std::uint32_t>(std::stoul(m[1].str())) : element;
      std::uint32_t offset = (end + align - 1) / align * align;
      out[entry].push_back({ordinal++, offset, size});
      end = offset + size;
    } else if (line == ")") {
      entry.clear();
    } else if (!entry.empty() && line.find(".param") != std::string::npos) {
      throw std::runtime_error("ptx_params: a parameter line the test does not understand: " + line);
    }
  }
  return out;
}
#endif  // LAUNCHLAB_EXERCISE

}  // namespace launchlab::containers_tests
