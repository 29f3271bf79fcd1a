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

bool starts_with_zstd_magic(std::span<const std::byte> file, std::uint64_t at) {
  static const unsigned char magic[4] = {0x28, 0xb5, 0x2f, 0xfd};
  if (at + 4 > file.size()) return false;
  for (int i = 0; i < 4; ++i)
    if (std::to_integer<unsigned char>(file[at + i]) != magic[i]) return false;
  return true;
}

std::string kind_name(std::uint16_t kind) { return kind == 1 ? "ptx" : kind == 2 ? "elf" : "kind " + std::to_string(kind); }

// Where the damage goes in the corrupt copies below, found with the few
// fields this test needs (little-endian, as every file here is), not with
// the learner's reader.
std::uint64_t le(std::span<const std::byte> b, std::uint64_t at, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= std::to_integer<std::uint64_t>(b[at + i]) << (8 * i);
  return v;
}

struct Range {
  std::uint64_t offset = 0, size = 0;
};

// A section of a host ELF file, by name: e_shoff, e_shentsize, e_shnum and
// e_shstrndx in the header; sh_name, sh_offset and sh_size in each header.
Range section_range(std::span<const std::byte> elf, const std::string& name) {
  const std::uint64_t table = le(elf, 40, 8), entry = le(elf, 58, 2), count = le(elf, 60, 2);
  const std::uint64_t names = le(elf, table + entry * le(elf, 62, 2) + 24, 8);
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t header = table + entry * i;
    const char* text = reinterpret_cast<const char*>(elf.data() + names + le(elf, header, 4));
    if (name == text) return {le(elf, header + 24, 8), le(elf, header + 32, 8)};
  }
  return {};
}

// The containers back to back in a range (zeros between them skipped): each
// is 16 bytes of header, the size of its entries at +8.
std::vector<std::uint64_t> container_offsets(std::span<const std::byte> file, Range range) {
  std::vector<std::uint64_t> offsets;
  for (std::uint64_t at = range.offset; at + 16 <= range.offset + range.size;) {
    if (le(file, at, 4) == 0) {
      at += 4;
      continue;
    }
    offsets.push_back(at);
    at += le(file, at + 6, 2) + le(file, at + 8, 8);
  }
  return offsets;
}

// The entries of the container at the start of a bare fatbin: header size
// at +4, payload size at +8, flags at +40.
struct RawEntry {
  std::uint64_t offset = 0, header_size = 0, flags = 0;
};
std::vector<RawEntry> entries_of_first_container(std::span<const std::byte> fatbin) {
  std::vector<RawEntry> entries;
  const std::uint64_t end = 16 + le(fatbin, 8, 8);
  for (std::uint64_t at = 16; at < end; at += le(fatbin, at + 4, 4) + le(fatbin, at + 8, 8))
    entries.push_back({at, le(fatbin, at + 4, 4), le(fatbin, at + 40, 8)});
  return entries;
}

// The properties of a bare fatbin's one container that the entries state
// themselves: back to back from offset 16 to the end of the file, each
// payload after its header, and a compressed payload's sizes.
std::vector<std::string> size_problems(const FatbinContainer& container, std::uint64_t file_size) {
  std::vector<std::string> problems;
  std::uint64_t at = 16;
  for (std::size_t i = 0; i < container.entries.size(); ++i) {
    const FatbinEntry& e = container.entries[i];
    const std::string which = "entry " + std::to_string(i) + " (" + kind_name(e.kind) + " " + std::to_string(e.arch) + ")";
    if (e.offset != at) problems.push_back(which + " is at " + hex(e.offset) + ", where the one before ends at " + hex(at));
    if (e.payload_offset != e.offset + e.header_size)
      problems.push_back(which + ": payload_offset " + hex(e.payload_offset) + " is not offset + header_size");
    if (e.compressed()) {
      if (!(e.uncompressed_size > e.payload_size)) problems.push_back(which + ": compressed, but uncompressed_size <= payload_size");
      if (!(e.compressed_size <= e.payload_size)) problems.push_back(which + ": compressed_size > payload_size");
      if (!(e.compressed_size + 8 > e.payload_size))
        problems.push_back(which + ": more than 7 bytes of padding after the compressed payload");
    } else if (e.uncompressed_size != e.payload_size) {
      problems.push_back(which + ": not compressed, but uncompressed_size differs from payload_size");
    }
    at = e.payload_offset + e.payload_size;
  }
  if (at != file_size) problems.push_back("the last entry ends at " + hex(at) + ", the file at " + hex(file_size));
  return problems;
}

