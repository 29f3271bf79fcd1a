// Part B: decode_nv_info and read_cubin, against cuobjdump -elf's view of
// the committed cubins, ptxas -v and the PTX of fresh builds, and
// hand-made sections.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "containers.h"
#include "files.h"
#include "launchlab/record.h"
#include "launchlab/testing.h"

namespace {
namespace fs = std::filesystem;
namespace lt = launchlab::testing;
using namespace launchlab::containers;
using namespace launchlab::containers_tests;

std::vector<std::byte> bytes(std::initializer_list<int> values) {
  std::vector<std::byte> out;
  for (int v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

std::string format_name(std::uint8_t f) {
  static const char* names[] = {"?", "EIFMT_NVAL", "EIFMT_BVAL", "EIFMT_HVAL", "EIFMT_SVAL"};
  return f <= 4 ? names[f] : "?";
}

// A record as cuobjdump -elf names it: its attribute, its format, and an
// HVAL's value.
struct Named {
  std::string attribute;
  std::string format;
  std::optional<std::uint16_t> hval;
};
nlohmann::json record_value(const Named& n) {
  return {{"attribute", n.attribute}, {"format", n.format}, {"hval", lt::encode(n.hval)}};
}

bool is_nv_info(const std::string& name) { return name == ".nv.info" || name.rfind(".nv.info.", 0) == 0; }

// Where the records sit, as they say themselves: the first at the section's
// offset, each next one after the previous record's 4 bytes and payload; an
// SVAL's payload as long as its value.
std::vector<std::string> layout_problems(const std::vector<NvInfoRecord>& records, std::uint64_t section_offset) {
  std::vector<std::string> problems;
  std::uint64_t at = section_offset;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const NvInfoRecord& r = records[i];
    const std::string which = "record " + std::to_string(i) + " (" + attribute_name(r.attribute) + ")";
    if (r.offset != at) problems.push_back(which + " is at " + hex(r.offset) + ", where the one before ends at " + hex(at));
    if (r.format == 4 && r.payload.size() != r.value)
      problems.push_back(which + " is an SVAL of length " + std::to_string(r.value) + " with a payload of " +
                         std::to_string(r.payload.size()) + " bytes");
    at = r.offset + 4 + (r.format == 4 ? r.value : 0);
  }
  return problems;
}

std::string read_cubin_of(const std::string& stem) { return "read_cubin(read_elf(the bytes of " + stem + ".cubin))"; }

TEST(NvInfo, RecordsMatchCuobjdumpElf) {
  for (const auto& stem : cubin_stems()) {
    RECORD_SCOPE("decode_nv_info on the sections of " + stem + ".cubin, as read_elf finds them");
    const auto file = bytes_of(cubin_path(stem));
    ElfFile elf = read_elf(file);
    std::vector<std::string> names;
    for (const auto& s : elf.sections) {
      if (is_nv_info(s.name)) names.push_back(s.name);
    }
    std::sort(names.begin(), names.end());
    RECORD_EQ(names, [&] {
      std::vector<std::string> expected;
      for (const auto& [name, attributes] : cubin_fixtures::cuobjdump_nv_info(fixture_text(stem + ".cubin.cuobjdump-elf.txt")))
        expected.push_back(name);
      if (expected.empty()) expected.push_back("(the cuobjdump -elf fixture has no .nv.info sections)");
      return expected;
    }()) << "the .nv.info sections, sorted, as `cuobjdump -elf` prints them";
    for (const auto& s : elf.sections) {
      if (!is_nv_info(s.name)) continue;
      auto records = decode_nv_info(elf.contents(s), s.offset);
      std::vector<Named> got;
      for (const auto& r : records) {
        got.push_back({attribute_name(r.attribute), format_name(r.format),
                       r.format == 3 ? std::optional<std::uint16_t>(r.value) : std::nullopt});
      }
      RECORD_EQ(got, [&] {
        // cuobjdump prints an HVAL's value in hex, or (for a version) as
        // major.minor, which the reference's own reading stands in for.
        auto truth = cubin_fixtures::cuobjdump_nv_info(fixture_text(stem + ".cubin.cuobjdump-elf.txt"));
        std::vector<Named> expected;
        const auto& attributes = truth[s.name];
        for (std::size_t i = 0; i < attributes.size(); ++i) {
          const auto& a = attributes[i];
          Named n{a.name, a.format, std::nullopt};
          if (a.format == "EIFMT_HVAL") {
            if (a.value.rfind("0x", 0) == 0) n.hval = static_cast<std::uint16_t>(std::stoul(a.value, nullptr, 16));
            else if (i < got.size()) n.hval = got[i].hval;
          }
          expected.push_back(n);
        }
        return expected;
      }()) << "decode_nv_info(the bytes of " << s.name << "): each record's attribute, format and HVAL value, as "
           << "`cuobjdump -elf " << stem << ".cubin` prints them";
      RECORD_EQ(layout_problems(records, s.offset), std::vector<std::string>{})
          << "decode_nv_info(the bytes of " << s.name << ", at " << hex(s.offset)
          << "): where its records sit, by their own offsets and lengths";
    }
  }
}

TEST(NvInfo, UnknownAttributesAreKept) {
  // HVAL 0x1b (MAXREG_COUNT) 0xff; an SVAL of an attribute no table knows
  // (0x99) with 8 bytes; an NVAL 0x7e; a BVAL 0x4c.
  auto section = bytes({0x03, 0x1b, 0xff, 0x00,                                            //
                        0x04, 0x99, 0x08, 0x00, 1, 2, 3, 4, 5, 6, 7, 8,                     //
                        0x01, 0x7e, 0x00, 0x00,                                            //
                        0x02, 0x4c, 0x01, 0x00});
  RECORD_EQ(decode_nv_info(section, 0x1000),
            std::vector<NvInfoRecord>{{0x1000, 3, 0x1b, 0xff, {}},
                                      {0x1004, 4, 0x99, 8, bytes({1, 2, 3, 4, 5, 6, 7, 8})},
                                      {0x1010, 1, 0x7e, 0, {}},
                                      {0x1014, 2, 0x4c, 1, {}}})
      << "decode_nv_info(the 24 bytes 03 1b ff 00 | 04 99 08 00 01 02 03 04 05 06 07 08 | 01 7e 00 00 | 02 4c 01 00, "
         "at offset 0x1000): an HVAL, an SVAL of an unknown attribute, an NVAL and a BVAL";
  RECORD_EQ(attribute_name(0x99), "EIATTR_UNKNOWN_0x99") << "attribute_name(0x99)";
}

TEST(NvInfo, MalformedSectionsThrow) {
  struct Case {
    std::vector<std::byte> section;
    const char* what;
    lt::Expected<std::string> error;
  };
  const std::vector<Case> cases = {
      {bytes({0x03, 0x1b, 0xff, 0x00, 0x04, 0x2f, 0x08, 0x00, 1, 2, 3}), "03 1b ff 00 | 04 2f 08 00 01 02 03: an SVAL whose payload is cut",
       LAUNCHLAB_EXPECTED(std::string("FormatError at offset 0x204"))},
      {bytes({0x03, 0x1b, 0xff, 0x00, 0x07, 0x2f, 0x00, 0x00}), "03 1b ff 00 | 07 2f 00 00: format 7",
       LAUNCHLAB_EXPECTED(std::string("FormatError at offset 0x204"))},
      {bytes({0x03, 0x1b, 0xff, 0x00, 0x03, 0x1b}), "03 1b ff 00 | 03 1b: a record header cut in two",
       LAUNCHLAB_EXPECTED(std::string("FormatError at offset 0x204"))},
  };
  for (const Case& c : cases) {
    RECORD_EQ(format_error_of([&] { decode_nv_info(c.section, 0x200); }), c.error)
        << "decode_nv_info(the bytes " << c.what << ", at offset 0x200)";
    const std::string message = lt::message_thrown<FormatError>([&] { decode_nv_info(c.section, 0x200); });
    RECORD_CONTAINS(message, "offset") << "the FormatError's message names the offset";
  }
  RECORD_EQ(decode_nv_info({}, 0).size(), 0u) << "decode_nv_info(no bytes, at offset 0): how many records";
}

// Records the kernels read_cubin found in `cubin` against what `cuobjdump
// -elf` printed of it: `truth` reads that printout, and is called in the
// expected half of the records only.
template <class Truth>
void record_kernels_as_cuobjdump_prints(const CubinInfo& info, const std::string& cubin, [[maybe_unused]] Truth truth) {
  RECORD_EQ(sorted_kernel_names(info), [&] {
    std::vector<std::string> expected;
    for (const auto& [name, k] : truth()) expected.push_back(name);
    return expected;
  }()) << "its kernels' names, sorted, as `cuobjdump -elf " << cubin << "` prints them";
  for (const auto& k : info.kernels) {
    RECORD_EQ(facts_of(k), [&] {
      const auto kernels = truth();
      auto it = kernels.find(k.name);
      return it == kernels.end() ? KernelFacts{} : facts_of(it->second);
    }()) << "the kernel " << k.name << ": EIATTR_REGCOUNT, EIATTR_FRAME_SIZE, EIATTR_PARAM_CBANK, "
         << "EIATTR_KPARAM_INFO (or EIATTR_KPARAM_INFO_V2, attribute 0x45) and EIATTR_MAX_THREADS, as `cuobjdump -elf "
         << cubin << "` prints them";
  }
}

TEST(Kernels, AgreeWithCuobjdumpElf) {
  for (const auto& stem : cubin_stems()) {
    RECORD_SCOPE(read_cubin_of(stem));
    const auto file = bytes_of(cubin_path(stem));
    CubinInfo info = read_cubin(read_elf(file));
    RECORD_EQ(info.arch, stem_arch(stem)) << "its arch";
    record_kernels_as_cuobjdump_prints(info, stem + ".cubin", [&] { return cubin_fixtures::committed_cuobjdump_kernels(stem); });
  }
}

// The committed cubins of chapter 03's tools/large_params.cu on every
// architecture of the course (fixtures/large_params/README.md): `big` with
// 4,352 bytes of parameters (EIATTR_KPARAM_INFO) and with 4,356 (attribute
// 0x45, EIATTR_KPARAM_INFO_V2), and the mixed kernels (a 12-byte one beside
// lists of 4,353 to 32,764 bytes), and reads_32009 (32,009 bytes). The truth
// is the PTX of the same source, committed beside them, and the base
// chapter 03's table gives.
//
// Calls record(arch, stem, cubin, info) with read_cubin's reading of each
// cubin of these stems, in a record scope that names it.
template <class Record>
void ForEachLargeParamCubin(const std::vector<std::string>& stems, Record&& record) {
  for (const auto& large : cubin_fixtures::large_param_cubins(stems)) {
    const std::string cubin = large.file();
    RECORD_SCOPE("read_cubin(read_elf(the bytes of " + cubin + "))");
    const auto file = bytes_of(fixture_path(cubin));
    record(large.arch, large.stem, cubin, read_cubin(read_elf(file)));
  }
}

TEST(Kernels, LargeParameterListsOnEveryArchitecture) {
  std::vector<std::string> stems = cubin_fixtures::kListedLargeParamStems;
  stems.push_back("reads_32009");
  ForEachLargeParamCubin(stems, [](int arch, const std::string& stem, const std::string&, const CubinInfo& info) {
    RECORD_EQ(sorted_kernel_names(info), [&] {
      std::vector<std::string> expected;
      for (const auto& [name, params] : ptx_params(fixture_text("large_params/" + stem + ".ptx"))) expected.push_back(name);
      return expected;
    }()) << "its kernels' names, sorted: the entries of large_params/" << stem << ".ptx";
    for (const auto& k : info.kernels) {
      RECORD_SCOPE("the kernel " + k.name);
      RECORD_EQ(k.params, [&] {
        auto ptx = ptx_params(fixture_text("large_params/" + stem + ".ptx"));
        return ptx.count(k.name) ? ptx.at(k.name) : std::vector<KernelParam>{};
      }()) << "its parameters (from EIATTR_KPARAM_INFO, or from attribute 0x45 past 4,352 bytes): each at the next "
              "multiple of its alignment, as the PTX declares them";
      RECORD_EQ(k.param_size, [&] {
        auto ptx = ptx_params(fixture_text("large_params/" + stem + ".ptx"));
        const auto& params = ptx[k.name];
        return params.empty() ? 0u : params.back().offset + params.back().size;
      }()) << "its param_size (EIATTR_PARAM_CBANK): where the last PTX parameter ends";
      RECORD_EQ(Hex{k.param_base}, [&] {
        // Chapter 03's table (measured with nvcc 13.0): up to 4,352 bytes
        // 0x160, 0x210, 0x380 by architecture; past them 0x1a80 up to sm_89.
        auto ptx = ptx_params(fixture_text("large_params/" + stem + ".ptx"));
        const auto& params = ptx[k.name];
        const std::uint32_t total = params.empty() ? 0u : params.back().offset + params.back().size;
        if (arch < 90) return Hex{total > 4352 ? 0x1a80u : 0x160u};
        return Hex{arch < 100 ? 0x210u : 0x380u};
      }()) << "its param_base (EIATTR_PARAM_CBANK): on sm_" << arch << ", for " << k.param_size << " bytes of parameters";
    }
  });
}

// The same cubins against what `cuobjdump -elf` printed of them on a GPU
// host (committed beside them; reads_32009 is not listed yet): every kernel's registers, frame, parameter
// base and size, and each parameter's ordinal, offset and size as cuobjdump
// reads records 0x17 and 0x45.
TEST(Kernels, LargeParameterListsAgreeWithCuobjdumpElf) {
  ForEachLargeParamCubin(cubin_fixtures::kListedLargeParamStems, []([[maybe_unused]] int arch, [[maybe_unused]] const std::string& stem,
                                                    const std::string& cubin, const CubinInfo& info) {
    record_kernels_as_cuobjdump_prints(info, cubin, [&] { return cubin_fixtures::committed_large_param_kernels(arch, stem); });
  });
}

// One fresh build with ptxas -v, its PTX kept: nvcc -cubin --keep (built
// once per test program).
struct Fresh {
  std::string verbose;
  std::string ptx;
  std::vector<std::byte> cubin;
};
const Fresh& fresh(const std::string& source, int arch) {
  static std::map<std::string, Fresh> built;
  std::string key = source + std::to_string(arch);
  if (auto it = built.find(key); it != built.end()) return it->second;
  const fs::path& dir = work_dir();
  std::string stem = source.substr(0, source.find('.'));
  std::string name = stem + "_" + std::to_string(arch);
  fs::create_directories(dir / name);
  Fresh f;
  f.verbose = lt::output_of({lt::nvcc().string(), "-cubin", "-arch=sm_" + std::to_string(arch), "-Xptxas", "-v", "--keep",
                            "--keep-dir", name, "-o", name + ".cubin", source},
                           dir);
  f.ptx = lt::read_file(dir / name / (stem + ".ptx"));
  f.cubin = bytes_of(dir / (name + ".cubin"));
  return built.emplace(key, std::move(f)).first->second;
}

std::string fresh_command(const std::string& source, int arch) {
  return "`nvcc -cubin -arch=sm_" + std::to_string(arch) + " -Xptxas -v " + source + "`";
}

TEST(Kernels, MatchPtxasAndPtx) {
  // Fresh builds: ptxas -v reports registers, stack frame and (before
  // sm_90) the size of bank 0; the PTX declares the parameters.
  const std::vector<std::pair<std::string, int>> builds = {
      {"zoo.cu", 80}, {"zoo.cu", 90}, {"zoo.cu", 120}, {"vadd.cu", 100}, {"stack.cu", 90}};
  for (const auto& [source, arch] : builds) {
    RECORD_SCOPE("read_cubin(read_elf(the cubin of " + fresh_command(source, arch) + "))");
    const Fresh& f = fresh(source, arch);
    CubinInfo info = read_cubin(read_elf(f.cubin));
    RECORD_EQ(info.arch, arch) << "its arch";
    RECORD_EQ(sorted_kernel_names(info), [&] {
      std::vector<std::string> expected;
      for (const auto& [name, p] : ptxas_verbose(f.verbose)) expected.push_back(name);
      return expected;
    }()) << "its kernels' names, sorted: the entry functions ptxas -v compiled";
    for (const auto& k : info.kernels) {
      RECORD_SCOPE("the kernel " + k.name);
      RECORD_EQ(k.registers, [&] {
        auto ptxas = ptxas_verbose(f.verbose);
        return ptxas.count(k.name) ? std::optional<std::uint32_t>(ptxas.at(k.name).registers) : std::nullopt;
      }()) << "its registers, as ptxas -v reports them";
      RECORD_EQ(k.frame_size.value_or(0), [&] {
        auto ptxas = ptxas_verbose(f.verbose);
        return ptxas.count(k.name) ? std::optional<std::uint32_t>(ptxas.at(k.name).stack_frame) : std::nullopt;
      }()) << "its frame size (0 where .nv.info has none), as ptxas -v reports the stack frame";
      RECORD_EQ(k.params, [&] {
        auto ptx = ptx_params(f.ptx);
        return ptx.count(k.name) ? ptx.at(k.name) : std::vector<KernelParam>{};
      }()) << "its parameters: each at the next multiple of its alignment, as the PTX declares them";
      RECORD_EQ(k.param_size, [&] {
        auto ptx = ptx_params(f.ptx);
        const auto& params = ptx[k.name];
        return params.empty() ? 0u : params.back().offset + params.back().size;
      }()) << "its param_size: where the last PTX parameter ends";
      // Where ptxas reports the bank's size, the parameters end it; where it
      // does not (sm_90 on), the reference's own reading stands in for it.
      RECORD_EQ(k.param_base + k.param_size, [&] {
        auto ptxas = ptxas_verbose(f.verbose);
        const std::uint32_t cmem0 = ptxas.count(k.name) ? ptxas.at(k.name).cmem0 : 0;
        return cmem0 && k.param_size ? cmem0 : k.param_base + k.param_size;
      }()) << "param_base + param_size, the end of the parameters in bank 0: ptxas -v's cmem[0] where it reports one";
    }
  }
}

TEST(Kernels, LaunchBoundsAndStackFrame) {
  // __launch_bounds__(128) on zoo's bounded() only.
  for (const auto& stem : cubin_stems()) {
    if (stem.rfind("zoo", 0) != 0) continue;
    auto file = bytes_of(cubin_path(stem));
    CubinInfo info = read_cubin(read_elf(file));
    std::vector<std::string> limits;
    for (const auto& k : info.kernels)
      limits.push_back(k.name + ": " + (k.max_threads ? std::to_string(*k.max_threads) : std::string("none")));
    std::sort(limits.begin(), limits.end());
    RECORD_EQ(limits, [&] {
      std::vector<std::string> expected;
      for (const auto& [name, k] : cubin_fixtures::committed_cuobjdump_kernels(stem))
        expected.push_back(name + ": " + (name == "_Z7boundedPfPKfi" ? "128" : "none"));
      std::sort(expected.begin(), expected.end());
      return expected;
    }()) << read_cubin_of(stem) << ": each kernel's max_threads, by name";
  }
  // stack.cu: stack_array() keeps 256 floats in local memory, no_stack() none.
  RECORD_SCOPE("read_cubin(read_elf(the cubin of " + fresh_command("stack.cu", 90) + "))");
  const Fresh& f = fresh("stack.cu", 90);
  CubinInfo info = read_cubin(read_elf(f.cubin));
  RECORD_EQ(info.kernels.size(), 2u) << "how many kernels";
  for (const auto& k : info.kernels) {
    RECORD_EQ(k.frame_size.value_or(0), [&] {
      auto ptxas = ptxas_verbose(f.verbose);
      return ptxas.count(k.name) ? std::optional<std::uint32_t>(ptxas.at(k.name).stack_frame) : std::nullopt;
    }()) << "the frame size of " << k.name << " (0 where .nv.info has none), as ptxas -v reports the stack frame";
  }
  std::uint32_t stack_array_frame = 0;
  for (const auto& k : info.kernels) {
    if (k.name == "_Z11stack_arrayPfii") stack_array_frame = k.frame_size.value_or(0);
  }
  RECORD_GE(stack_array_frame, 1024u) << "the frame size of stack_array, _Z11stack_arrayPfii: 256 floats";
}

}  // namespace

namespace {

// A cubin as read_elf would give it, made by hand around its info sections
// so that each case damages one record and nothing else: section 1 is
// `.text.k`, the code of the kernel k (symbol 1, FUNC, STO_CUDA_ENTRY);
// `.nv.info` starts at 0x40 and `.nv.info.k` right after it.
struct HandMadeCubin {
  std::vector<std::byte> module_info, kernel_info;
  std::vector<std::byte> file = [this] {
    std::vector<std::byte> bytes(0x40, std::byte{0});
    bytes.insert(bytes.end(), module_info.begin(), module_info.end());
    bytes.insert(bytes.end(), kernel_info.begin(), kernel_info.end());
    return bytes;
  }();

