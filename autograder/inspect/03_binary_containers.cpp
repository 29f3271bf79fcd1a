// `launchlab inspect cubin FILE [--json]` and `launchlab inspect fatbin FILE
// [--json]`: lab 03's readers on a cubin, a .fatbin, an object, an
// executable or a shared library.
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "containers.h"
#include "launchlab/cli/arguments.h"
#include "tool.h"

namespace {
// Ordered: the fields print in the order a reader of the text form expects.
using Value = nlohmann::ordered_json;
using namespace launchlab::containers;

struct Args {
  std::string file;
  bool json = false;
};

/// FILE [--json], the arguments of both tools.
std::shared_ptr<Args> file_and_json(CLI::App& command, const std::string& what) {
  auto args = std::make_shared<Args>();
  command.add_option("FILE", args->file, what)->required()->check(launchlab::cli::existing_file());
  command.add_flag("--json", args->json, "print JSON instead of text");
  return args;
}

Value optional_value(const std::optional<std::uint32_t>& v) { return v ? Value(*v) : Value(); }

std::string hex(std::uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}

// Two lowercase hex digits a byte, written without a stream, so that no
// stream state (std::left, a fill) can change them.
void append_hex_byte(std::string& out, std::uint8_t byte) {
  static const char digits[] = "0123456789abcdef";
  out += digits[byte >> 4];
  out += digits[byte & 0xf];
}

std::string padded(std::string text, std::size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

// A record as the reader decoded it: its name, format and value, then its
// bytes (the four of its header, then the payload) as `xxd -s OFFSET -l
// LENGTH -g 4 FILE` shows them: groups of four bytes in file order, sixteen
// bytes a line, each line led by the file offset of its first byte.
std::string record_text(const NvInfoRecord& r) {
  static const char* formats[] = {"?", "NVAL", "BVAL", "HVAL", "SVAL"};
  std::vector<std::uint8_t> bytes = {r.format, r.attribute, static_cast<std::uint8_t>(r.value & 0xff),
                                     static_cast<std::uint8_t>(r.value >> 8)};
  for (std::byte b : r.payload) bytes.push_back(std::to_integer<std::uint8_t>(b));
  const std::string format = r.format <= 4 ? formats[r.format] : "?";
  const std::string value = r.format == 4 ? std::to_string(r.value) + " bytes" : hex(r.value);
  const std::string lead = padded(attribute_name(r.attribute), 36) + padded(format + " " + value, 16);
  constexpr std::size_t kLine = 16;
  std::string out;
  for (std::size_t line = 0; line < bytes.size(); line += kLine) {
    if (line) out += "\n";
    out += "    " + padded(hex(r.offset + line), 10) + (line ? std::string(lead.size(), ' ') : lead);
    for (std::size_t i = line; i < bytes.size() && i < line + kLine; ++i) {
      if (i > line && i % 4 == 0) out += ' ';
      append_hex_byte(out, bytes[i]);
    }
  }
  return out;
}

// The header line of one .nv.info section: its name, where its bytes are
// and how many (readelf -SW shows the same).
std::string section_line(const ElfFile& elf, const std::string& name) {
  const ElfSection* section = elf.find_section(name);
  if (!section) return "  " + name + ": (no such section)";
  return "  " + name + " at " + hex(section->offset) + ", " + std::to_string(section->size) + " bytes:";
}

int run_cubin(const Args& a) {
  MappedFile file(a.file);
  ElfFile elf = read_elf(file.bytes());
  if (elf.machine != 190)
    throw std::runtime_error(a.file + " is not a cubin (e_machine " + std::to_string(elf.machine) +
                             "); `launchlab inspect fatbin` lists the cubins inside a host file");
  CubinInfo info = read_cubin(elf);
  if (a.json) {
    Value root = Value::object();
    root["arch"] = info.arch;
    Value kernels = Value::array();
    for (const auto& k : info.kernels) {
      Value kv = Value::object();
      kv["name"] = k.name;
      kv["registers"] = optional_value(k.registers);
      kv["param_base"] = k.param_base;
      kv["param_size"] = k.param_size;
      Value params = Value::array();
      for (const auto& p : k.params) {
        Value pv = Value::object();
        pv["ordinal"] = p.ordinal;
        pv["offset"] = p.offset;
        pv["size"] = p.size;
        params.push_back(pv);
      }
      kv["params"] = params;
      kv["max_threads"] = optional_value(k.max_threads);
      kv["frame_size"] = k.frame_size.value_or(0);
      kernels.push_back(kv);
    }
    root["kernels"] = kernels;
    std::cout << root.dump(2) << "\n";
    return 0;
  }
  std::cout << a.file << ": cubin for sm_" << info.arch << ", " << info.kernels.size() << " kernel(s)\n";
  for (const auto& k : info.kernels) {
    std::cout << "\n" << k.name << "\n"
              << "  registers    " << (k.registers ? std::to_string(*k.registers) : "?") << "\n"
              << "  parameters   " << k.param_size << " bytes at c[0x0][" << hex(k.param_base) << "]\n";
    for (const auto& p : k.params)
      std::cout << "    #" << p.ordinal << "  offset " << std::setw(4) << p.offset << "  size " << p.size << "  c[0x0]["
                << hex(k.param_base + p.offset) << "]\n";
    std::cout << "  max threads  " << (k.max_threads ? std::to_string(*k.max_threads) : "-") << "\n"
              << "  stack frame  " << k.frame_size.value_or(0) << " bytes\n"
              << section_line(elf, ".nv.info." + k.name) << "\n";
    for (const auto& r : k.records) std::cout << record_text(r) << "\n";
  }
  if (!info.module_records.empty()) {
    std::cout << "\n" << section_line(elf, ".nv.info") << "\n";
    for (const auto& r : info.module_records) std::cout << record_text(r) << "\n";
  }
  return 0;
}

int run_fatbin(const Args& a) {
  MappedFile file(a.file);
  FatbinFile fb = read_fatbin_file(file.bytes());
  if (a.json) {
    Value entries = Value::array();
    for (const auto& c : fb.containers) {
      for (const auto& e : c.entries) {
        Value ev = Value::object();
        ev["kind"] = e.kind == 1 ? "ptx" : e.kind == 2 ? "elf" : "kind " + std::to_string(e.kind);
        ev["arch"] = e.arch;
        ev["compressed"] = e.compressed();
        ev["payload_size"] = e.payload_size;
        ev["uncompressed_size"] = e.uncompressed_size;
        entries.push_back(ev);
      }
    }
    Value root = Value::object();
    root["entries"] = entries;
    std::cout << root.dump(2) << "\n";
    return 0;
  }
  std::size_t count = 0;
  for (const auto& c : fb.containers) count += c.entries.size();
  std::cout << a.file << ": " << fb.wrappers.size() << " wrapper(s), " << fb.containers.size() << " container(s), "
            << count << " entries\n";
  std::size_t n = 0;
  for (const auto& c : fb.containers) {
    std::cout << "\ncontainer at " << hex(c.offset) << ", " << c.size << " bytes of entries\n";
    for (const auto& e : c.entries) {
      // cuobjdump names an entry with flag 0x100000 sm_90a, sm_100a: an
      // architecture-specific target.
      std::string target = (e.kind == 1 ? "compute_" : "sm_") + std::to_string(e.arch) + ((e.flags & 0x100000) ? "a" : "");
      std::cout << "  " << std::setw(5) << ++n << "  " << (e.kind == 1 ? "ptx" : e.kind == 2 ? "elf" : "???") << "  "
                << std::left << std::setw(12) << target << std::right << "  at " << std::setw(10) << hex(e.offset) << "  "
                << std::setw(8) << e.payload_size << " bytes";
      if (e.compressed()) std::cout << " (" << ((e.flags & kFlagCompressedZstd) ? "zstd" : "lz4") << ", " << e.uncompressed_size << " inflated)";
      std::cout << "\n";
    }
  }
  return 0;
}

launchlab::inspect::ToolRun cubin_tool(CLI::App& command) {
  auto args = file_and_json(command, "a cubin (an ELF file for a GPU)");
  return [args] { return run_cubin(*args); };
}

launchlab::inspect::ToolRun fatbin_tool(CLI::App& command) {
  auto args = file_and_json(command, "a .fatbin, an object, an executable or a shared library");
  return [args] { return run_fatbin(*args); };
}

}  // namespace

LAUNCHLAB_INSPECT_TOOL({"cubin", "a cubin's kernels: registers, parameters, .nv.info records", "03_binary_containers", cubin_tool});
LAUNCHLAB_INSPECT_TOOL({"fatbin", "the fatbin containers of a file and their PTX and ELF entries", "03_binary_containers", fatbin_tool});