const char* const kCommitted[] = {"vadd.fatbin", "vadd_size.fatbin", "vadd_nocomp.fatbin", "zoo_size.fatbin", "vadd.o",
                                  "vadd_exe"};

std::string read_fatbin_of(const std::string& name) { return "read_fatbin_file(the bytes of " + name + ")"; }

TEST(Fatbin, EntriesMatchCuobjdumpList) {
  for (const char* name : kCommitted) {
    auto file = bytes_of(fixture_path(name));
    RECORD_EQ(describe_list(entry_list(read_fatbin_file(file))), [&] {
      auto truth = cuobjdump_list(fixture_text(std::string(name) + ".list.txt"));
      if (truth.empty()) truth.emplace_back("(the fixture lists no entries)", 0);
      return describe_list(truth);
    }()) << read_fatbin_of(name) << ": the kind and architecture of every entry, as `cuobjdump --list-elf --list-ptx "
         << name << "` lists them";
  }
}

// What CompressionFlagsAndSizes compares of an entry.
struct Compression {
  std::string kind;
  bool compressed = false;
  bool zstd_magic_at_payload = false;
};
nlohmann::json record_value(const Compression& c) {
  return {{"kind", c.kind}, {"compressed", c.compressed}, {"zstd_magic_at_payload", c.zstd_magic_at_payload}};
}

TEST(Fatbin, CompressionFlagsAndSizes) {
  // vadd_nocomp: nothing compressed; vadd (nvcc's default): the PTX only;
  // vadd_size and zoo_size (--compress-mode=size): everything. A compressed
  // payload starts with zstd's magic number, 28 b5 2f fd.
  struct Case {
    const char* name;
    lt::Expected<bool> elf_compressed, ptx_compressed;
  };
  const std::vector<Case> cases = {
      {"vadd_nocomp.fatbin", LAUNCHLAB_EXPECTED(false), LAUNCHLAB_EXPECTED(false)},
      {"vadd.fatbin", LAUNCHLAB_EXPECTED(false), LAUNCHLAB_EXPECTED(true)},
      {"vadd_size.fatbin", LAUNCHLAB_EXPECTED(true), LAUNCHLAB_EXPECTED(true)},
      {"zoo_size.fatbin", LAUNCHLAB_EXPECTED(true), LAUNCHLAB_EXPECTED(true)},
  };
  for (const Case& c : cases) {
    RECORD_SCOPE(read_fatbin_of(c.name));
    auto file = bytes_of(fixture_path(c.name));
    FatbinFile fb = read_fatbin_file(file);
    RECORD_EQ(fb.containers.size(), 1u) << "how many containers: a bare fatbin is one";
    const bool has_a_container = !fb.containers.empty();
    RECORD_REQUIRE(has_a_container);
    const FatbinContainer& container = fb.containers[0];
    RECORD_EQ(container.offset, 0u) << "container 0's offset";
    RECORD_EQ(container.header_size, 16u) << "container 0's header_size";
    RECORD_EQ(container.size + container.header_size, file.size()) << "container 0's header_size + size: the whole file";
    std::vector<Compression> got;
    for (const auto& e : container.entries)
      got.push_back({kind_name(e.kind), e.compressed(), starts_with_zstd_magic(file, e.payload_offset)});
    RECORD_EQ(got, [&] {
      std::vector<Compression> expected;
      for (const auto& [kind, arch] : cuobjdump_list(fixture_text(std::string(c.name) + ".list.txt"))) {
        const bool want = kind == "elf" ? c.elf_compressed.value : c.ptx_compressed.value;
        expected.push_back({kind, want, want});
      }
      return expected;
    }()) << "each entry's kind, whether it is compressed, and whether its payload starts with zstd's magic number";
    RECORD_EQ(size_problems(container, file.size()), std::vector<std::string>{})
        << "where the entries sit and how their sizes agree, by their own fields";
  }
}

