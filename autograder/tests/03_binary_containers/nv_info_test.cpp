// Part B: decode_nv_info and read_cubin, against cuobjdump -elf's view of
// the committed cubins, ptxas -v and the PTX of fresh builds, and
// hand-made sections.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "containers.h"
#include "files.h"
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

std::string opt(const std::optional<std::uint32_t>& v) { return v ? std::to_string(*v) : "none"; }

TEST(NvInfo, RecordsMatchCuobjdumpElf) {
  for (const auto& stem : cubin_stems()) {
    SCOPED_TRACE(stem);
    auto file = bytes_of(cubin_path(stem));
    ElfFile elf = read_elf(file);
    auto truth = cuobjdump_nv_info(fixture_text(stem + ".cubin.cuobjdump-elf.txt"));
    ASSERT_FALSE(truth.empty()) << "no .nv.info sections in the cuobjdump -elf fixture";
    for (const auto& [name, attributes] : truth) {
      const ElfSection* s = elf.find_section(name);
      ASSERT_NE(s, nullptr) << name;
      auto records = decode_nv_info(elf.contents(*s), s->offset);
      std::vector<std::string> got_names, want_names, got_formats, want_formats;
      for (const auto& r : records) {
        got_names.push_back(attribute_name(r.attribute));
        got_formats.push_back(format_name(r.format));
      }
      for (const auto& a : attributes) {
        want_names.push_back(a.name);
        want_formats.push_back(a.format);
      }
      EXPECT_TRUE(lt::SameSequence(want_names, got_names)) << name << ": attributes";
      EXPECT_TRUE(lt::SameSequence(want_formats, got_formats)) << name << ": formats";
      // Where records sit: the first at the section's offset, each next one
      // after the previous record's 4 bytes and payload.
      std::uint64_t at = s->offset;
      for (const auto& r : records) {
        EXPECT_EQ(r.offset, at) << name << " " << attribute_name(r.attribute);
        if (r.format == 4) {
          EXPECT_EQ(r.payload.size(), r.value) << name << " " << attribute_name(r.attribute);
        }
        at += 4 + (r.format == 4 ? r.value : 0);
      }
      // An HVAL's value is what cuobjdump prints.
      for (std::size_t i = 0; i < std::min(records.size(), attributes.size()); ++i) {
        if (attributes[i].format == "EIFMT_HVAL" && attributes[i].value.rfind("0x", 0) == 0) {
          EXPECT_EQ(records[i].value, std::stoul(attributes[i].value, nullptr, 16)) << name << " " << attributes[i].name;
        }
      }
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
  auto records = decode_nv_info(section, 0x1000);
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(records[0].attribute, 0x1b);
  EXPECT_EQ(records[0].format, 3);
  EXPECT_EQ(records[0].value, 0xff);
  EXPECT_EQ(records[0].offset, 0x1000u);
  EXPECT_EQ(records[1].attribute, 0x99);
  EXPECT_EQ(records[1].format, 4);
  EXPECT_EQ(records[1].offset, 0x1004u);
  EXPECT_TRUE(lt::SameSequence(bytes({1, 2, 3, 4, 5, 6, 7, 8}), records[1].payload));
  EXPECT_EQ(records[2].attribute, 0x7e);
  EXPECT_EQ(records[2].offset, 0x1010u);
  EXPECT_TRUE(records[2].payload.empty());
  EXPECT_EQ(records[3].attribute, 0x4c);
  EXPECT_EQ(records[3].value, 1);
  EXPECT_EQ(attribute_name(0x99), "EIATTR_UNKNOWN_0x99");
}

TEST(NvInfo, MalformedSectionsThrow) {
  auto expect_at = [](const std::vector<std::byte>& section, std::uint64_t offset, const char* what) {
    try {
      decode_nv_info(section, 0x200);
      ADD_FAILURE() << what << ": expected FormatError at offset " << offset;
    } catch (const FormatError& e) {
      EXPECT_EQ(e.offset(), offset) << what << ": " << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << what << ": expected FormatError, got " << e.what();
    }
  };
  expect_at(bytes({0x03, 0x1b, 0xff, 0x00, 0x04, 0x2f, 0x08, 0x00, 1, 2, 3}), 0x204, "an SVAL whose payload is cut");
  expect_at(bytes({0x03, 0x1b, 0xff, 0x00, 0x07, 0x2f, 0x00, 0x00}), 0x204, "format 7");
  expect_at(bytes({0x03, 0x1b, 0xff, 0x00, 0x03, 0x1b}), 0x204, "a record header cut in two");
  EXPECT_TRUE(decode_nv_info({}, 0).empty()) << "an empty section has no records";
}

TEST(Kernels, AgreeWithCuobjdumpElf) {
  int kernels_checked = 0;
  std::set<int> archs;
  for (const auto& stem : cubin_stems()) {
    SCOPED_TRACE(stem);
    auto file = bytes_of(cubin_path(stem));
    CubinInfo info = read_cubin(read_elf(file));
    auto truth = cuobjdump_kernels(fixture_text(stem + ".cubin.cuobjdump-elf.txt"));
    EXPECT_EQ(info.arch, stem_arch(stem));
    std::set<std::string> want, got;
    for (const auto& [name, k] : truth) want.insert(name);
    for (const auto& k : info.kernels) got.insert(k.name);
    ASSERT_TRUE(lt::SameSequence(want, got)) << "kernels";
    for (const auto& k : info.kernels) {
      const TruthKernel& t = truth.at(k.name);
      EXPECT_EQ(opt(k.registers), opt(t.registers)) << k.name << ": registers (EIATTR_REGCOUNT)";
      EXPECT_EQ(opt(k.frame_size), opt(t.frame_size)) << k.name << ": frame size (EIATTR_FRAME_SIZE)";
      EXPECT_EQ(k.param_base, t.param_base) << k.name << ": parameter base (EIATTR_PARAM_CBANK)";
      EXPECT_EQ(k.param_size, t.param_size) << k.name << ": parameter size (EIATTR_PARAM_CBANK)";
      EXPECT_TRUE(lt::SameSequence(describe(t.params), describe(k.params))) << k.name << ": EIATTR_KPARAM_INFO";
      EXPECT_EQ(opt(k.max_threads), opt(t.max_threads)) << k.name << ": EIATTR_MAX_THREADS";
      ++kernels_checked;
    }
    archs.insert(info.arch);
  }
  EXPECT_GE(kernels_checked, 10);
  EXPECT_GE(archs.size(), 3u);
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

TEST(Kernels, MatchPtxasAndPtx) {
  // Fresh builds: ptxas -v reports registers, stack frame and (before
  // sm_90) the size of bank 0; the PTX declares the parameters.
  const std::vector<std::pair<std::string, int>> builds = {
      {"zoo.cu", 80}, {"zoo.cu", 90}, {"zoo.cu", 120}, {"vadd.cu", 100}, {"stack.cu", 90}};
  for (const auto& [source, arch] : builds) {
    SCOPED_TRACE(source + " for sm_" + std::to_string(arch));
    const Fresh& f = fresh(source, arch);
    auto ptxas = ptxas_verbose(f.verbose);
    auto ptx = ptx_params(f.ptx);
    CubinInfo info = read_cubin(read_elf(f.cubin));
    EXPECT_EQ(info.arch, arch);
    ASSERT_EQ(info.kernels.size(), ptxas.size()) << "kernels (ptxas -v compiled " << ptxas.size() << ")";
    for (const auto& k : info.kernels) {
      ASSERT_TRUE(ptxas.count(k.name)) << k.name << " is not in ptxas -v's output";
      ASSERT_TRUE(ptx.count(k.name)) << k.name << " is not an .entry of the PTX";
      const TruthPtxas& p = ptxas.at(k.name);
      EXPECT_EQ(opt(k.registers), std::to_string(p.registers)) << k.name << ": registers";
      EXPECT_EQ(k.frame_size.value_or(0), p.stack_frame) << k.name << ": stack frame";
      const auto& params = ptx.at(k.name);
      EXPECT_TRUE(lt::SameSequence(describe(params), describe(k.params))) << k.name << ": parameters";
      std::uint32_t end = params.empty() ? 0 : params.back().offset + params.back().size;
      EXPECT_EQ(k.param_size, end) << k.name << ": parameter size";
      if (p.cmem0 && !params.empty()) {
        EXPECT_EQ(k.param_base + k.param_size, p.cmem0) << k.name << ": cmem[0]";
      }
    }
  }
}

TEST(Kernels, LaunchBoundsAndStackFrame) {
  // __launch_bounds__(128) on zoo's bounded() only.
  for (const auto& stem : cubin_stems()) {
    if (stem.rfind("zoo", 0) != 0) continue;
    auto file = bytes_of(cubin_path(stem));
    CubinInfo info = read_cubin(read_elf(file));
    for (const auto& k : info.kernels) {
      SCOPED_TRACE(stem + " " + k.name);
      EXPECT_EQ(opt(k.max_threads), k.name == "_Z7boundedPfPKfi" ? "128" : "none");
    }
  }
  // stack.cu: stack_array() keeps 256 floats in local memory, no_stack() none.
  const Fresh& f = fresh("stack.cu", 90);
  auto ptxas = ptxas_verbose(f.verbose);
  CubinInfo info = read_cubin(read_elf(f.cubin));
  ASSERT_EQ(info.kernels.size(), 2u);
  for (const auto& k : info.kernels) {
    ASSERT_TRUE(ptxas.count(k.name)) << k.name;
    EXPECT_EQ(k.frame_size.value_or(0), ptxas.at(k.name).stack_frame) << k.name << ": stack frame (ptxas -v)";
    if (k.name == "_Z11stack_arrayPfii") {
      EXPECT_GE(k.frame_size.value_or(0), 1024u) << "256 floats";
    }
  }
}

}  // namespace
