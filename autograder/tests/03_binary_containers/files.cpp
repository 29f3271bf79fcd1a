#include "files.h"

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "launchlab/testing.h"

namespace launchlab::containers_tests {
namespace fs = std::filesystem;
namespace lt = launchlab::testing;

namespace {


std::uint64_t hex(const std::string& s) { return std::stoull(s, nullptr, 16); }
std::uint64_t number(const std::string& s) {
  return s.rfind("0x", 0) == 0 ? std::stoull(s.substr(2), nullptr, 16) : std::stoull(s);
}

}  // namespace

std::vector<std::byte> bytes_of(const fs::path& path) {
  std::string text = lt::read_file(path);
  std::vector<std::byte> bytes(text.size());
  std::transform(text.begin(), text.end(), bytes.begin(), [](char c) { return static_cast<std::byte>(c); });
  return bytes;
}

fs::path fixture_path(std::string_view name) { return lt::test_data("03_binary_containers/fixtures/" + std::string(name)); }
std::string fixture_text(std::string_view name) { return lt::read_file(fixture_path(name)); }

std::vector<std::string> cubin_stems() {
  return {"vadd.sm_80", "vadd.sm_86", "vadd.sm_89", "vadd.sm_90", "vadd.sm_100", "vadd.sm_120",
          "zoo.sm_80",  "zoo.sm_90",  "zoo.sm_100", "zoo.sm_120"};
}
fs::path cubin_path(const std::string& stem) { return lt::test_data("02_reading_sass/fixtures/" + stem + ".cubin"); }
int stem_arch(const std::string& stem) { return std::stoi(stem.substr(stem.find("sm_") + 3)); }

std::optional<fs::path> readelf() { return lt::find_cuda_tool("readelf"); }

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
    s.address = hex(m[4].str());
    s.offset = hex(m[5].str());
    s.size = hex(m[6].str());
    s.entry_size = hex(m[7].str());
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
    s.value = hex(m[2].str());
    s.size = number(m[3].str());
    s.type = m[4].str();
    s.binding = m[5].str();
    s.other = m[7].matched ? static_cast<std::uint8_t>(hex(m[7].str())) : 0;
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
    if (t.rfind("Flags: ", 0) == 0) h.flags = static_cast<std::uint32_t>(hex(t.substr(7, t.find(',') - 7)));
    if (t.rfind("ABI Version: ", 0) == 0) h.abi_version = std::stoi(t.substr(13));
    if (t.rfind("Type: ", 0) == 0) h.type = t.substr(6, t.find(' ', 6) - 6);
  }
  return h;
}

std::map<std::string, std::vector<TruthAttribute>> cuobjdump_nv_info(std::string_view cuobjdump_elf) {
  static const std::regex section_re(R"(^\s*(?:\.section\s+)?(\.[A-Za-z_][\w.$]*)\s*$)");
  static const std::regex attribute_re(R"(^\s*Attribute:\s*(\w+)\s*$)");
  static const std::regex format_re(R"(^\s*Format:\s*(\w+)\s*$)");
  static const std::regex value_re(R"(^\s*Value:\s*(.*)$)");
  static const std::regex number_re(R"(^\s*<0x[0-9a-f]+>\s*$)");
  std::map<std::string, std::vector<TruthAttribute>> sections;
  std::string section;
  bool in_value = false;
  for (const auto& line : lt::lines_of(cuobjdump_elf)) {
    std::smatch m;
    if (std::regex_match(line, m, section_re)) {
      section = m[1].str().rfind(".nv.info", 0) == 0 ? m[1].str() : "";
      in_value = false;
    } else if (section.empty()) {
      continue;
    } else if (std::regex_match(line, m, attribute_re)) {
      sections[section].push_back({m[1].str(), "", ""});
      in_value = false;
    } else if (sections[section].empty()) {
      continue;
    } else if (std::regex_match(line, m, format_re)) {
      sections[section].back().format = m[1].str();
    } else if (std::regex_match(line, m, value_re)) {
      sections[section].back().value = lt::collapse_spaces(m[1].str());
      in_value = true;
    } else if (std::regex_match(line, number_re) || lt::collapse_spaces(line).empty()) {
      in_value = false;
    } else if (in_value) {
      std::string more = lt::collapse_spaces(line);
      if (more.rfind(" ", 0) == 0) more.erase(0, 1);
      sections[section].back().value += " " + more;
    }
  }
  return sections;
}