TEST(Fatbin, PayloadsInflateToTheCubins) {
  if (!zstd_available()) GTEST_SKIP() << "needs libzstd.so.1 (Debian: libzstd1), which is not installed here";
  // The cubins nvcc -cubin wrote for the same kernels and architectures
  // (02_reading_sass/fixtures) are byte for byte the ELF entries.
  for (const char* name : {"vadd.fatbin", "vadd_size.fatbin", "vadd_nocomp.fatbin", "zoo_size.fatbin"}) {
    std::string kernel = std::string(name).substr(0, std::string(name).find_first_of("_."));
    auto file = bytes_of(fixture_path(name));
    FatbinFile fb = read_fatbin_file(file);
    RECORD_EQ(entry_list(fb).size(), cuobjdump_list(fixture_text(std::string(name) + ".list.txt")).size())
        << read_fatbin_of(name) << ": how many entries";
    int elves = 0, ptxs = 0;
    for (const auto& c : fb.containers) {
      for (const auto& e : c.entries) {
        RECORD_SCOPE("entry_payload(the " + kind_name(e.kind) + " " + std::to_string(e.arch) + " entry at " +
                     hex(e.offset) + " of " + read_fatbin_of(name) + ")");
        auto payload = entry_payload(e, file);
        RECORD_TRUE(payload.size() == e.uncompressed_size) << "whether its size is the entry's uncompressed_size";
        if (e.kind == 2) {
          RECORD_EQ(checksum(payload), checksum(bytes_of(cubin_path(kernel + ".sm_" + std::to_string(e.arch)))))
              << "its bytes: those of " << kernel << ".sm_" << e.arch << ".cubin";
          ++elves;
        } else {
          const std::string text(reinterpret_cast<const char*>(payload.data()), payload.size());
          RECORD_CONTAINS(text, ".target sm_" + std::to_string(e.arch)) << "its text, PTX for sm_" << e.arch;
          RECORD_CONTAINS(text, ".entry") << "its text, PTX with an entry";
          ++ptxs;
        }
      }
    }
    RECORD_GE(elves, 2) << read_fatbin_of(name) << ": how many ELF entries";
    RECORD_EQ(ptxs, 1) << read_fatbin_of(name) << ": how many PTX entries";
  }
  // zstd_decompress itself: a frame must inflate to exactly the size asked for.
  const auto vadd = bytes_of(fixture_path("vadd.fatbin"));
  for (const RawEntry& e : entries_of_first_container(vadd)) {
    if (!(e.flags & kFlagCompressedZstd)) continue;
    const auto frame = std::span<const std::byte>(vadd).subspan(e.offset + e.header_size, le(vadd, e.offset + 16, 4));
    const std::size_t inflated = le(vadd, e.offset + 56, 8);
    RECORD_NO_THROW(zstd_decompress(frame, inflated)) << "zstd_decompress(the frame of the entry at " << hex(e.offset)
                                                      << " of vadd.fatbin, its uncompressed size)";
    RECORD_THROWS(zstd_decompress(frame, inflated + 1), std::runtime_error)
        << "zstd_decompress(the frame of the entry at " << hex(e.offset) << " of vadd.fatbin, one byte more than it inflates to)";
    break;
  }
  const auto not_a_frame = std::as_bytes(std::span(std::string_view("not a zstd frame")));
  RECORD_THROWS(zstd_decompress(not_a_frame, 64), std::runtime_error) << "zstd_decompress(\"not a zstd frame\", 64)";
}

