#include "listings.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "launchlab/testing.h"

namespace launchlab::sass_tests {
namespace fs = std::filesystem;
namespace lt = launchlab::testing;

namespace {

std::uint32_t hex(const std::string& s) { return static_cast<std::uint32_t>(std::stoul(s, nullptr, 16)); }

}  // namespace

std::vector<std::string> cubin_stems() {
  return {"vadd.sm_80", "vadd.sm_86", "vadd.sm_89", "vadd.sm_90", "vadd.sm_100", "vadd.sm_120",
          "zoo.sm_80",  "zoo.sm_90",  "zoo.sm_100", "zoo.sm_120"};
}

int stem_arch(const std::string& stem) { return std::stoi(stem.substr(stem.find("sm_") + 3)); }

std::string fixture(std::string_view name) {
  return lt::read_file(lt::test_data("02_reading_sass/fixtures/" + std::string(name)));
}

std::string fixture03(std::string_view name) {
  return lt::read_file(lt::test_data("03_binary_containers/fixtures/" + std::string(name)));
}

std::vector<TruthInstruction> truth_cuobjdump(std::string_view listing) {
  static const std::regex function_re(R"(^\s*Function : (\S+)\s*$)");
  static const std::regex arch_re(R"(^\s*code for sm_(\d+)[a-z]?\s*$)");
  static const std::regex ins_re(R"(^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;\s*/\* 0x[0-9a-f]{16} \*/\s*$)");
  std::vector<TruthInstruction> out;
  std::string function;
  int arch = 0, index = -1;
  for (const auto& line : lt::lines_of(listing)) {
    std::smatch m;
    if (std::regex_match(line, m, arch_re)) {
      arch = std::stoi(m[1].str());
    } else if (std::regex_match(line, m, function_re)) {
      function = m[1].str();
      ++index;
    } else if (std::regex_match(line, m, ins_re)) {
      out.push_back({function, arch, hex(m[1].str()), lt::collapse_spaces(m[2].str()), index});
    }
  }
  return out;
}

std::vector<TruthInstruction> truth_nvdisasm(std::string_view listing) {
  static const std::regex flags_re(R"(^\s*(?:\.headerflags\s.*EF_CUDA_SM|\.target\s+sm_)(\d+)\b.*$)");
  static const std::regex section_re(R"(^\s*\.section\s+([^,\s]+).*$)");
  static const std::regex ins_re(R"(^\s*/\*([0-9a-f]{4,})\*/\s+([^.\s].*?)\s*;\s*$)");
  std::vector<TruthInstruction> out;
  std::string function;
  int arch = 0, index = -1;
  bool code = false;
  for (const auto& line : lt::lines_of(listing)) {
    std::smatch m;
    if (std::regex_match(line, m, flags_re)) {
      arch = std::stoi(m[1].str());
    } else if (std::regex_match(line, m, section_re)) {
      std::string name = m[1].str();
      code = name.rfind(".text.", 0) == 0;
      if (code) {
        function = name.substr(6);
        ++index;
      }
    } else if (code && std::regex_match(line, m, ins_re)) {
      out.push_back({function, arch, hex(m[1].str()), lt::collapse_spaces(m[2].str()), index});
    }
  }
  return out;
}

std::vector<std::string> truth_functions(const std::vector<TruthInstruction>& lines) {
  std::vector<std::string> names;
  int index = -1;
  for (const auto& l : lines) {
    if (l.function_index != index) names.push_back(l.function);
    index = l.function_index;
  }
  return names;
}

::testing::AssertionResult same_as_truth(const std::vector<sass::Function>& functions,
                                         const std::vector<TruthInstruction>& truth) {
  std::vector<std::string> names;
  for (const auto& f : functions) names.push_back(f.name);
  if (auto same = lt::SameSequence(truth_functions(truth), names); !same) return same << " (function names)";
  std::size_t i = 0;
  for (const auto& f : functions) {
    for (const auto& ins : f.instructions) {
      if (i == truth.size())
        return ::testing::AssertionFailure() << "more instructions than the listing has, in " << f.name;
      const TruthInstruction& t = truth[i++];
      if (f.name != t.function)
        return ::testing::AssertionFailure() << "instruction " << i - 1 << " should be in " << t.function << ", it is in "
                                             << f.name;
      if (f.arch != t.arch)
        return ::testing::AssertionFailure() << f.name << ": architecture " << t.arch << " expected, got " << f.arch;
      if (ins.address != t.address)
        return ::testing::AssertionFailure() << f.name << ": instruction " << i - 1 << " `" << t.text << "` is at 0x"
                                             << std::hex << t.address << ", got 0x" << ins.address;
      if (render(ins) != t.text)
        return ::testing::AssertionFailure() << f.name << " at 0x" << std::hex << t.address << ": the listing says `"
                                             << t.text << "`, what was parsed writes back as `" << render(ins) << "`";
    }
  }
  if (i != truth.size())
    return ::testing::AssertionFailure() << i << " instructions parsed, the listing has " << truth.size();
  return ::testing::AssertionSuccess();
}

std::string render(const sass::Instruction& ins) {
  std::string text;
  if (!ins.predicate.empty()) text += "@" + ins.predicate + " ";
  text += ins.opcode;
  for (const auto& m : ins.modifiers) text += "." + m;
  for (std::size_t i = 0; i < ins.operands.size(); ++i) text += (i ? ", " : " ") + ins.operands[i];
  return text;
}

std::map<std::string, TruthKernel> truth_elf(std::string_view cuobjdump_elf) {
  static const std::regex section_re(R"(^\s*(?:\.section\s+)?\.nv\.info\.(\S+?)\s*$)");
  static const std::regex other_section_re(R"(^\s*(?:\.section\s+)?\.(?:nv|text|rel|symtab|strtab|shstrtab|debug|note)\S*\s*$)");
  static const std::regex attribute_re(R"(^\s*Attribute:\s*(EIATTR_\w+)\s*$)");
  static const std::regex cbank_re(R"(^\s*Value:\s*0x([0-9a-f]+)\s+0x([0-9a-f]+)\b.*$)");
  static const std::regex kparam_re(R"(Ordinal\s*:\s*0x([0-9a-f]+)\s+Offset\s*:\s*0x([0-9a-f]+)\s+Size\s*:\s*0x([0-9a-f]+))");
  std::map<std::string, TruthKernel> kernels;
  std::map<std::string, std::vector<std::pair<std::uint32_t, sass::ParamSlot>>> params;
  std::string kernel, attribute;
  for (const auto& line : lt::lines_of(cuobjdump_elf)) {
    std::smatch m;
    if (std::regex_match(line, m, section_re)) {
      kernel = m[1].str();
      kernels[kernel];
      attribute.clear();
    } else if (std::regex_match(line, m, other_section_re)) {
      kernel.clear();
    } else if (kernel.empty()) {
      continue;
    } else if (std::regex_match(line, m, attribute_re)) {
      attribute = m[1].str();
    } else if (attribute == "EIATTR_PARAM_CBANK" && std::regex_match(line, m, cbank_re)) {
      std::uint32_t v = hex(m[2].str());
      kernels[kernel].param_base = v & 0xffff;
      kernels[kernel].param_size = v >> 16;
    } else if (attribute == "EIATTR_KPARAM_INFO" && std::regex_search(line, m, kparam_re)) {
      params[kernel].push_back({hex(m[1].str()), {hex(m[2].str()), hex(m[3].str())}});
    }
  }
  for (auto& [name, list] : params) {
    std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& p : list) kernels[name].params.push_back(p.second);
  }
  return kernels;
}