  ElfFile elf() const {
    ElfFile elf;
    elf.bytes = file;
    elf.type = 2;
    elf.machine = 190;  // EM_CUDA
    elf.abi_version = 8;
    elf.flags = 90 << 8;  // sm_90, as ABI version 8 writes it
    elf.sections = {ElfSection{},
                    ElfSection{.name = ".text.k", .type = 1, .offset = 0x40, .size = 0},
                    ElfSection{.name = ".nv.info", .type = 0x70000000, .offset = 0x40, .size = module_info.size()},
                    ElfSection{.name = ".nv.info.k", .type = 0x70000000, .offset = 0x40 + module_info.size(),
                               .size = kernel_info.size()}};
    elf.symbols = {ElfSymbol{}, ElfSymbol{.name = "k", .type = 2, .binding = 1, .other = 0x10, .section = 1}};
    return elf;
  }
};

std::vector<std::optional<std::uint32_t>> registers_of_kernels(const CubinInfo& info) {
  std::vector<std::optional<std::uint32_t>> registers;
  for (const auto& k : info.kernels) registers.push_back(k.registers);
  return registers;
}

}  // namespace

TEST(Kernels, MalformedInfoRecordsThrow) {
  // EIATTR_REGCOUNT (0x2f) of symbol 1: 7 registers; EIATTR_PARAM_CBANK
  // (0x0a) of symbol 1: parameters at 0x210, 8 bytes.
  const auto regcount = bytes({0x04, 0x2f, 0x08, 0x00, 1, 0, 0, 0, 7, 0, 0, 0});
  const auto cbank = bytes({0x04, 0x0a, 0x08, 0x00, 1, 0, 0, 0, 0x10, 0x02, 0x08, 0x00});
  const HandMadeCubin whole{regcount, cbank};
  RECORD_OUTCOME(registers_of_kernels(read_cubin(whole.elf())), FormatError)
      << "read_cubin of a hand-made sm_90 cubin whose kernel k has EIATTR_REGCOUNT 7 and EIATTR_PARAM_CBANK "
         "{offset 0x210, size 8}: each kernel's registers (the cases below damage one of its records)";

  struct Case {
    HandMadeCubin cubin;
    std::string what;
    lt::Expected<std::string> at;
  };
  const std::vector<Case> cases = {
      {{bytes({0x04, 0x2f, 0x08, 0x00, 1, 0, 0, 0, 7, 0}), cbank},
       ".nv.info (at 0x40) is 04 2f 08 00 01 00 00 00 07 00: EIATTR_REGCOUNT's payload cut after 6 of its 8 bytes",
       LAUNCHLAB_EXPECTED(std::string("(at offset 0x40)"))},
      {{bytes({0x04, 0x2f, 0x04, 0x00, 1, 0, 0, 0}), cbank},
       ".nv.info (at 0x40) is 04 2f 04 00 01 00 00 00: an EIATTR_REGCOUNT of 4 bytes, without the count",
       LAUNCHLAB_EXPECTED(std::string("(at offset 0x40)"))},
      {{regcount, bytes({0x04, 0x0a, 0x04, 0x00, 1, 0, 0, 0})},
       ".nv.info.k (at 0x4c) is 04 0a 04 00 01 00 00 00: an EIATTR_PARAM_CBANK of 4 bytes, without offset and size",
       LAUNCHLAB_EXPECTED(std::string("(at offset 0x4c)"))},
  };
  for (const Case& c : cases) {
    RECORD_THROWS(read_cubin(c.cubin.elf()), FormatError) << "read_cubin(a hand-made sm_90 cubin whose " << c.what << ")";
    RECORD_CONTAINS(lt::message_thrown<FormatError>([&] { read_cubin(c.cubin.elf()); }), c.at.value)
        << "the FormatError of read_cubin(a hand-made sm_90 cubin whose " << c.what << "): the offset of the record";
  }
}
