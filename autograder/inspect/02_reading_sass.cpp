// `launchlab inspect sass FILE [--param-base OFFSET]`: lab 02's parser and
// analyses on a listing (the output of cuobjdump -sass or nvdisasm), or on a
// cubin, object, executable or library, which this machine's nvdisasm (a
// cubin) or cuobjdump disassembles first.
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "launchlab/cli/arguments.h"
#include "sass.h"
#include "tool.h"

namespace {
using namespace launchlab::sass;

// The path of a CUDA tool, or nothing: the toolkit's own first, then PATH.
std::string find_tool(const std::string& name) {
  for (const std::string& candidate : {"/usr/local/cuda/bin/" + name, name}) {
    std::string probe = "command -v " + candidate + " >/dev/null 2>&1";
    if (std::system(probe.c_str()) == 0) return candidate;
  }
  return "";
}

// Whether the bytes are a cubin: an ELF file for machine 190 (EM_CUDA).
bool is_cubin(const std::string& bytes) {
  constexpr unsigned char kEmCuda = 190;
  return bytes.size() >= 20 && bytes.compare(0, 4, "\x7f" "ELF") == 0 &&
         static_cast<unsigned char>(bytes[18]) == kEmCuda && bytes[19] == 0;
}

// Disassembles a binary (no shell: the path is passed as is). A cubin goes
// to nvdisasm where it is installed, since its listing keeps each kernel's
// .nv.info and with it the parameter base; anything else to cuobjdump -sass.
std::string disassemble(const std::string& path, bool cubin) {
  std::string tool = cubin ? find_tool("nvdisasm") : "";
  if (!tool.empty()) {
    tool += " ";
  } else if (std::string cuobjdump = find_tool("cuobjdump"); !cuobjdump.empty()) {
    tool = cuobjdump + " -sass ";
  } else {
    throw std::runtime_error(path + " is a binary and neither cuobjdump nor nvdisasm is installed here; give a listing "
                             "made with `cuobjdump -sass` or `nvdisasm` instead");
  }
  std::string quoted = "'";
  for (char c : path) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  quoted += "'";
  std::FILE* p = ::popen((tool + quoted + " 2>&1").c_str(), "r");
  if (!p) throw std::runtime_error("cannot run " + tool);
  std::string text;
  char buffer[65536];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, p)) > 0) text.append(buffer, n);
  if (::pclose(p) != 0) throw std::runtime_error(tool + "failed on " + path + ":\n" + text);
  return text;
}

std::string hex(std::uint32_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}

std::string register_list(const char* prefix, const std::vector<int>& numbers) {
  if (numbers.empty()) return "-";
  std::string out;
  for (std::size_t i = 0; i < numbers.size();) {
    std::size_t j = i;
    while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1) ++j;
    if (!out.empty()) out += " ";
    out += prefix + std::to_string(numbers[i]);
    if (j > i) out += "-" + std::string(prefix) + std::to_string(numbers[j]);
    i = j + 1;
  }
  return out;
}

struct SassArgs {
  std::string file;
  std::string param_base;  ///< --param-base, for listings that do not say; empty when not given
};

// A bank offset given as decimal or 0x hexadecimal (checked by unsigned_64()).
std::uint32_t bank_offset(const std::string& text) {
  constexpr std::uint64_t kLargestOffset = 0xffff;
  const std::uint64_t value = std::stoull(text, nullptr, 0);
  if (value > kLargestOffset) throw std::runtime_error("--param-base " + text + " lies past constant bank 0's 64 KiB");
  return static_cast<std::uint32_t>(value);
}

// Where a function's parameters are, and what says so: its own
// EIATTR_PARAM_CBANK where the listing holds it (nvdisasm prints it),
// else --param-base, else the architecture's usual base for lists of up to
// 4,352 bytes.
struct Bank {
  std::uint32_t base = 0;
  std::uint32_t size = 0;
  std::string source;
};