TEST(Fatbin, HostObjectAndExecutable) {
  const bool have_readelf = readelf().has_value();
  for (const char* name : {"vadd.o", "vadd_exe"}) {
    RECORD_SCOPE(read_fatbin_of(name));
    auto file = bytes_of(fixture_path(name));
    FatbinFile fb = read_fatbin_file(file);
    ElfFile elf = read_elf(file);
    const ElfSection* segment = elf.find_section(".nvFatBinSegment");
    const ElfSection* data = elf.find_section(".nv_fatbin");
    const bool read_elf_finds_both_sections = segment && data;
    RECORD_REQUIRE(read_elf_finds_both_sections);
    if (have_readelf) {
      // readelf's view of the two sections.
      RECORD_EQ(fb.wrappers.size(), [&] {
        for (const auto& s : readelf_sections(fixture_path(name)))
          if (s.name == ".nvFatBinSegment") return s.size / 24;
        return std::uint64_t{0};
      }()) << "how many wrappers: one per 24 bytes of .nvFatBinSegment, as readelf -SW gives its size";
      RECORD_EQ(fb.containers.empty() ? std::optional<Hex>() : Hex{fb.containers.front().offset}, [&] {
        for (const auto& s : readelf_sections(fixture_path(name)))
          if (s.name == ".nv_fatbin") return Hex{s.offset};
        return Hex{};
      }()) << "container 0's offset: where .nv_fatbin starts, as readelf -SW gives it";
    }
    const bool has_wrappers = !fb.wrappers.empty();
    RECORD_REQUIRE(has_wrappers);
    for (const auto& w : fb.wrappers) {
      RECORD_SCOPE("the wrapper at " + hex(w.offset));
      RECORD_EQ(Hex{w.magic}, Hex{kWrapperMagic}) << "its magic";
      RECORD_TRUE(w.version == 1 || w.version == 2) << "whether its version is 1 or 2";
      if (elf.type == 1) {
        RECORD_EQ(w.data, 0u) << "its data: in an object file a relocation fills the pointer";
      } else {
        // In the executable each wrapper points at one of the containers.
        bool found = false;
        for (const auto& c : fb.containers) found = found || (w.data - data->address + data->offset == c.offset);
        RECORD_TRUE(found) << "whether its data (" << hex(w.data) << ") points at one of the containers";
      }
    }
  }
}

// What CubinIsOneEntry compares of the one entry.
struct CubinEntry {
  std::uint16_t kind = 0;
  std::uint32_t arch = 0;
  bool compressed = false;
  std::uint64_t offset = 0, header_size = 0, payload_size = 0;
};
nlohmann::json record_value(const CubinEntry& e) {
  return {{"kind", kind_name(e.kind)}, {"arch", e.arch},               {"compressed", e.compressed},
          {"offset", hex(e.offset)},   {"header_size", e.header_size}, {"payload_size", e.payload_size}};
}

TEST(Fatbin, CubinIsOneEntry) {
  for (const auto& stem : cubin_stems()) {
    RECORD_SCOPE(read_fatbin_of(stem + ".cubin"));
    auto file = bytes_of(cubin_path(stem));
    FatbinFile fb = read_fatbin_file(file);
    RECORD_EQ(fb.containers.size(), 1u) << "how many containers";
    const bool has_a_container = !fb.containers.empty();
    RECORD_REQUIRE(has_a_container);
    RECORD_EQ(fb.containers[0].entries.size(), 1u) << "how many entries container 0 has";
    const bool has_an_entry = !fb.containers[0].entries.empty();
    RECORD_REQUIRE(has_an_entry);
    const FatbinEntry& e = fb.containers[0].entries[0];
    RECORD_EQ((CubinEntry{e.kind, e.arch, e.compressed(), e.offset, e.header_size, e.payload_size}),
              (CubinEntry{2, static_cast<std::uint32_t>(stem_arch(stem)), false, 0, 0, file.size()}))
        << "entry 0: an uncompressed ELF entry covering the whole file, for the cubin's architecture";
    RECORD_EQ(checksum(entry_payload(e, file)), checksum(file)) << "entry_payload(entry 0): the cubin's bytes";
  }
}