std::map<std::string, int> truth_res_usage(std::string_view res_usage) {
  static const std::regex function_re(R"(^\s*Function (\S+):\s*$)");
  static const std::regex reg_re(R"(\bREG:(\d+)\b)");
  std::map<std::string, int> regs;
  std::string function;
  for (const auto& line : lt::lines_of(res_usage)) {
    std::smatch m;
    if (std::regex_match(line, m, function_re)) function = m[1].str();
    else if (!function.empty() && std::regex_search(line, m, reg_re)) regs[function] = std::stoi(m[1].str());
  }
  return regs;
}

// The opcode with modifiers of an instruction's text: the first word after
// the predicate.
std::string truth_opcode(const std::string& text) {
  std::size_t start = text[0] == '@' ? text.find(' ') + 1 : 0;
  std::size_t end = text.find(' ', start);
  return text.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

std::string truth_mnemonic(const std::string& text) {
  std::string op = truth_opcode(text);
  return op.substr(0, op.find('.'));
}

std::vector<TruthInstruction> of_function(const std::vector<TruthInstruction>& all, const std::string& name) {
  std::vector<TruthInstruction> out;
  for (const auto& t : all) {
    if (t.function == name) out.push_back(t);
  }
  return out;
}

// Every c[0x0][X] of each instruction, in order, mapped onto the parameters.
std::vector<sass::ParamRead> truth_reads(const std::vector<TruthInstruction>& lines, std::uint32_t base,
                                   const std::vector<sass::ParamSlot>& params) {
  static const std::regex c_re(R"(\bc\[0x0\]\[0x([0-9a-f]+)\])");
  std::vector<sass::ParamRead> reads;
  for (const auto& t : lines) {
    for (auto it = std::sregex_iterator(t.text.begin(), t.text.end(), c_re); it != std::sregex_iterator(); ++it) {
      std::uint32_t offset = static_cast<std::uint32_t>(std::stoul((*it)[1].str(), nullptr, 16));
      if (offset < base) continue;
      for (std::size_t i = 0; i < params.size(); ++i) {
        if (offset - base >= params[i].offset && offset - base < params[i].offset + params[i].size) {
          reads.push_back({t.address, truth_opcode(t.text), i, offset - base - params[i].offset});
          break;
        }
      }
    }
  }
  return reads;
}

std::string describe(const sass::ParamRead& r) {
  std::ostringstream out;
  out << "{0x" << std::hex << r.address << std::dec << " " << r.opcode << " param " << r.param << " +" << r.offset_in_param
      << "}";
  return out.str();
}
std::vector<std::string> describe(const std::vector<sass::ParamRead>& reads) {
  std::vector<std::string> out;
  for (const auto& r : reads) out.push_back(describe(r));
  return out;
}

const LiveBuild& live(const std::string& source, int arch) {
  static std::mutex mutex;
  static lt::TempDir root;
  static std::map<std::string, std::unique_ptr<LiveBuild>> built;
  std::lock_guard<std::mutex> lock(mutex);
  std::string key = source + "." + std::to_string(arch);
  if (auto it = built.find(key); it != built.end()) return *it->second;
  auto b = std::make_unique<LiveBuild>();
  fs::path dir = root.path() / key;
  fs::create_directories(dir);
  fs::copy_file(lt::test_data("02_reading_sass/kernels/" + source), dir / source);
  std::string stem = source.substr(0, source.find('.'));
  b->cubin = dir / (stem + ".cubin");
  lt::output_of({lt::nvcc().string(), "-cubin", "-arch=sm_" + std::to_string(arch), "-o", b->cubin.filename().string(), source},
               dir);
  if (auto cuobjdump = lt::find_cuda_tool("cuobjdump")) {
    b->cuobjdump_sass = lt::output_of({cuobjdump->string(), "-sass", b->cubin.filename().string()}, dir);
    b->cuobjdump_elf = lt::output_of({cuobjdump->string(), "-elf", b->cubin.filename().string()}, dir);
  }
  if (auto nvdisasm = lt::find_cuda_tool("nvdisasm")) {
    b->nvdisasm = lt::output_of({nvdisasm->string(), b->cubin.filename().string()}, dir);
  }
  return *built.emplace(key, std::move(b)).first->second;
}

const sass::Function* find(const std::vector<sass::Function>& functions, const std::string& name, int arch) {
  for (const auto& f : functions) {
    if (f.name == name && (arch == 0 || f.arch == arch)) return &f;
  }
  return nullptr;
}

}  // namespace launchlab::sass_tests