std::map<std::string, TruthKernel> cuobjdump_kernels(std::string_view cuobjdump_elf) {
  static const std::regex kparam_re(R"(Ordinal\s*:\s*0x([0-9a-f]+)\s+Offset\s*:\s*0x([0-9a-f]+)\s+Size\s*:\s*0x([0-9a-f]+))");
  static const std::regex two_hex_re(R"(^0x([0-9a-f]+) 0x([0-9a-f]+)\b.*$)");
  static const std::regex three_hex_re(R"(^0x([0-9a-f]+) 0x([0-9a-f]+) 0x([0-9a-f]+)\b.*$)");
  // .nv.info: "function: NAME(0x8) register count: 12" style lines; see fixtures.
  static const std::regex per_function_re(R"(function:\s*(\S+?)\(0x[0-9a-f]+\)\s*[^:]*:\s*(\d+|0x[0-9a-f]+))");
  std::map<std::string, TruthKernel> kernels;
  for (const auto& [section, attributes] : cuobjdump_nv_info(cuobjdump_elf)) {
    if (section == ".nv.info") {
      for (const auto& a : attributes) {
        std::smatch m;
        if (!std::regex_search(a.value, m, per_function_re)) continue;
        std::uint32_t v = static_cast<std::uint32_t>(number(m[2].str()));
        if (a.name == "EIATTR_REGCOUNT") kernels[m[1].str()].registers = v;
        if (a.name == "EIATTR_FRAME_SIZE") kernels[m[1].str()].frame_size = v;
      }
      continue;
    }
    std::string name = section.substr(std::string(".nv.info.").size());
    TruthKernel& k = kernels[name];
    for (const auto& a : attributes) {
      std::smatch m;
      if (a.name == "EIATTR_PARAM_CBANK" && std::regex_match(a.value, m, two_hex_re)) {
        std::uint64_t v = hex(m[2].str());
        k.param_base = static_cast<std::uint32_t>(v & 0xffff);
        k.param_size = static_cast<std::uint32_t>(v >> 16);
      } else if (a.name == "EIATTR_KPARAM_INFO" && std::regex_search(a.value, m, kparam_re)) {
        k.params.push_back({static_cast<std::uint32_t>(hex(m[1].str())), static_cast<std::uint32_t>(hex(m[2].str())),
                            static_cast<std::uint32_t>(hex(m[3].str()))});
      } else if (a.name == "EIATTR_MAX_THREADS" && std::regex_match(a.value, m, three_hex_re)) {
        k.max_threads = static_cast<std::uint32_t>(hex(m[1].str()) * hex(m[2].str()) * hex(m[3].str()));
      }
    }
    std::sort(k.params.begin(), k.params.end(), [](const auto& a, const auto& b) { return a.ordinal < b.ordinal; });
  }
  return kernels;
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

std::vector<std::pair<std::string, int>> entry_list(const FatbinFile& file) {
  std::vector<std::pair<std::string, int>> entries;
  for (const auto& c : file.containers) {
    for (const auto& e : c.entries)
      entries.emplace_back(e.kind == 1 ? "ptx" : e.kind == 2 ? "elf" : "kind " + std::to_string(e.kind),
                           static_cast<int>(e.arch));
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

const fs::path& work_dir() {
  static lt::TempDir dir;
  static const bool copied = [] {
    for (const char* k : {"vadd.cu", "zoo.cu"})
      fs::copy_file(lt::test_data(std::string("02_reading_sass/kernels/") + k), dir.path() / k);
    for (const char* k : {"main.cu", "stack.cu"})
      fs::copy_file(lt::test_data(std::string("03_binary_containers/kernels/") + k), dir.path() / k);
    return true;
  }();
  (void)copied;
  return dir.path();
}

std::vector<std::string> describe(const std::vector<KernelParam>& params) {
  std::vector<std::string> out;
  for (const auto& p : params) {
    std::ostringstream s;
    s << "{ordinal " << p.ordinal << " offset " << p.offset << " size " << p.size << "}";
    out.push_back(s.str());
  }
  return out;
}

}  // namespace launchlab::containers_tests
