// `launchlab inspect sass FILE`: lab 02's parser and analyses on a listing
// (the output of cuobjdump -sass or nvdisasm), or on a cubin, object,
// executable or library, which this machine's cuobjdump disassembles first.
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "launchlab/cli/arguments.h"
#include "sass.h"
#include "tool.h"

namespace {
using namespace launchlab::sass;

// Runs cuobjdump -sass on a binary (no shell: the path is passed as is).
std::string disassemble(const std::string& path) {
  std::string tool;
  for (const char* candidate : {"/usr/local/cuda/bin/cuobjdump", "cuobjdump"}) {
    std::string probe = std::string("command -v ") + candidate + " >/dev/null 2>&1";
    if (std::system(probe.c_str()) == 0) {
      tool = candidate;
      break;
    }
  }
  if (tool.empty())
    throw std::runtime_error(path + " is a binary and cuobjdump is not installed here; give a listing made with "
                             "`cuobjdump -sass` or `nvdisasm` instead");
  std::string quoted = "'";
  for (char c : path) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  quoted += "'";
  std::FILE* p = ::popen((tool + " -sass " + quoted + " 2>&1").c_str(), "r");
  if (!p) throw std::runtime_error("cannot run cuobjdump");
  std::string text;
  char buffer[65536];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, p)) > 0) text.append(buffer, n);
  if (::pclose(p) != 0) throw std::runtime_error("cuobjdump -sass failed on " + path + ":\n" + text);
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

int run_sass(const std::string& path) {
  std::string text = launchlab::inspect::file_bytes(path);
  bool binary = text.size() >= 4 && (text.compare(0, 4, "\x7f" "ELF") == 0 || text.compare(0, 4, "\x50\xed\x55\xba") == 0);
  if (binary) text = disassemble(path);
  bool nvdisasm = text.find(".section") != std::string::npos && text.find("Function :") == std::string::npos;
  std::vector<Function> functions = nvdisasm ? parse_nvdisasm(text) : parse_cuobjdump_sass(text);
  std::cout << path << ": " << functions.size() << " function(s), read as " << (nvdisasm ? "nvdisasm" : "cuobjdump -sass")
            << " output\n";
  for (const auto& f : functions) {
    std::cout << "\n" << f.name << " (sm_" << f.arch << "): " << f.instructions.size() << " instructions\n";
    if (f.arch >= 75) {
      // Without the parameter list, one slot spanning the largest buffer
      // gives each read's byte offset in the parameter buffer.
      const ParamSlot whole[] = {{0, 32764}};
      std::uint32_t base = param_base(f.arch);
      std::cout << "  parameter buffer at c[0x0][" << hex(base) << "]; bytes read:";
      auto reads = param_reads(f, base, whole);
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
  auto path = std::make_shared<std::string>();
  command.add_option("FILE", *path, "a listing of cuobjdump -sass or nvdisasm, or a binary for this machine's cuobjdump")
      ->required()->check(launchlab::cli::existing_file());
  return [path] { return run_sass(*path); };
}

}  // namespace

LAUNCHLAB_INSPECT_TOOL({"sass", "each function's parameter reads, memory operations and registers", "02_reading_sass", sass_tool});