TEST(Fatbin, FreshSharedLibrary) {
  // A shared library of zoo.cu for two architectures, built with --keep:
  // every ELF entry in it is, inflated, one of the cubins nvcc left in the
  // keep folder (zoo's, and the device link's), and each of those is there
  // once. nvcc writes the same bytes every time for the same source and
  // options, so the reference's build and the learner's agree.
  const fs::path& dir = work_dir();
  fs::create_directories(dir / "keep");
  lt::output_of({lt::nvcc().string(), "-shared", "-Xcompiler", "-fPIC", "--keep", "--keep-dir", "keep", "-gencode",
                "arch=compute_80,code=sm_80", "-gencode", "arch=compute_120,code=[sm_120,compute_120]", "-o",
                "libfresh.so", "zoo.cu"},
               dir);
  RECORD_SCOPE(read_fatbin_of(
      "libfresh.so, from `nvcc -shared -Xcompiler -fPIC --keep --keep-dir keep -gencode arch=compute_80,code=sm_80 "
      "-gencode arch=compute_120,code=[sm_120,compute_120] -o libfresh.so zoo.cu`"));
  auto file = bytes_of(dir / "libfresh.so");
  FatbinFile fb = read_fatbin_file(file);
  RECORD_GT(fb.wrappers.size(), 0u) << "how many wrappers";
  RECORD_TRUE(fb.wrappers.size() == fb.containers.size()) << "whether there is one wrapper per container";
  std::vector<std::uint32_t> ptx_archs;
  std::vector<std::string> elf_payloads;
  for (const auto& c : fb.containers) {
    for (const auto& e : c.entries) {
      if (e.kind == 1) ptx_archs.push_back(e.arch);
      else if (zstd_available() || !e.compressed()) elf_payloads.push_back(checksum(entry_payload(e, file)));
    }
  }
  RECORD_EQ(ptx_archs, std::vector<std::uint32_t>{120}) << "the architectures of the PTX entries: only compute_120's";
  // Without libzstd a compressed entry cannot be inflated, so which kept
  // cubin it is cannot be told.
  if (!zstd_available()) return;
  std::sort(elf_payloads.begin(), elf_payloads.end());
  RECORD_EQ(elf_payloads, [&] {
    std::vector<std::string> kept;
    for (const auto& entry : fs::directory_iterator(dir / "keep")) {
      if (entry.path().extension() == ".cubin") kept.push_back(checksum(bytes_of(entry.path())));
    }
    if (kept.size() < 2) kept.assign(1, "(fewer than two cubins in the keep folder: the test's own build is wrong)");
    std::sort(kept.begin(), kept.end());
    return kept;
  }()) << "entry_payload of every ELF entry, as sizes and checksums, sorted: each cubin of the keep folder once";
}

TEST(Fatbin, LibcublasLtListsFast) {
  fs::path lib = lt::nvcc().parent_path().parent_path() / "lib64" / "libcublasLt.so.13";
  if (!fs::exists(lib)) GTEST_SKIP() << "needs the toolkit's libcublasLt.so.13, which is not installed here";
  RECORD_SCOPE(read_fatbin_of("the toolkit's libcublasLt.so.13"));
  auto start = std::chrono::steady_clock::now();
  MappedFile mapped(lib);
  FatbinFile fb = read_fatbin_file(mapped.bytes());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  auto got = entry_list(fb);
  RECORD_GT(got.size(), 1000u) << "how many entries";
  RECORD_GT(fb.wrappers.size(), 100u) << "how many wrappers";
  RECORD_TRUE(fb.wrappers.size() == fb.containers.size()) << "whether there is one wrapper per container";
  RECORD_LE(seconds, 2.0) << "the seconds it takes to read the entries (not their payloads) of the "
                          << mapped.bytes().size() / (1 << 20) << " MiB library";
  // The truth where the committed listing was made from this very file
  // (same size): cuobjdump --list-elf --list-ptx on the GPU machine.
  fs::path size_file = fixture_path("libcublasLt.so.13.size.txt");
  if (fs::exists(size_file) && std::stoull(lt::read_file(size_file)) == mapped.bytes().size()) {
    RECORD_EQ(describe_list(got), describe_list(cuobjdump_list(fixture_text("libcublasLt.so.13.list.txt"))))
        << "the kind and architecture of every entry, as `cuobjdump --list-elf --list-ptx` lists them";
  }
}

