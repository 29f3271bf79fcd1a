// Part C: walk_containers, read_fatbin_file and entry_payload, against
// cuobjdump --list-elf --list-ptx of the committed files, the cubins nvcc
// writes on its own, readelf, and libcublasLt.so.13 where the toolkit has it.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <random>
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

std::vector<std::string> describe_list(const std::vector<std::pair<std::string, int>>& list) {
  std::vector<std::string> out;
  for (const auto& [kind, arch] : list) out.push_back(kind + " " + std::to_string(arch));
  return out;
}

bool starts_with_zstd_magic(std::span<const std::byte> file, std::uint64_t at) {
  static const unsigned char magic[4] = {0x28, 0xb5, 0x2f, 0xfd};
  if (at + 4 > file.size()) return false;
  for (int i = 0; i < 4; ++i)
    if (std::to_integer<unsigned char>(file[at + i]) != magic[i]) return false;
  return true;
}

// read_fatbin_file(bytes) must throw FormatError naming `offset`.
::testing::AssertionResult throws_at(const std::vector<std::byte>& bytes, std::uint64_t offset) {
  try {
    read_fatbin_file(bytes);
  } catch (const FormatError& e) {
    if (e.offset() != offset)
      return ::testing::AssertionFailure() << "FormatError at offset " << e.offset() << ", expected " << offset << ": "
                                           << e.what();
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "expected FormatError, got: " << e.what();
  }
  return ::testing::AssertionFailure() << "expected FormatError at offset " << offset << ", nothing was thrown";
}

const char* const kCommitted[] = {"vadd.fatbin", "vadd_size.fatbin", "vadd_nocomp.fatbin", "zoo_size.fatbin", "vadd.o",
                                  "vadd_exe"};

TEST(Fatbin, EntriesMatchCuobjdumpList) {
  for (const char* name : kCommitted) {
    SCOPED_TRACE(name);
    auto file = bytes_of(fixture_path(name));
    FatbinFile fb = read_fatbin_file(file);
    auto truth = cuobjdump_list(fixture_text(std::string(name) + ".list.txt"));
    ASSERT_FALSE(truth.empty()) << "the fixture lists no entries";
    EXPECT_TRUE(lt::SameSequence(describe_list(truth), describe_list(entry_list(fb))));
  }
}

TEST(Fatbin, CompressionFlagsAndSizes) {
  // vadd_nocomp: nothing compressed; vadd (nvcc's default): the PTX only;
  // vadd_size and zoo_size (--compress-mode=size): everything. A compressed
  // payload starts with zstd's magic number, 28 b5 2f fd.
  struct Case {
    const char* name;
    bool elf_compressed, ptx_compressed;
  };
  for (const Case& c : {Case{"vadd_nocomp.fatbin", false, false}, Case{"vadd.fatbin", false, true},
                        Case{"vadd_size.fatbin", true, true}, Case{"zoo_size.fatbin", true, true}}) {
    SCOPED_TRACE(c.name);
    auto file = bytes_of(fixture_path(c.name));
    FatbinFile fb = read_fatbin_file(file);
    ASSERT_EQ(fb.containers.size(), 1u);
    const FatbinContainer& container = fb.containers[0];
    EXPECT_EQ(container.offset, 0u);
    EXPECT_EQ(container.header_size, 16u);
    EXPECT_EQ(container.size + container.header_size, file.size()) << "a bare fatbin is one container";
    std::uint64_t at = 16;
    for (const auto& e : container.entries) {
      SCOPED_TRACE("entry at " + std::to_string(e.offset));
      EXPECT_EQ(e.offset, at);
      EXPECT_EQ(e.payload_offset, e.offset + e.header_size);
      bool want = e.kind == 2 ? c.elf_compressed : c.ptx_compressed;
      EXPECT_EQ(e.compressed(), want);
      EXPECT_EQ(starts_with_zstd_magic(file, e.payload_offset), want) << "zstd magic at the payload";
      if (want) {
        EXPECT_GT(e.uncompressed_size, e.payload_size);
        EXPECT_LE(e.compressed_size, e.payload_size);
        EXPECT_GT(e.compressed_size + 8, e.payload_size) << "at most 7 bytes of padding";
      } else {
        EXPECT_EQ(e.uncompressed_size, e.payload_size);
      }
      at = e.payload_offset + e.payload_size;
    }
    EXPECT_EQ(at, file.size());
  }
}

