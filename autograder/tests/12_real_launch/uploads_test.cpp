// Part C: inline_uploads and qmd_launches, on method groups written here and
// on every committed capture.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "launchlab/drawn.h"
#include "launchlab/record.h"
#include "launchlab/testing.h"
#include "pipeline.h"
#include "real_launch.h"

namespace launchlab::real_launch_tests {
namespace {

using channels::MethodGroup;
using channels::SecOp;
using real_launch::InlineUpload;
namespace i2m = real_launch::i2m_method;

MethodGroup group(SecOp op, unsigned subchannel, std::uint32_t method, std::vector<std::uint32_t> data) {
  MethodGroup g;
  g.header.sec_op = op;
  g.header.subchannel = subchannel;
  g.header.method = method;
  g.header.count = op == SecOp::Immd ? data.at(0) : static_cast<std::uint32_t>(data.size());
  g.data = std::move(data);
  return g;
}
MethodGroup inc(unsigned sub, std::uint32_t method, std::vector<std::uint32_t> data) {
  return group(SecOp::Inc, sub, method, std::move(data));
}
MethodGroup non_inc(unsigned sub, std::uint32_t method, std::vector<std::uint32_t> data) {
  return group(SecOp::NonInc, sub, method, std::move(data));
}

// The methods libcuda writes for one upload: OFFSET_OUT_UPPER and OFFSET_OUT,
// LINE_LENGTH_IN and LINE_COUNT, LAUNCH_DMA, then the data in one NON_INC group.
std::vector<MethodGroup> upload(unsigned sub, std::uint64_t address, std::uint32_t length, std::vector<std::uint32_t> data) {
  return {inc(sub, i2m::kOffsetOutUpper, {static_cast<std::uint32_t>(address >> 32), static_cast<std::uint32_t>(address)}),
          inc(sub, i2m::kLineLengthIn, {length, 1}), inc(sub, i2m::kLaunchDma, {0x41}),
          non_inc(sub, i2m::kLoadInlineData, std::move(data))};
}

std::vector<MethodGroup> joined(const std::vector<std::vector<MethodGroup>>& parts) {
  std::vector<MethodGroup> all;
  for (const auto& p : parts) all.insert(all.end(), p.begin(), p.end());
  for (std::size_t i = 0; i < all.size(); ++i) all[i].offset = i;
  return all;
}

std::string hex_of(std::uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(value));
  return text;
}

std::string describe(const InlineUpload& u) {
  char line[96];
  std::snprintf(line, sizeof line, "sub %u at 0x%llx dma 0x%x group %zu: ", u.subchannel,
                static_cast<unsigned long long>(u.address), u.launch_dma, u.group);
  return line + hex(u.bytes);
}

std::vector<std::string> described(const std::vector<InlineUpload>& uploads) {
  std::vector<std::string> out;
  for (const InlineUpload& u : uploads) out.push_back(describe(u));
  return out;
}

std::vector<std::string> uploads_of(const std::vector<MethodGroup>& groups) {
  std::vector<std::string> out;
  try {
    out = described(real_launch::inline_uploads(groups));
  } catch (const std::exception& e) {
    out.push_back(std::string("threw: ") + e.what());
  }
  return out;
}

TEST(Uploads, OneUploadOfSixteenBytes) {
  // The parameters of the chapter's odd-shaped launch (captures/fill_1021x5x7_96x2.capture).
  const auto groups = joined({upload(1, 0x7f9fd62e0210, 16, {0xd4800000, 0x00007f9f, 0x00100000, 0x5eed03fd})});
  RECORD_EQ(uploads_of(groups),
            std::vector<std::string>{"sub 1 at 0x7f9fd62e0210 dma 0x41 group 2: 000080d49f7f000000001000fd03ed5e"})
      << "OFFSET_OUT_UPPER/OFFSET_OUT 0x7f9f, 0xd62e0210; LINE_LENGTH_IN/LINE_COUNT 16, 1; LAUNCH_DMA 0x41; "
         "LOAD_INLINE_DATA x4";
}

TEST(Uploads, LinesThatAreNotWholeWordsAreCut) {
  const auto groups = joined({upload(1, 0x1000, 6, {0x44332211, 0x00006655}), upload(1, 0x2000, 1, {0xffffff7f})});
  RECORD_EQ(uploads_of(groups), (std::vector<std::string>{"sub 1 at 0x1000 dma 0x41 group 2: 112233445566",
                                                          "sub 1 at 0x2000 dma 0x41 group 6: 7f"}))
      << "an upload of 6 bytes in 2 words, then one of 1 byte in 1 word";
}

TEST(Uploads, SubchannelsKeepTheirOwnState) {
  // Subchannel 2 sets its own destination and length between subchannel 1's
  // LAUNCH_DMA and its data; both uploads go where their own methods said.
  const auto groups = joined({
      {inc(1, i2m::kOffsetOutUpper, {0x1, 0x1000}), inc(1, i2m::kLineLengthIn, {8, 1})},
      {inc(2, i2m::kOffsetOutUpper, {0x2, 0x2000}), inc(2, i2m::kLineLengthIn, {4, 1})},
      {inc(1, i2m::kLaunchDma, {0x41}), inc(2, i2m::kLaunchDma, {0x40})},
      {non_inc(2, i2m::kLoadInlineData, {0xcafe}), non_inc(1, i2m::kLoadInlineData, {0xa, 0xb})},
  });
  RECORD_EQ(uploads_of(groups), (std::vector<std::string>{"sub 2 at 0x200002000 dma 0x40 group 5: feca0000",
                                                          "sub 1 at 0x100001000 dma 0x41 group 4: 0a0000000b000000"}))
      << "uploads on subchannels 1 and 2, interleaved; an upload is complete when its last word arrives";
}

TEST(Uploads, EmptyUploadIsCompleteAtOnce) {
  const auto groups = joined({
      {inc(1, i2m::kOffsetOutUpper, {0, 0x3000}), inc(1, i2m::kLineLengthIn, {0, 1}), inc(1, i2m::kLaunchDma, {0x41})},
      upload(1, 0x3100, 4, {7}),
  });
  RECORD_EQ(uploads_of(groups), (std::vector<std::string>{"sub 1 at 0x3000 dma 0x41 group 2: ",
                                                          "sub 1 at 0x3100 dma 0x41 group 5: 07000000"}))
      << "LAUNCH_DMA with LINE_LENGTH_IN 0, then an upload of 4 bytes";
}

TEST(Uploads, MalformedSequencesThrow) {
  const std::vector<std::pair<std::vector<MethodGroup>, std::string>> cases = {
      {joined({{non_inc(1, i2m::kLoadInlineData, {1})}}), "LOAD_INLINE_DATA with no LAUNCH_DMA"},
      {joined({{inc(1, i2m::kLineLengthIn, {8, 1}), inc(1, i2m::kLaunchDma, {0x41}), non_inc(1, i2m::kLoadInlineData, {1}),
                inc(1, i2m::kLaunchDma, {0x41})}}),
       "LAUNCH_DMA while an upload of 8 bytes has had 4"},
      {joined({{inc(1, i2m::kLineLengthIn, {12, 1}), inc(1, i2m::kLaunchDma, {0x41}),
                non_inc(1, i2m::kLoadInlineData, {1, 2})}}),
       "a stream that ends 8 bytes into an upload of 12"},
      {joined({{inc(1, i2m::kLineLengthIn, {8, 2}), inc(1, i2m::kLaunchDma, {0x41})}}), "LINE_COUNT 2"},
      {joined({{inc(3, i2m::kLineLengthIn, {4, 1}), inc(3, i2m::kLaunchDma, {0x41}), non_inc(2, i2m::kLoadInlineData, {1})}}),
       "data on subchannel 2 for an upload opened on subchannel 3"},
  };
  for (const auto& [groups, what] : cases) {
    RECORD_THROWS(real_launch::inline_uploads(groups), real_launch::LaunchError) << what;
  }
  // Drawn streams of uploads, some of them broken one of the four ways
  // above: only code that rejects exactly those and decodes the others
  // matches the solution.
  std::mt19937_64 random = testing::seeded_random(20261201);
  for (const bool valid : testing::draw_validity(random, 8)) {
    std::vector<std::vector<MethodGroup>> uploads(1 + random() % 4);
    std::string given;
    for (auto& part : uploads) {
      const unsigned sub = random() % channels::kSubchannels;
      const std::uint64_t address = (random() % (std::uint64_t{1} << 40)) & ~std::uint64_t{3};
      const auto length = static_cast<std::uint32_t>(1 + random() % 40);
      std::vector<std::uint32_t> data((length + 3) / 4);
      for (std::uint32_t& word : data) word = static_cast<std::uint32_t>(random());
      part = upload(sub, address, length, std::move(data));
      given += (given.empty() ? "" : ", ") + std::to_string(length) + (length == 1 ? " byte" : " bytes") +
               " on subchannel " + std::to_string(sub);
    }
    given = "uploads of " + given;
    if (!valid) {
      const std::size_t broken = random() % uploads.size();
      const unsigned sub = uploads[broken].front().header.subchannel;
      switch (random() % 4) {
        case 0: {
          std::uint32_t& line_count = uploads[broken][1].data[1];  // [1] is LINE_LENGTH_IN, LINE_COUNT
          line_count = static_cast<std::uint32_t>(2 + random() % 3);
          given += "; upload " + std::to_string(broken) + " with LINE_COUNT " + std::to_string(line_count);
          break;
        }
        case 1:  // a second LAUNCH_DMA before the data of the first
          uploads[broken].insert(uploads[broken].begin() + 3, inc(sub, i2m::kLaunchDma, {0x41}));
          given += "; upload " + std::to_string(broken) + " with a second LAUNCH_DMA before its data";
          break;
        case 2:
          uploads.push_back({non_inc(sub, i2m::kLoadInlineData, {static_cast<std::uint32_t>(random())})});
          given += "; then LOAD_INLINE_DATA on subchannel " + std::to_string(sub) + " with no LAUNCH_DMA";
          break;
        default:
          uploads.push_back({inc(sub, i2m::kLineLengthIn, {4, 1}), inc(sub, i2m::kLaunchDma, {0x41})});
          given += "; then LAUNCH_DMA of 4 bytes on subchannel " + std::to_string(sub) + " and the stream ends";
      }
    }
    const std::vector<MethodGroup> groups = joined(uploads);
    RECORD_OUTCOME(described(real_launch::inline_uploads(groups)), real_launch::LaunchError)
        << given << "; returned: each upload as \"sub S at ADDRESS dma LAUNCH_DMA group G: its bytes\"";
  }
}

TEST(Uploads, EveryCaptureUploadsItsParametersAfterTheHeader) {
  for (const std::string& name : capture_names()) {
    const Capture& c = capture(name);
    const Decoded& d = decoded(name);
    // The uploads right after a 0x210-byte upload, to the address after it:
    // what libcuda put behind constant bank 0's header.
    std::vector<std::string> found;
    for (const auto& stream : d.uploads) {
      for (std::size_t i = 0; i + 1 < stream.size(); ++i) {
        if (stream[i].bytes.size() == kSm90ParamBase && stream[i + 1].address == stream[i].address + kSm90ParamBase) {
          found.push_back(hex(stream[i + 1].bytes));
        }
      }
    }
    std::sort(found.begin(), found.end());
    std::vector<std::string> passed;
    for (const auto& l : c.launches) {
      const auto bytes = packed_params(c, l);
      if (!bytes.empty()) passed.push_back(hex(bytes));
    }
    std::sort(passed.begin(), passed.end());
    RECORD_EQ(found, passed) << name << ": the parameter bytes uploaded after a 0x210-byte bank header ("
                             << (d.error.empty() ? "no error" : d.error) << ")";
  }
}

// A V04_00 QMD written by hand at the bits of clcbc0qmd.h: QMD_TYPE, the
// major version 4, the grid and the block.
std::vector<std::uint32_t> hand_qmd(unsigned type, Dim3 grid, Dim3 block) {
  std::vector<std::uint32_t> w(96, 0);
  w[0] = type << 23;                  // QMD_TYPE MW(25:23)
  w[18] = 4u << 4;                    // QMD_MAJOR_VERSION MW(583:580)
  w[32] = grid[0];                    // GRID_WIDTH MW(1055:1024)
  w[33] = grid[1];                    // GRID_HEIGHT MW(1071:1056)
  w[34] = grid[2];                    // GRID_DEPTH MW(1103:1088)
  w[36] = block[0] | block[1] << 16;  // CTA_THREAD_DIMENSION0/1 MW(1167:1152), MW(1183:1168)
  w[37] = block[2];                   // CTA_THREAD_DIMENSION2 MW(1199:1184)
  return w;
}

std::vector<std::string> described(const std::vector<real_launch::QmdLaunch>& launches) {
  std::vector<std::string> out;
  for (const auto& q : launches) {
    char line[80];
    std::snprintf(line, sizeof line, "0x%llx sub %u action %u type %s: ", static_cast<unsigned long long>(q.address),
                  q.subchannel, q.pcas_action, q.type ? std::to_string(*q.type).c_str() : "none");
    out.push_back(line + std::string("grid ") + show(q.qmd.grid) + " block " + show(q.qmd.block) +
                  (q.launches_threads() ? " launches threads" : " launches none"));
  }
  return out;
}

std::vector<std::string> qmds_of(const std::vector<MethodGroup>& groups) {
  std::vector<std::string> out;
  try {
    out = described(real_launch::qmd_launches(groups, real_launch::inline_uploads(groups), qmd::QmdVersion::V04_00));
  } catch (const std::exception& e) {
    out.push_back(std::string("threw: ") + e.what());
  }
  return out;
}

MethodGroup pcas(unsigned sub, std::uint64_t address) {
  return inc(sub, channels::compute_method::kSendPcasA, {static_cast<std::uint32_t>(address >> 8)});
}
MethodGroup signal(unsigned sub, std::uint32_t action) {
  return inc(sub, channels::compute_method::kSendSignalingPcas2B, {action});
}

TEST(Qmds, FoundAtTheirSendPcasAddress) {
  const auto first = hand_qmd(2, {9, 9, 9}, {1, 1, 1});
  const auto kernel = hand_qmd(2, {1021, 5, 7}, {96, 2, 1});
  const auto null = hand_qmd(1, {0, 0, 0}, {1, 1, 1});
  const auto later = hand_qmd(2, {3, 3, 3}, {3, 3, 3});
  const auto groups = joined({
      upload(1, 0x204e0f000, 384, first),
      upload(1, 0x204e13000, 384, null),
      {pcas(1, 0x204e13000), signal(1, 10)},
      upload(1, 0x204e0f000, 384, kernel),  // replaces `first` at the same address
      upload(1, 0x204637f0c, 4, {5}),
      {pcas(1, 0x204e0f000), signal(1, 10)},
      upload(1, 0x204e0f000, 384, later),  // after its SEND_PCAS_A: not the QMD sent
  });
  RECORD_EQ(qmds_of(groups), (std::vector<std::string>{
                                 "0x204e13000 sub 1 action 10 type 1: grid (0, 0, 0) block (1, 1, 1) launches none",
                                 "0x204e0f000 sub 1 action 10 type 2: grid (1021, 5, 7) block (96, 2, 1) launches threads",
                             }))
      << "a GRID_NULL QMD and a kernel's QMD uploaded and sent as libcuda does, with an older and a later QMD at "
         "the kernel QMD's address";
}

TEST(Qmds, MissingQmdOrSignalThrows) {
  const auto kernel = hand_qmd(2, {1, 1, 1}, {32, 1, 1});
  const std::vector<std::pair<std::vector<MethodGroup>, std::string>> cases = {
      {joined({{pcas(1, 0x204e0f000), signal(1, 10)}}), "SEND_PCAS_A for an address nothing was uploaded to"},
      {joined({upload(1, 0x204e0f000, 256, std::vector<std::uint32_t>(kernel.begin(), kernel.begin() + 64)),
               {pcas(1, 0x204e0f000), signal(1, 10)}}),
       "SEND_PCAS_A for an address that received 256 bytes, not a V04_00 QMD's 384"},
      {joined({upload(1, 0x204e0f000, 384, kernel), {pcas(1, 0x204e0f000)}}), "SEND_PCAS_A without SEND_SIGNALING_PCAS2_B"},
  };
  for (const auto& [groups, what] : cases) {
    RECORD_THROWS(real_launch::qmd_launches(groups, real_launch::inline_uploads(groups), qmd::QmdVersion::V04_00),
                  real_launch::LaunchError)
        << what;
  }
  // A QMD whose QMD_MAJOR_VERSION says 5 where V04_00 keeps it: lab 07's decode refuses it.
  auto version_5 = kernel;
  version_5[18] = 5u << 4;
  const auto groups = joined({upload(1, 0x204e0f000, 384, version_5), {pcas(1, 0x204e0f000), signal(1, 10)}});
  RECORD_THROWS(real_launch::qmd_launches(groups, real_launch::inline_uploads(groups), qmd::QmdVersion::V04_00),
                qmd::QmdError)
      << "SEND_PCAS_A for a V04_00 QMD whose QMD_MAJOR_VERSION, MW(583:580), is 5";
  // Drawn launches, each a QMD uploaded as libcuda does and sent with
  // SEND_PCAS_A and SEND_SIGNALING_PCAS2_B, some of them broken one of the
  // three ways above: only code that rejects exactly those and decodes the
  // others matches the solution.
  std::mt19937_64 random = testing::seeded_random(20261202);
  for (const bool valid : testing::draw_validity(random, 8)) {
    std::vector<std::vector<MethodGroup>> launches(1 + random() % 3);
    const std::size_t broken = random() % launches.size();
    const unsigned breakage = random() % 3;
    std::string given;
    for (std::size_t i = 0; i < launches.size(); ++i) {
      const unsigned sub = random() % channels::kSubchannels;
      // Each launch's QMD in a MiB of its own, and 0x80000 past it a wrong address in the same MiB.
      const std::uint64_t address = 0x204e00000 + (i << 20) + (random() % 0x800) * 0x100;
      const unsigned type = random() % 2 == 0 ? real_launch::kQmdTypeGridNull : 2;
      const Dim3 grid = {static_cast<unsigned>(1 + random() % 2000), static_cast<unsigned>(1 + random() % 20),
                         static_cast<unsigned>(1 + random() % 20)};
      const Dim3 block = {static_cast<unsigned>(1 + random() % 256), static_cast<unsigned>(1 + random() % 4), 1};
      const auto action = static_cast<std::uint32_t>(random() % 16);
      std::vector<std::uint32_t> qmd_words = hand_qmd(type, grid, block);
      std::uint64_t sent_to = address;
      bool signalled = true;
      std::string wrong;
      if (!valid && i == broken) {
        if (breakage == 0) {
          sent_to = address + 0x80000;
          wrong = " (SEND_PCAS_A names 0x" + hex_of(sent_to) + ", where nothing was uploaded)";
        } else if (breakage == 1) {
          qmd_words.resize(64);
          wrong = " (only 256 of the QMD's 384 bytes uploaded)";
        } else {
          signalled = false;
          wrong = " (no SEND_SIGNALING_PCAS2_B)";
        }
      }
      launches[i] = upload(sub, address, static_cast<std::uint32_t>(qmd_words.size() * 4), qmd_words);
      launches[i].push_back(pcas(sub, sent_to));
      if (signalled) launches[i].push_back(signal(sub, action));
      given += (given.empty() ? "" : ", ") + std::string("a QMD of type ") + std::to_string(type) + " with grid " +
               show(grid) + " block " + show(block) + " at 0x" + hex_of(address) + " on subchannel " +
               std::to_string(sub) + ", action " + std::to_string(action) + wrong;
    }
    const std::vector<MethodGroup> groups = joined(launches);
    RECORD_OUTCOME(described(real_launch::qmd_launches(groups, real_launch::inline_uploads(groups),
                                                       qmd::QmdVersion::V04_00)),
                   real_launch::LaunchError)
        << "qmd_launches(stream, inline_uploads(stream), V04_00) for " << given
        << "; returned: each launch as \"ADDRESS sub S action A type T: grid and block\"";
  }
}

TEST(Qmds, EveryCaptureHandsOverTwoQmdsPerLaunch) {
  for (const std::string& name : capture_names()) {
    const Capture& c = capture(name);
    const Decoded& d = decoded(name);
    std::size_t all = 0, with_threads = 0;
    std::vector<unsigned> actions;
    for (const auto& stream : d.qmds) {
      for (const auto& q : stream) {
        ++all;
        with_threads += q.launches_threads() ? 1 : 0;
        if (std::find(actions.begin(), actions.end(), q.pcas_action) == actions.end()) actions.push_back(q.pcas_action);
      }
    }
    RECORD_EQ(all, 2 * c.launches.size()) << name << ": QMDs sent (" << (d.error.empty() ? "no error" : d.error) << ")";
    RECORD_EQ(with_threads, c.launches.size()) << name << ": QMDs that launch threads";
    // PCAS_ACTION 10, INVALIDATE_PREFETCH_COPY_SCHEDULE (clcbc0.h), for every one.
    RECORD_EQ(actions, std::vector<unsigned>{10}) << name << ": the PCAS actions of SEND_SIGNALING_PCAS2_B";
  }
}

TEST(Qmds, EveryCapturedGridAndBlock) {
  for (const std::string& name : capture_names()) {
    const Capture& c = capture(name);
    const Decoded& d = decoded(name);
    // The grid in clusters, as the QMD holds it, and the block, launch by launch.
    std::vector<std::string> found, launched;
    for (const auto& l : d.launches) found.push_back("grid " + show(l.qmd.qmd.grid) + " block " + show(l.qmd.qmd.block));
    for (const auto& l : c.launches) {
      Dim3 in_clusters = l.grid;
      for (std::size_t i = 0; i < 3; ++i) in_clusters[i] /= l.cluster[i] ? l.cluster[i] : 1;
      launched.push_back("grid " + show(in_clusters) + " block " + show(l.block));
    }
    std::sort(found.begin(), found.end());
    std::sort(launched.begin(), launched.end());
    RECORD_EQ(found, launched) << name << ": the QMDs' grids and blocks (" << (d.error.empty() ? "no error" : d.error) << ")";
    RECORD_EQ(decoded_signatures(d), recorded_signatures(c))
        << name << ": gridDim, blockDim and the parameters in each launch's constant bank";
  }
}

}  // namespace
}  // namespace launchlab::real_launch_tests