TEST(Fatbin, TruncatedAndCorruptFilesNameTheOffset) {
  const auto good = bytes_of(fixture_path("vadd.fatbin"));
  const auto entries = entries_of_first_container(good);
  struct Case {
    std::vector<std::byte> bytes;
    std::string what;
    lt::Expected<std::uint64_t> offset;
  };
  std::vector<Case> cases;
  auto cut = [&](std::size_t size) { return std::vector<std::byte>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(size)); };
  cases.push_back({cut(10), "the first 10 bytes of vadd.fatbin: a container header cut short", LAUNCHLAB_EXPECTED(0)});
  cases.push_back({cut(good.size() - 1), "vadd.fatbin without its last byte: the container's entries run past the end",
                   LAUNCHLAB_EXPECTED(0)});
  {
    // A container that claims fewer bytes: the last entry's header is cut.
    auto b = good;
    std::uint64_t size = entries[2].offset - 16 + 40;
    for (int i = 0; i < 8; ++i) b[8 + i] = static_cast<std::byte>((size >> (8 * i)) & 0xff);
    cases.push_back({b, "vadd.fatbin with the container's size made " + std::to_string(size) + ", which cuts entry 2's header (at " +
                            hex(entries[2].offset) + ")",
                     LAUNCHLAB_EXPECTED(entries[2].offset)});
  }
  {
    // An entry whose payload runs past its container: that entry.
    auto b = good;
    b[entries[1].offset + 8 + 5] = std::byte{0x7f};
    cases.push_back({b, "vadd.fatbin with entry 1's payload size (at " + hex(entries[1].offset) + " + 8) made enormous",
                     LAUNCHLAB_EXPECTED(entries[1].offset)});
    b = good;
    b[entries[0].offset + 4] = std::byte{8};
    b[entries[0].offset + 5] = std::byte{0};
    cases.push_back({b, "vadd.fatbin with entry 0's header size (at " + hex(entries[0].offset) + " + 4) made 8",
                     LAUNCHLAB_EXPECTED(entries[0].offset)});
  }
  {
    // In a host file: the second container's magic, the second wrapper's magic.
    const auto exe = bytes_of(fixture_path("vadd_exe"));
    const auto containers = container_offsets(exe, section_range(exe, ".nv_fatbin"));
    const std::uint64_t second_wrapper = section_range(exe, ".nvFatBinSegment").offset + 24;
    auto b = exe;
    b[containers.at(1)] = std::byte{0x51};
    cases.push_back({b, "vadd_exe with the magic of its second container (at " + hex(containers.at(1)) + ") damaged",
                     LAUNCHLAB_EXPECTED(containers.at(1))});
    b = exe;
    b[second_wrapper] = std::byte{0x00};
    cases.push_back({b, "vadd_exe with the magic of its second wrapper (at " + hex(second_wrapper) + ") damaged",
                     LAUNCHLAB_EXPECTED(second_wrapper)});
  }
  for (const Case& c : cases) {
    RECORD_EQ(format_error_of([&] { read_fatbin_file(c.bytes); }), "FormatError at offset " + hex(c.offset.value))
        << "read_fatbin_file(" << c.what << ")";
    const std::string message = lt::message_thrown<FormatError>([&] { read_fatbin_file(c.bytes); });
    RECORD_CONTAINS(message, "offset") << "the FormatError's message names the offset";
  }
  // A compressed payload that does not inflate: the payload.
  if (zstd_available()) {
    // The PTX entry, told it inflates to one byte more than it does.
    auto b = good;
    const RawEntry& ptx = entries[2];
    const std::uint64_t wrong = le(good, ptx.offset + 56, 8) + 1;
    for (int i = 0; i < 8; ++i) b[ptx.offset + 56 + i] = static_cast<std::byte>((wrong >> (8 * i)) & 0xff);
    RECORD_EQ(format_error_of([&] { (void)entry_payload(read_fatbin_file(b).containers.at(0).entries.at(2), b); }),
              (ptx.flags & kFlagCompressedZstd) ? "FormatError at offset " + hex(ptx.offset + ptx.header_size)
                                                : std::string("(entry 2 of vadd.fatbin is not compressed: the fixture is not what this test needs)"))
        << "entry_payload(entry 2 of read_fatbin_file(vadd.fatbin), whose uncompressed size (at " << hex(ptx.offset)
        << " + 56) is made one byte more than the zstd frame inflates to)";
  }
}