TEST(Fatbin, PayloadsInflateToTheCubins) {
  if (!zstd_available()) GTEST_SKIP() << "needs libzstd.so.1 (Debian: libzstd1), which is not installed here";
  // The cubins nvcc -cubin wrote for the same kernels and architectures
  // (02_reading_sass/fixtures) are byte for byte the ELF entries.
  for (const char* name : {"vadd.fatbin", "vadd_size.fatbin", "vadd_nocomp.fatbin", "zoo_size.fatbin"}) {
    SCOPED_TRACE(name);
    std::string kernel = std::string(name).substr(0, std::string(name).find_first_of("_."));
    auto file = bytes_of(fixture_path(name));
    FatbinFile fb = read_fatbin_file(file);
    int elves = 0, ptxs = 0;
    for (const auto& c : fb.containers) {
      for (const auto& e : c.entries) {
        auto payload = entry_payload(e, file);
        EXPECT_EQ(payload.size(), e.uncompressed_size);
        if (e.kind == 2) {
          auto cubin = bytes_of(cubin_path(kernel + ".sm_" + std::to_string(e.arch)));
          EXPECT_TRUE(payload == cubin) << "the sm_" << e.arch << " entry is not " << kernel << ".sm_" << e.arch
                                        << ".cubin (" << payload.size() << " vs " << cubin.size() << " bytes)";
          ++elves;
        } else {
          std::string text(reinterpret_cast<const char*>(payload.data()), payload.size());
          EXPECT_NE(text.find(".target sm_" + std::to_string(e.arch)), std::string::npos) << "PTX for sm_" << e.arch;
          EXPECT_NE(text.find(".entry"), std::string::npos);
          ++ptxs;
        }
      }
    }
    EXPECT_GE(elves, 2);
    EXPECT_EQ(ptxs, 1);
  }
}

TEST(Fatbin, HostObjectAndExecutable) {
  auto tool = readelf();
  for (const char* name : {"vadd.o", "vadd_exe"}) {
    SCOPED_TRACE(name);
    auto file = bytes_of(fixture_path(name));
    FatbinFile fb = read_fatbin_file(file);
    ElfFile elf = read_elf(file);
    const ElfSection* segment = elf.find_section(".nvFatBinSegment");
    const ElfSection* data = elf.find_section(".nv_fatbin");
    ASSERT_TRUE(segment && data);
    if (tool) {
      // readelf's view of the two sections.
      for (const auto& s : readelf_sections(fixture_path(name))) {
        if (s.name == ".nvFatBinSegment") {
          EXPECT_EQ(fb.wrappers.size(), s.size / 24) << "one wrapper per 24 bytes";
        }
        if (s.name == ".nv_fatbin") {
          EXPECT_EQ(fb.containers.front().offset, s.offset) << "the first container";
        }
      }
    }
    ASSERT_FALSE(fb.wrappers.empty());
    for (const auto& w : fb.wrappers) {
      EXPECT_EQ(w.magic, kWrapperMagic);
      EXPECT_TRUE(w.version == 1 || w.version == 2) << w.version;
      if (elf.type == 1) {
        EXPECT_EQ(w.data, 0u) << "in an object file a relocation fills the pointer";
      } else {
        // In the executable each wrapper points at one of the containers.
        bool found = false;
        for (const auto& c : fb.containers) found = found || (w.data - data->address + data->offset == c.offset);
        EXPECT_TRUE(found) << "wrapper at " << w.offset << " points at 0x" << std::hex << w.data;
      }
    }
  }
}

TEST(Fatbin, CubinIsOneEntry) {
  for (const auto& stem : cubin_stems()) {
    auto file = bytes_of(cubin_path(stem));
    FatbinFile fb = read_fatbin_file(file);
    ASSERT_EQ(fb.containers.size(), 1u) << stem;
    ASSERT_EQ(fb.containers[0].entries.size(), 1u) << stem;
    const FatbinEntry& e = fb.containers[0].entries[0];
    EXPECT_EQ(e.kind, 2) << stem;
    EXPECT_EQ(static_cast<int>(e.arch), stem_arch(stem)) << stem;
    EXPECT_FALSE(e.compressed()) << stem;
    EXPECT_EQ(e.payload_size, file.size()) << stem;
    EXPECT_TRUE(entry_payload(e, file) == file) << stem;
  }
}

