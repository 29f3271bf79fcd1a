#include "listings.h"

#include <algorithm>
#include <functional>
#include <mutex>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "launchlab/testing.h"

namespace launchlab::sass {
using nlohmann::json;
using launchlab::bytes::hex;

json record_value(const ConstantOperand& c) { return {{"bank", c.bank}, {"offset", hex(c.offset)}}; }
json record_value(const ParamRead& r) {
  return {{"address", hex(r.address)}, {"opcode", r.opcode}, {"param", r.param}, {"offset_in_param", r.offset_in_param}};
}
json record_value(const MemoryCounts& m) {
  return {{"global_loads", m.global_loads},     {"global_stores", m.global_stores}, {"global_atomics", m.global_atomics},
          {"shared_loads", m.shared_loads},     {"shared_stores", m.shared_stores}, {"local_loads", m.local_loads},
          {"local_stores", m.local_stores},     {"constant_loads", m.constant_loads}};
}
json record_value(const ParamBank& b) { return {{"base", hex(b.base)}, {"size", b.size}}; }
json record_value(const RegisterUse& u) {
  return {{"general", u.general}, {"uniform", u.uniform}, {"predicates", u.predicates},
          {"uniform_predicates", u.uniform_predicates}};
}

}  // namespace launchlab::sass

namespace launchlab::sass_tests {
namespace fs = std::filesystem;
namespace lt = launchlab::testing;

namespace {

// "/*0040*/ ", as the listings begin an instruction line.
std::string address_comment(std::uint32_t address) {
  std::string digits = hex(address).substr(2);
  return "/*" + std::string(digits.size() < 4 ? 4 - digits.size() : 0, '0') + digits + "*/ ";
}

}  // namespace

std::string fixture(std::string_view name) {
  return lt::read_file(lt::lab_material("02_reading_sass/fixtures/" + std::string(name)));
}

std::string fixture03(std::string_view name) {
  return lt::read_file(lt::lab_material("03_binary_containers/fixtures/" + std::string(name)));
}

std::string render(const sass::Instruction& ins) {
  std::string text;
  if (!ins.predicate.empty()) text += "@" + ins.predicate + " ";
  text += ins.opcode;
  for (const auto& m : ins.modifiers) text += "." + m;
  for (std::size_t i = 0; i < ins.operands.size(); ++i) text += (i ? ", " : " ") + ins.operands[i];
  return text;
}

nlohmann::json record_value(const ListedFunction& f) {
  return {{"name", f.name}, {"arch", f.arch}, {"instructions", f.instructions}};
}

std::vector<ListedFunction> listed(const std::vector<sass::Function>& functions) {
  std::vector<ListedFunction> out;
  for (const auto& f : functions) {
    ListedFunction l{f.name, f.arch, {}};
    for (const auto& ins : f.instructions) l.instructions.push_back(address_comment(ins.address) + render(ins));
    out.push_back(std::move(l));
  }
  return out;
}

std::map<std::string, ElfLayout> elf_layouts(std::string_view cuobjdump_elf) {
  std::map<std::string, ElfLayout> layouts;
  for (const auto& [name, k] : cubin_fixtures::cuobjdump_kernels(cuobjdump_elf)) {
    ElfLayout& layout = layouts[name];
    layout.param_base = k.param_base;
    layout.param_size = k.param_size;
    for (const auto& p : k.params) layout.params.push_back({p.offset, p.size});
  }
  return layouts;
}

namespace {

const LiveBuild& live_build(const std::string& source, int arch) {
  const std::string key = source + "." + std::to_string(arch);
  return lt::made_once(key, [&] {
    LiveBuild b;
    const std::string stem = source.substr(0, source.find('.'));
    b.cubin = lt::nvcc_once(lt::lab_material("02_reading_sass/kernels/" + source), {"-cubin", "-arch=sm_" + std::to_string(arch)},
                            stem + ".sm_" + std::to_string(arch) + ".cubin")
                  .path;
    const fs::path dir = b.cubin.parent_path();
    const std::string cubin = b.cubin.filename().string();
    if (auto cuobjdump = lt::find_cuda_tool("cuobjdump")) {
      b.cuobjdump_sass = lt::output_of({cuobjdump->string(), "-sass", cubin}, dir);
      b.cuobjdump_elf = lt::output_of({cuobjdump->string(), "-elf", cubin}, dir);
    }
    if (auto nvdisasm = lt::find_cuda_tool("nvdisasm")) b.nvdisasm = lt::output_of({nvdisasm->string(), cubin}, dir);
    return b;
  });
}

}  // namespace

const LiveBuild& live(const std::string& source, int arch) {
  static std::once_flag every_build;
  std::call_once(every_build, [] {
    std::vector<std::function<void()>> builds;
    for (const char* each_source : kLiveSources) {
      for (int each_arch : kLiveArchs) builds.push_back([=] { (void)live_build(each_source, each_arch); });
    }
    lt::make_side_by_side(builds);
  });
  return live_build(source, arch);
}

const sass::Function* find(const std::vector<sass::Function>& functions, const std::string& name, int arch) {
  for (const auto& f : functions) {
    if (f.name == name && (arch == 0 || f.arch == arch)) return &f;
  }
  return nullptr;
}

#ifndef LAUNCHLAB_EXERCISE
namespace {

std::uint32_t parse_hex(const std::string& s) { return static_cast<std::uint32_t>(std::stoul(s, nullptr, 16)); }

// What both readings keep while they walk a listing: the architecture and
// the function the next instruction belongs to.
struct TruthListing {
  std::vector<TruthInstruction> instructions;
  std::string function;
  int arch = 0, index = -1;