// Where each container's header and each entry's header is, in order.
std::vector<std::uint64_t> header_offsets(const std::vector<FatbinContainer>& containers) {
  std::vector<std::uint64_t> offsets;
  for (const auto& c : containers) {
    offsets.push_back(c.offset);
    for (const auto& e : c.entries) offsets.push_back(e.offset);
  }
  return offsets;
}

TEST(Fatbin, WalkContainersNamesOffsetsFromItsBase) {
  // vadd.fatbin's bytes, as if they were a host file's .nv_fatbin at 0x1000.
  constexpr std::uint64_t base = 0x1000;
  const auto good = bytes_of(fixture_path("vadd.fatbin"));
  const auto entries = entries_of_first_container(good);
  RECORD_OUTCOME(header_offsets(walk_containers(good, base)), FormatError)
      << "walk_containers(the bytes of vadd.fatbin, base 0x1000): the offset of each container and each of its entries";

  struct Case {
    std::vector<std::byte> bytes;
    std::string what;
    lt::Expected<std::uint64_t> offset;
  };
  std::vector<Case> cases;
  {
    auto b = good;
    b[0] = std::byte{0x51};
    cases.push_back({b, "vadd.fatbin with its container's magic damaged", LAUNCHLAB_EXPECTED(base)});
    b = good;
    b[entries[1].offset + 8 + 5] = std::byte{0x7f};
    cases.push_back({b, "vadd.fatbin with entry 1's payload size (at " + hex(entries[1].offset) + " + 8) made enormous",
                     LAUNCHLAB_EXPECTED(base + entries[1].offset)});
    b = good;
    b[entries[0].offset + 4] = std::byte{8};
    b[entries[0].offset + 5] = std::byte{0};
    cases.push_back({b, "vadd.fatbin with entry 0's header size (at " + hex(entries[0].offset) + " + 4) made 8",
                     LAUNCHLAB_EXPECTED(base + entries[0].offset)});
  }
  for (const Case& c : cases) {
    RECORD_THROWS(walk_containers(c.bytes, base), FormatError) << "walk_containers(" << c.what << ", base 0x1000)";
    RECORD_CONTAINS(lt::message_thrown<FormatError>([&] { walk_containers(c.bytes, base); }),
                    "(at offset " + hex(c.offset.value) + ")")
        << "the FormatError of walk_containers(" << c.what << ", base 0x1000): where the structure starts, base included";
  }
}