TEST(Fatbin, FreshSharedLibrary) {
  // A shared library of zoo.cu for two architectures, built with --keep:
  // every ELF entry in it is, inflated, one of the cubins nvcc left in the
  // keep folder (zoo's, and the device link's), and each of those is there
  // once.
  const fs::path& dir = work_dir();
  fs::create_directories(dir / "keep");
  lt::output_of({lt::nvcc().string(), "-shared", "-Xcompiler", "-fPIC", "--keep", "--keep-dir", "keep", "-gencode",
                "arch=compute_80,code=sm_80", "-gencode", "arch=compute_120,code=[sm_120,compute_120]", "-o",
                "libfresh.so", "zoo.cu"},
               dir);
  std::map<std::string, std::vector<std::byte>> kept;
  for (const auto& entry : fs::directory_iterator(dir / "keep")) {
    if (entry.path().extension() == ".cubin") kept[entry.path().filename().string()] = bytes_of(entry.path());
  }
  ASSERT_GE(kept.size(), 2u) << "cubins in the keep folder";
  auto file = bytes_of(dir / "libfresh.so");
  FatbinFile fb = read_fatbin_file(file);
  ASSERT_FALSE(fb.wrappers.empty());
  EXPECT_EQ(fb.wrappers.size(), fb.containers.size()) << "one wrapper per container";
  std::map<std::string, int> seen;
  int ptx = 0;
  for (const auto& c : fb.containers) {
    for (const auto& e : c.entries) {
      if (e.kind == 1) {
        EXPECT_EQ(e.arch, 120u) << "the only PTX is compute_120's";
        ++ptx;
        continue;
      }
      if (!zstd_available() && e.compressed()) continue;
      auto payload = entry_payload(e, file);
      std::string match;
      for (const auto& [name, bytes] : kept) {
        if (bytes == payload) match = name;
      }
      EXPECT_FALSE(match.empty()) << "the sm_" << e.arch << " entry at " << e.offset << " is none of the kept cubins";
      if (!match.empty()) ++seen[match];
    }
  }
  EXPECT_EQ(ptx, 1);
  if (zstd_available()) {
    for (const auto& [name, bytes] : kept) EXPECT_EQ(seen[name], 1) << name << " should be in the library once";
  }
}

TEST(Fatbin, LibcublasLtListsFast) {
  fs::path lib = lt::nvcc().parent_path().parent_path() / "lib64" / "libcublasLt.so.13";
  if (!fs::exists(lib)) GTEST_SKIP() << "needs the toolkit's libcublasLt.so.13, which is not installed here";
  auto start = std::chrono::steady_clock::now();
  MappedFile mapped(lib);
  FatbinFile fb = read_fatbin_file(mapped.bytes());
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  auto got = entry_list(fb);
  EXPECT_GT(got.size(), 1000u) << "entries";
  EXPECT_GT(fb.wrappers.size(), 100u) << "wrappers";
  EXPECT_EQ(fb.wrappers.size(), fb.containers.size()) << "one wrapper per container";
  EXPECT_LE(seconds, 2.0) << "reading the entries (not their payloads) of a " << mapped.bytes().size() / (1 << 20)
                          << " MiB library";
  // The truth where the committed listing was made from this very file
  // (same size): cuobjdump --list-elf --list-ptx on the GPU machine.
  fs::path size_file = fixture_path("libcublasLt.so.13.size.txt");
  if (fs::exists(size_file) && std::stoull(lt::read_file(size_file)) == mapped.bytes().size()) {
    auto truth = cuobjdump_list(fixture_text("libcublasLt.so.13.list.txt"));
    EXPECT_TRUE(lt::SameSequence(describe_list(truth), describe_list(got))) << "cuobjdump --list-elf --list-ptx";
  }
}