Bank bank_of(const Function& f, const std::map<std::string, ParamBank>& listed, const std::optional<std::uint32_t>& given) {
  // Without the kernel's own size, the largest list there may be.
  constexpr std::uint32_t kLargestList = 32764;
  if (auto it = listed.find(f.name); it != listed.end()) return {it->second.base, it->second.size, "EIATTR_PARAM_CBANK"};
  if (given) return {*given, kLargestList, "--param-base"};
  return {param_base(f.arch), kLargestList, "sm_" + std::to_string(f.arch) + "'s usual base, for up to 4,352 bytes"};
}

int run_sass(const SassArgs& a) {
  // Read (and refused, when malformed) before any work; built with emplace,
  // which GCC's -Wmaybe-uninitialized does not misread as a conditional copy.
  std::optional<std::uint32_t> given_base;
  if (!a.param_base.empty()) given_base.emplace(bank_offset(a.param_base));
  std::string text = launchlab::inspect::file_bytes(a.file);
  bool binary = text.size() >= 4 && (text.compare(0, 4, "\x7f" "ELF") == 0 || text.compare(0, 4, "\x50\xed\x55\xba") == 0);
  if (binary) text = disassemble(a.file, is_cubin(text));
  bool nvdisasm = text.find(".section") != std::string::npos && text.find("Function :") == std::string::npos;
  std::vector<Function> functions = nvdisasm ? parse_nvdisasm(text) : parse_cuobjdump_sass(text);
  const std::map<std::string, ParamBank> banks = nvdisasm ? nvdisasm_param_banks(text) : std::map<std::string, ParamBank>{};
  const std::string& path = a.file;
  std::cout << path << ": " << functions.size() << " function(s), read as " << (nvdisasm ? "nvdisasm" : "cuobjdump -sass")
            << " output\n";
  for (const auto& f : functions) {
    std::cout << "\n" << f.name << " (sm_" << f.arch << "): " << f.instructions.size() << " instructions\n";
    if (f.arch >= 75) {
      // Without the parameter list, one slot spanning the whole buffer
      // gives each read's byte offset in the parameter buffer.
      const Bank bank = bank_of(f, banks, given_base);
      const ParamSlot whole[] = {{0, bank.size}};
      std::cout << "  parameter buffer at c[0x0][" << hex(bank.base) << "] (" << bank.source << "); bytes read:";
      auto reads = param_reads(f, bank.base, whole);
      if (reads.empty()) std::cout << " none";
      for (const auto& r : reads) std::cout << "\n    +" << std::left << std::setw(6) << r.offset_in_param << std::right << r.opcode << " at " << hex(r.address);
      std::cout << "\n";
    }
    MemoryCounts m = count_memory(f);
    std::cout << "  global       " << m.global_loads << " loads, " << m.global_stores << " stores, " << m.global_atomics
              << " atomics\n"
              << "  shared       " << m.shared_loads << " loads, " << m.shared_stores << " stores\n"
              << "  local        " << m.local_loads << " loads, " << m.local_stores << " stores\n"
              << "  constant     " << m.constant_loads << " loads\n";
    std::cout << "  special regs";
    for (const auto& sr : special_registers(f)) std::cout << " " << sr;
    RegisterUse use = registers_used(f);
    std::cout << "\n  registers    " << register_list("R", use.general) << "\n"
              << "  uniform      " << register_list("UR", use.uniform) << "\n"
              << "  predicates   " << register_list("P", use.predicates) << " " << register_list("UP", use.uniform_predicates)
              << "\n";
  }
  return 0;
}

launchlab::inspect::ToolRun sass_tool(CLI::App& command) {
  auto args = std::make_shared<SassArgs>();
  command
      .add_option("FILE", args->file,
                  "a listing of cuobjdump -sass or nvdisasm, or a binary for this machine's nvdisasm or cuobjdump")
      ->required()
      ->check(launchlab::cli::existing_file());
  command
      .add_option("--param-base", args->param_base,
                  "where the parameters start in constant bank 0 (EIATTR_PARAM_CBANK, which `launchlab inspect cubin` "
                  "prints), for the functions whose listing does not say: a cuobjdump -sass listing never does")
      ->type_name("OFFSET")
      ->check(launchlab::cli::unsigned_64());
  return [args] { return run_sass(*args); };
}

}  // namespace

LAUNCHLAB_INSPECT_TOOL({"sass", "each function's parameter reads, memory operations and registers", "02_reading_sass", sass_tool});