TEST(Fatbin, EntryPayloadRefusesWhatItCannotRead) {
  // Entries made by hand over 256 bytes of a file, each with its header at
  // 0x10 and its payload at 0x50 (header_size 64).
  const std::vector<std::byte> file(256, std::byte{0});
  auto entry = [](std::uint64_t payload_size, std::uint64_t flags, std::uint32_t compressed_size, std::uint64_t uncompressed_size) {
    FatbinEntry e;
    e.offset = 0x10;
    e.kind = 2;
    e.header_size = 64;
    e.payload_offset = 0x50;
    e.payload_size = payload_size;
    e.flags = flags;
    e.compressed_size = compressed_size;
    e.uncompressed_size = uncompressed_size;
    return e;
  };
  struct Case {
    FatbinEntry entry;
    std::string what;
    lt::Expected<std::uint64_t> offset;
  };
  const std::vector<Case> cases = {
      {entry(0x200, 0, 0, 0x200), "an uncompressed payload of 0x200 bytes at 0x50, past the file's 0x100 bytes",
       LAUNCHLAB_EXPECTED(0x10)},
      {entry(0x40, kFlagCompressedZstd, 0x48, 0x100), "a zstd payload of 0x40 bytes whose compressed_size is 0x48",
       LAUNCHLAB_EXPECTED(0x10)},
      {entry(0x40, kFlagCompressedZstd, 0x40, (std::uint64_t{1} << 30) + 1),
       "a zstd payload of 0x40 bytes that claims to inflate to 1 GiB + 1 byte", LAUNCHLAB_EXPECTED(0x10)},
  };
  for (const Case& c : cases) {
    RECORD_THROWS(entry_payload(c.entry, file), FormatError)
        << "entry_payload(an entry with its header at 0x10: " << c.what << ")";
    RECORD_CONTAINS(lt::message_thrown<FormatError>([&] { (void)entry_payload(c.entry, file); }),
                    "(at offset " + hex(c.offset.value) + ")")
        << "the FormatError of entry_payload(an entry with its header at 0x10: " << c.what << "): the entry's header";
  }
  // LZ4 is not supported: a std::runtime_error that says so, not a malformed file.
  const FatbinEntry lz4 = entry(0x40, kFlagCompressedLz4, 0x40, 0x100);
  RECORD_THROWS(entry_payload(lz4, file), std::runtime_error) << "entry_payload(an LZ4 entry of 0x40 bytes at 0x50)";
  RECORD_CONTAINS(lt::message_thrown<std::runtime_error>([&] { (void)entry_payload(lz4, file); }), "LZ4")
      << "the message of entry_payload(an LZ4 entry of 0x40 bytes at 0x50)";
  RECORD_FALSE(lt::thrown<FormatError>([&] { (void)entry_payload(lz4, file); }).has_value())
      << "whether entry_payload(an LZ4 entry of 0x40 bytes at 0x50) throws FormatError";
}

TEST(Fatbin, CorruptBytesNeverCrash) {
  std::mt19937 random(20260303);
  for (const char* name : {"vadd.fatbin", "vadd_size.fatbin", "vadd_exe"}) {
    RECORD_SCOPE(std::string("read_fatbin_file, then entry_payload of each entry, on 1500 damaged copies of ") + name);
    const auto good = bytes_of(fixture_path(name));
    // Edits land in the fatbin data: all of a bare fatbin, .nv_fatbin and
    // .nvFatBinSegment of the executable.
    std::vector<Range> ranges;
    if (std::string(name) == "vadd_exe") {
      for (const char* s : {".nv_fatbin", ".nvFatBinSegment"}) ranges.push_back(section_range(good, s));
    } else {
      ranges.push_back({0, good.size()});
    }
    RECORD_GT(read_fatbin_file(good).containers.size(), 0u) << "how many containers the undamaged file has";
    int refused = 0;
    std::vector<std::string> other_exceptions;
    for (int round = 0; round < 1500; ++round) {
      auto b = good;
      int edits = 1 + static_cast<int>(random() % 6);
      for (int e = 0; e < edits; ++e) {
        const Range& range = ranges[random() % ranges.size()];
        b[range.offset + random() % range.size] = static_cast<std::byte>(random() & 0xff);
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
        if (other_exceptions.size() < 3) other_exceptions.push_back("copy " + std::to_string(round) + ": " + e.what());
      }
    }
    RECORD_EQ(other_exceptions, std::vector<std::string>{})
        << "the copies that threw something else than FormatError (the first three)";
    RECORD_GT(refused, 150) << "how many damaged copies were refused with FormatError";
  }
}

}  // namespace