TEST(Fatbin, TruncatedAndCorruptFilesNameTheOffset) {
  const auto good = bytes_of(fixture_path("vadd.fatbin"));
  FatbinFile fb = read_fatbin_file(good);
  const auto& entries = fb.containers.at(0).entries;
  ASSERT_GE(entries.size(), 3u);
  auto cut = [&](std::size_t size) { return std::vector<std::byte>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(size)); };
  EXPECT_TRUE(throws_at(cut(10), 0)) << "a container header cut short";
  EXPECT_TRUE(throws_at(cut(good.size() - 1), 0)) << "the container's entries run past the end";
  {
    // A container that claims fewer bytes: the last entry's header is cut.
    auto b = good;
    std::uint64_t size = entries[2].offset - 16 + 40;
    for (int i = 0; i < 8; ++i) b[8 + i] = static_cast<std::byte>((size >> (8 * i)) & 0xff);
    EXPECT_TRUE(throws_at(b, entries[2].offset)) << "entry 2's header cut by the container's end";
  }
  {
    // An entry whose payload runs past its container: that entry.
    auto b = good;
    b[entries[1].offset + 8 + 5] = std::byte{0x7f};
    EXPECT_TRUE(throws_at(b, entries[1].offset)) << "entry 1 with an enormous payload size";
    b = good;
    b[entries[0].offset + 4] = std::byte{8};
    b[entries[0].offset + 5] = std::byte{0};
    EXPECT_TRUE(throws_at(b, entries[0].offset)) << "entry 0 with a header of 8 bytes";
  }
  {
    // In a host file: the second container's magic.
    const auto exe = bytes_of(fixture_path("vadd_exe"));
    FatbinFile host = read_fatbin_file(exe);
    ASSERT_GE(host.containers.size(), 2u);
    auto b = exe;
    b[host.containers[1].offset] = std::byte{0x51};
    EXPECT_TRUE(throws_at(b, host.containers[1].offset)) << "the second container's magic";
    b = exe;
    b[host.wrappers.at(1).offset] = std::byte{0x00};
    EXPECT_TRUE(throws_at(b, host.wrappers[1].offset)) << "the second wrapper's magic";
  }
  {
    // A compressed payload that does not inflate: the payload.
    if (zstd_available()) {
      // The PTX entry, told it inflates to one byte more than it does.
      auto b = good;
      const FatbinEntry& ptx = entries[2];
      ASSERT_TRUE(ptx.compressed());
      std::uint64_t wrong = ptx.uncompressed_size + 1;
      for (int i = 0; i < 8; ++i) b[ptx.offset + 56 + i] = static_cast<std::byte>((wrong >> (8 * i)) & 0xff);
      try {
        (void)entry_payload(read_fatbin_file(b).containers.at(0).entries.at(2), b);
        ADD_FAILURE() << "a damaged zstd frame inflated";
      } catch (const FormatError& e) {
        EXPECT_EQ(e.offset(), ptx.payload_offset) << e.what();
      }
    }
  }
}

TEST(Fatbin, CorruptBytesNeverCrash) {
  std::mt19937 random(20260303);
  for (const char* name : {"vadd.fatbin", "vadd_size.fatbin", "vadd_exe"}) {
    const auto good = bytes_of(fixture_path(name));
    // Edits land in the fatbin data: all of a bare fatbin, .nv_fatbin and
    // .nvFatBinSegment of the executable.
    std::vector<std::pair<std::size_t, std::size_t>> ranges;
    if (std::string(name) == "vadd_exe") {
      ElfFile elf = read_elf(good);
      for (const char* s : {".nv_fatbin", ".nvFatBinSegment"}) {
        const ElfSection* section = elf.find_section(s);
        ranges.emplace_back(section->offset, section->size);
      }
    } else {
      ranges.emplace_back(0, good.size());
    }
    ASSERT_FALSE(read_fatbin_file(good).containers.empty()) << "the undamaged " << name << " reads";
    int refused = 0;
    for (int round = 0; round < 1500; ++round) {
      auto b = good;
      int edits = 1 + static_cast<int>(random() % 6);
      for (int e = 0; e < edits; ++e) {
        const auto& [from, length] = ranges[random() % ranges.size()];
        b[from + random() % length] = static_cast<std::byte>(random() & 0xff);
      }
      if (random() % 5 == 0) b.resize(random() % b.size());
      try {
        FatbinFile fb = read_fatbin_file(b);
        for (const auto& c : fb.containers) {
          for (const auto& e : c.entries) {
            if (e.uncompressed_size < (1u << 20)) {
              try {
                (void)entry_payload(e, b);
              } catch (const FormatError&) {
              }
            }
          }
        }
      } catch (const FormatError&) {
        ++refused;
      } catch (const std::exception& e) {
        if (std::string(e.what()).find("LZ4") != std::string::npos) continue;
        FAIL() << name << " round " << round << ": expected FormatError, got " << e.what();
      }
    }
    EXPECT_GT(refused, 150) << name << ": damaged copies refused, of 1500";
  }
}

}  // namespace