  void start_function(std::string name) {
    function = std::move(name);
    ++index;
  }
  // m[1]: the address in hexadecimal, m[2]: the instruction's text.
  void add_instruction(const std::smatch& m) {
    instructions.push_back({function, arch, parse_hex(m[1].str()), lt::collapse_spaces(m[2].str()), index});
  }
};

}  // namespace

std::vector<TruthInstruction> truth_cuobjdump(std::string_view listing) {
  static const std::regex function_re(R"(^\s*Function : (\S+)\s*$)");
  static const std::regex arch_re(R"(^\s*code for sm_(\d+)[a-z]?\s*$)");
  static const std::regex ins_re(R"(^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;\s*/\* 0x[0-9a-f]{16} \*/\s*$)");
  TruthListing read;
  for (const auto& line : lt::lines_of(listing)) {
    std::smatch m;
    if (std::regex_match(line, m, arch_re)) {
      read.arch = std::stoi(m[1].str());
    } else if (std::regex_match(line, m, function_re)) {
      read.start_function(m[1].str());
    } else if (std::regex_match(line, m, ins_re)) {
      read.add_instruction(m);
    }
  }
  return read.instructions;
}

std::vector<TruthInstruction> truth_nvdisasm(std::string_view listing) {
  static const std::regex flags_re(R"(^\s*(?:\.headerflags\s.*EF_CUDA_SM|\.target\s+sm_)(\d+)\b.*$)");
  static const std::regex section_re(R"(^\s*\.section\s+([^,\s]+).*$)");
  static const std::regex ins_re(R"(^\s*/\*([0-9a-f]{4,})\*/\s+([^.\s].*?)\s*;\s*$)");
  TruthListing read;
  bool code = false;
  for (const auto& line : lt::lines_of(listing)) {
    std::smatch m;
    if (std::regex_match(line, m, flags_re)) {
      read.arch = std::stoi(m[1].str());
    } else if (std::regex_match(line, m, section_re)) {
      std::string name = m[1].str();
      code = name.rfind(".text.", 0) == 0;
      if (code) read.start_function(name.substr(6));
    } else if (code && std::regex_match(line, m, ins_re)) {
      read.add_instruction(m);
    }
  }
  return read.instructions;
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

std::vector<ListedFunction> truth_listed(const std::vector<TruthInstruction>& lines) {
  std::vector<ListedFunction> out;
  int index = -1;
  for (const auto& l : lines) {
    if (l.function_index != index) out.push_back({l.function, l.arch, {}});
    index = l.function_index;
    out.back().instructions.push_back(address_comment(l.address) + l.text);
  }
  return out;
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

std::map<std::string, sass::ParamBank> truth_param_banks(std::string_view cuobjdump_elf) {
  static const std::regex value_re(R"(^0x[0-9a-f]+ 0x([0-9a-f]+)\b.*$)");
  const std::string kInfoPrefix = ".nv.info.";
  std::map<std::string, sass::ParamBank> banks;
  for (const auto& [section, attributes] : cubin_fixtures::cuobjdump_nv_info(cuobjdump_elf)) {
    if (section.rfind(kInfoPrefix, 0) != 0) continue;
    for (const auto& a : attributes) {
      std::smatch m;
      if (a.name != "EIATTR_PARAM_CBANK" || !std::regex_match(a.value, m, value_re)) continue;
      const auto packed = std::stoul(m[1].str(), nullptr, 16);
      banks[section.substr(kInfoPrefix.size())] = {static_cast<std::uint32_t>(packed & 0xffff),
                                                   static_cast<std::uint32_t>(packed >> 16)};
    }
  }
  return banks;
}

// Every c[0x0][X] of each instruction, in order, mapped onto the parameters.
std::vector<sass::ParamRead> truth_reads(const std::vector<TruthInstruction>& lines, std::uint32_t base,
                                         const std::vector<sass::ParamSlot>& params) {
  static const std::regex c_re(R"(\bc\[0x0\]\[(-?)0x([0-9a-f]+)\])");
  // The listings print the 16-bit offset signed.
  constexpr std::uint32_t kBankOffsetSpan = 0x10000;
  std::vector<sass::ParamRead> reads;
  for (const auto& t : lines) {
    for (auto it = std::sregex_iterator(t.text.begin(), t.text.end(), c_re); it != std::sregex_iterator(); ++it) {
      std::uint32_t offset = static_cast<std::uint32_t>(std::stoul((*it)[2].str(), nullptr, 16));
      if ((*it)[1].length()) offset = kBankOffsetSpan - offset;
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
#endif  // LAUNCHLAB_EXERCISE

}  // namespace launchlab::sass_tests
