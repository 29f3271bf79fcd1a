// Part D: constant_bank, read_bank_header, expected_launch and check_launch,
// on values written here and on every committed capture, against what the
// CUDA side and the driver said about each launch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "launchlab/record.h"
#include "launchlab/testing.h"
#include "pipeline.h"
#include "real_launch.h"

namespace launchlab::real_launch_tests {
namespace {

using real_launch::ExpectedLaunch;
using real_launch::InlineUpload;
using real_launch::Mismatch;

std::vector<std::string> shown(const std::vector<Mismatch>& mismatches) {
  std::vector<std::string> out;
  for (const Mismatch& m : mismatches) out.push_back(m.field + ": expected " + m.expected + ", found " + m.found);
  return out;
}

std::vector<std::byte> bytes_of(std::initializer_list<std::pair<std::size_t, unsigned>> runs) {
  std::vector<std::byte> out;
  for (const auto& [count, value] : runs) out.insert(out.end(), count, static_cast<std::byte>(value));
  return out;
}

std::uint32_t round_up(std::uint64_t value, std::uint32_t granule) {
  return static_cast<std::uint32_t>((value + granule - 1) / granule * granule);
}

TEST(Bank, CoveredPrefixFromTheLastUpload) {
  qmd::Qmd q;
  q.version = qmd::QmdVersion::V04_00;
  q.cbank0 = {0x10000, 0x300, true};
  const std::vector<InlineUpload> uploads = {
      {1, 0x10000, 0x41, bytes_of({{0x210, 0x11}}), 0},
      {1, 0x10210, 0x41, bytes_of({{16, 0x22}}), 4},
      {1, 0x10208, 0x41, bytes_of({{8, 0x33}}), 8},      // later, over the header's last 8 bytes
      {1, 0x10210, 0x41, bytes_of({{4, 0x55}}), 12},     // later, over the first parameter bytes
      {1, 0x10400, 0x41, bytes_of({{4, 0x66}}), 16},     // past the bank
      {1, 0x10280, 0x41, bytes_of({{4, 0x77}}), 20},     // inside the bank, after a gap
      {1, 0x20000, 0x41, bytes_of({{0x300, 0x88}}), 24}, // another bank
  };
  std::string found;
  try {
    found = hex(real_launch::constant_bank(q, uploads));
  } catch (const std::exception& e) {
    found = std::string("threw: ") + e.what();
  }
  RECORD_EQ(found, hex(bytes_of({{0x208, 0x11}, {8, 0x33}, {4, 0x55}, {12, 0x22}})))
      << "a bank of 0x300 bytes at 0x10000; uploads of 0x210 bytes at its start, 16 at +0x210, then 8 at +0x208 and 4 "
         "at +0x210 over them, 4 past its end, 4 at +0x280 after a gap, 0x300 to another bank";
  const std::vector<InlineUpload> straddling = {{1, 0x102f8, 0x41, bytes_of({{16, 0x99}}), 0},
                                                {1, 0x10000, 0x41, bytes_of({{0x2f8, 0x11}}), 4}};
  try {
    found = hex(real_launch::constant_bank(q, straddling));
  } catch (const std::exception& e) {
    found = std::string("threw: ") + e.what();
  }
  RECORD_EQ(found, hex(bytes_of({{0x2f8, 0x11}, {8, 0x99}})))
      << "an upload of 16 bytes at +0x2f8 (8 of them past the end of the bank of 0x300), then 0x2f8 bytes at its start";
  RECORD_THROWS(real_launch::constant_bank(q, std::vector<InlineUpload>(uploads.begin() + 1, uploads.end())),
                real_launch::LaunchError)
      << "the same uploads without the one at the bank's first byte";
}

TEST(Bank, HeaderHoldsBlockDimAndGridDim) {
  for (const std::string& name : capture_names()) {
    const Capture& c = capture(name);
    const Decoded& d = decoded(name);
    std::vector<std::string> found, launched;
    for (const auto& l : d.launches) {
      try {
        const auto h = real_launch::read_bank_header(l.bank);
        found.push_back("blockDim " + show(h.block_dim) + " gridDim " + show(h.grid_dim));
      } catch (const std::exception& e) {
        found.push_back(std::string("threw: ") + e.what());
      }
    }
    for (const auto& l : c.launches) launched.push_back("blockDim " + show(l.block) + " gridDim " + show(l.grid));
    std::sort(found.begin(), found.end());
    std::sort(launched.begin(), launched.end());
    RECORD_EQ(found, launched) << name << ": blockDim and gridDim at c[0x0][0x0] and c[0x0][0xc]";
  }
  RECORD_THROWS(real_launch::read_bank_header(bytes_of({{23, 0}})), real_launch::LaunchError) << "a bank of 23 bytes";
}

// The read-back code of a capture with one launch: what the GPU held at the
// QMD's program address after the launch.
std::vector<std::byte> read_back(const Capture& c, const std::string& what) {
  std::vector<std::byte> found;
  std::size_t count = 0;
  for (const auto& r : c.read_back) {
    if (r.what == what) {
      found = r.bytes;
      ++count;
    }
  }
  return count == 1 ? found : std::vector<std::byte>{};
}

real_launch::DeviceFacts facts_of(const Capture& c) {
  real_launch::DeviceFacts facts;
  if (auto it = c.device.find("reserved_shared_per_block"); it != c.device.end()) {
    facts.reserved_shared = static_cast<std::uint32_t>(it->second);
  }
  return facts;
}

std::int64_t attribute(const Capture& c, const std::string& kernel, const std::string& key) {
  auto k = c.attributes.find(kernel);
  if (k == c.attributes.end()) return -1;
  auto a = k->second.find(key);
  return a == k->second.end() ? -1 : a->second;
}

// Records expected_launch's fields for every launch of the captures whose
// parameters are, or are not, larger than 4,352 bytes, against the driver's
// attributes, the CUDA side's buffer and the code the GPU held.
void record_expected(bool large) {
  for (const std::string& name : capture_names()) {
    const Capture& c = capture(name);
    for (std::size_t i = 0; i < c.launches.size(); ++i) {
      const auto& l = c.launches[i];
      const std::vector<std::byte> passed = packed_params(c, l);
      if ((passed.size() > 4352) != large) continue;
      RECORD_SCOPE(name + ", launch " + std::to_string(i) + " of " + l.kernel);
      ExpectedLaunch e;
      try {
        e = real_launch::expected_launch(cubin(c.cubins.at(l.kernel)), l, facts_of(c));
      } catch (const std::exception& error) {
        RECORD_EQ(std::string(error.what()), std::string()) << "expected_launch threw";
        continue;
      }
      Dim3 in_clusters = l.grid;
      for (std::size_t k = 0; k < 3; ++k) in_clusters[k] /= l.cluster[k] ? l.cluster[k] : 1;
      RECORD_EQ(show(e.qmd_grid), show(in_clusters)) << "the grid in clusters, cluster " << show(l.cluster);
      RECORD_EQ(show(e.block), show(l.block)) << "the block";
      RECORD_EQ(show(e.grid_dim), show(l.grid)) << "gridDim";
      RECORD_EQ(e.registers, std::max<std::int64_t>(attribute(c, l.kernel, "registers"), 16))
          << "CU_FUNC_ATTRIBUTE_NUM_REGS " << attribute(c, l.kernel, "registers") << ", at least 16";
      RECORD_EQ(e.shared_memory, round_up(facts_of(c).reserved_shared + attribute(c, l.kernel, "shared_static") + l.shared_dynamic, 128))
          << "reserved " << facts_of(c).reserved_shared << " + static " << attribute(c, l.kernel, "shared_static")
          << " + dynamic " << l.shared_dynamic << " bytes, rounded up to 128";
      RECORD_EQ(e.sass_version, static_cast<std::uint32_t>((c.arch / 10) << 4 | (c.arch % 10))) << "sm_" << c.arch;
      RECORD_EQ(e.param_base, kSm90ParamBase) << "where sm_90 puts the parameters";
      RECORD_EQ(e.bank_size, round_up(kSm90ParamBase + passed.size(), 256))
          << "0x210 + " << passed.size() << " parameter bytes, rounded up to 256";
      RECORD_EQ(hex(e.params), hex(passed)) << "the parameters, packed at the offsets cuFuncGetParamInfo gave";
      const auto code = read_back(c, "code");
      if (c.launches.size() == 1 && !code.empty()) {
        const std::size_t n = std::min(code.size(), e.code.size());
        RECORD_EQ(hex(std::span(e.code).first(n)), hex(std::span(code).first(n)))
            << "the start of the kernel's code, as the GPU held it at the QMD's program address ("
            << e.code.size() << " bytes of .text expected)";
      }
    }
  }
}

TEST(Expected, FromTheCubinAndTheArguments) {
  record_expected(false);
  // What cannot be expected: a kernel the cubin lacks, a cluster that does
  // not divide the grid, a cubin whose .nv.info lab 03 cannot read.
  const std::string name = capture_names().at(0);
  const Capture& c = capture(name);
  RECORD_REQUIRE(!c.launches.empty());
  const real_launch::LaunchRecord& launch = c.launches.front();
  const containers::ElfFile& elf = cubin(c.cubins.at(launch.kernel));
  RECORD_SCOPE(name + ", launch 0 of " + launch.kernel + ", changed");
  real_launch::LaunchRecord unknown = launch;
  unknown.kernel = "no_such_kernel";
  RECORD_THROWS(real_launch::expected_launch(elf, unknown, facts_of(c)), real_launch::LaunchError)
      << "a launch of no_such_kernel, which the cubin lacks";
  real_launch::LaunchRecord uneven = launch;
  uneven.grid = {3, 1, 1};
  uneven.cluster = {2, 1, 1};
  RECORD_THROWS(real_launch::expected_launch(elf, uneven, facts_of(c)), real_launch::LaunchError)
      << "a grid of (3, 1, 1) in clusters of (2, 1, 1)";
  containers::ElfFile cut = elf;
  for (auto& section : cut.sections) {
    if (section.name == ".nv.info") section.size -= 1;
  }
  RECORD_THROWS(real_launch::expected_launch(cut, launch, facts_of(c)), containers::FormatError)
      << "the cubin with its .nv.info section one byte shorter, which cuts its last record";
}

TEST(Expected, LargeParametersUseKparamInfoV2) { record_expected(true); }

TEST(Check, ReportsEachWrongField) {
  // The chapter's odd-shaped launch, written out: fill<<<(1021, 5, 7), (96, 2, 1)>>>.
  qmd::Qmd q;
  q.version = qmd::QmdVersion::V04_00;
  q.grid = {1021, 5, 7};
  q.block = {96, 2, 1};
  q.registers = 16;
  q.shared_memory = 1024;
  q.barrier_count = 1;
  q.sass_version = 0x90;
  q.cbank0 = {0x7f9fd62e0000, 768, true};
  std::vector<std::byte> bank(0x220, std::byte{0});
  const std::uint32_t header[6] = {96, 2, 1, 1021, 5, 7};
  std::memcpy(bank.data(), header, sizeof header);
  const auto params = bytes_of({{4, 0xd4}, {4, 0x7f}, {4, 0x10}, {4, 0x5e}});
  std::copy(params.begin(), params.end(), bank.begin() + 0x210);
  const auto code = bytes_of({{16, 0x82}, {16, 0x19}});

  ExpectedLaunch right;
  right.qmd_grid = {1021, 5, 7};
  right.block = {96, 2, 1};
  right.grid_dim = {1021, 5, 7};
  right.registers = 16;
  right.shared_memory = 1024;
  right.barrier_count = 1;
  right.sass_version = 0x90;
  right.param_base = 0x210;
  right.bank_size = 768;
  right.params = params;
  right.code = bytes_of({{16, 0x82}, {16, 0x19}, {64, 0x00}});

  auto check = [&](const qmd::Qmd& qmd, const std::vector<std::byte>& b, const ExpectedLaunch& e,
                   const std::vector<std::byte>& c) {
    try {
      return shown(real_launch::check_launch(qmd, b, e, c));
    } catch (const std::exception& error) {
      return std::vector<std::string>{std::string("threw: ") + error.what()};
    }
  };
  RECORD_EQ(check(q, bank, right, code), std::vector<std::string>{}) << "the launch as expected";

  ExpectedLaunch e = right;
  e.qmd_grid = {511, 5, 7};
  e.registers = 24;
  RECORD_EQ(check(q, bank, e, code), (std::vector<std::string>{"grid: expected (511, 5, 7), found (1021, 5, 7)",
                                                               "registers: expected 24, found 16"}))
      << "an expected grid of (511, 5, 7) and 24 registers";

  qmd::Qmd wrong = q;
  wrong.block = {96, 1, 1};
  wrong.shared_memory = 2048;
  wrong.barrier_count = 2;
  wrong.sass_version = 0x89;
  wrong.cbank0.size = 512;
  wrong.cbank0.valid = false;
  RECORD_EQ(check(wrong, bank, right, code), (std::vector<std::string>{
                                                 "block: expected (96, 2, 1), found (96, 1, 1)",
                                                 "shared_memory: expected 1024, found 2048",
                                                 "barrier_count: expected 1, found 2",
                                                 "sass_version: expected 144, found 137",
                                                 "bank_size: expected 768, found 512",
                                                 "bank_valid: expected true, found false",
                                             }))
      << "a QMD with block (96, 1, 1), 2048 bytes of shared memory, 2 barriers, SASS version 0x89 and an invalid "
         "bank of 512 bytes";

  std::vector<std::byte> other = bank;
  other[4] = std::byte{3};          // blockDim.y
  other[0x14] = std::byte{9};       // gridDim.z
  other[0x213] = std::byte{0x2a};   // the fourth parameter byte
  std::vector<std::byte> other_code = code;
  other_code[17] = std::byte{0};
  RECORD_EQ(check(q, other, right, other_code), (std::vector<std::string>{
                                                    "bank_block_dim: expected (96, 2, 1), found (96, 3, 1)",
                                                    "bank_grid_dim: expected (1021, 5, 7), found (1021, 5, 9)",
                                                    "params: expected at 3: 0xd4, found at 3: 0x2a",
                                                    "code: expected at 17: 0x19, found at 17: 0x00",
                                                }))
      << "a bank with blockDim.y 3, gridDim.z 9 and 0x2a in parameter byte 3, and code with 0x00 at byte 17";

  std::vector<std::byte> cut(bank.begin(), bank.begin() + 0x218);
  RECORD_EQ(check(q, cut, right, {}), std::vector<std::string>{"params: expected 16 bytes, found 8 bytes"})
      << "a bank uploaded only up to 8 bytes into the parameters, and no code read back";
  RECORD_EQ(check(q, std::vector<std::byte>(16), right, {}), (std::vector<std::string>{
                                                                 "bank_block_dim: expected (96, 2, 1), found 16 bytes of bank",
                                                                 "bank_grid_dim: expected (1021, 5, 7), found 16 bytes of bank",
                                                                 "params: expected 16 bytes, found 0 bytes",
                                                             }))
      << "a bank of 16 bytes";
}

TEST(Check, EveryCapturedLaunchAgrees) {
  for (const std::string& name : capture_names()) {
    const Capture& c = capture(name);
    const Decoded& d = decoded(name);
    RECORD_EQ(d.error, std::string()) << name << ": decoding the capture";
    std::vector<bool> used(d.launches.size(), false);
    for (std::size_t i = 0; i < c.launches.size(); ++i) {
      const auto& l = c.launches[i];
      RECORD_SCOPE(name + ", launch " + std::to_string(i) + " of " + l.kernel);
      // The decoded launch with the same gridDim, blockDim and parameters.
      const std::string wanted = signature(c, l);
      std::size_t at = 0;
      while (at < d.launches.size() && (used[at] || signature(d.launches[at]) != wanted)) ++at;
      RECORD_REQUIRE(at < d.launches.size());
      used[at] = true;
      const DecodedLaunch& found = d.launches[at];
      std::vector<std::byte> code;
      for (const auto& r : c.read_back) {
        if (r.what == "code" && r.address == found.qmd.qmd.program_address) code = r.bytes;
      }
      std::vector<std::string> mismatches;
      try {
        const ExpectedLaunch e = real_launch::expected_launch(cubin(c.cubins.at(l.kernel)), l, facts_of(c));
        mismatches = shown(real_launch::check_launch(found.qmd.qmd, found.bank, e, code));
      } catch (const std::exception& error) {
        mismatches.push_back(std::string("threw: ") + error.what());
      }
      RECORD_EQ(mismatches, std::vector<std::string>{}) << "every field of the decoded launch against what was expected"
                                                        << (code.empty() ? " (no code read back)" : "");
    }
  }
  // A capture damaged on its way here is refused at its line, never graded
  // as launches that disagree.
  const std::string damaged =
      "launchlab-capture 1\n"
      "name damaged\n"
      "arch 90\n"
      "launch 0 kernel=fill api=driver grid=4,1 block=32,1,1 shared_dynamic=0 stream=0 param_bytes=0\n"
      "end\n";
  RECORD_CONTAINS(launchlab::testing::message_thrown<real_launch::LaunchError>([&] { real_launch::read_capture(damaged); }),
                  "line 4")
      << "read_capture of a capture whose line 4 gives the grid as 4,1:\n" << damaged;
}

}  // namespace
}  // namespace launchlab::real_launch_tests
