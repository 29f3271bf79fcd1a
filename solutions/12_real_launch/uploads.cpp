// Part C: inline-to-memory uploads, and the QMDs SEND_PCAS_A hands over.
#include <cstring>
#include <string>

#include <launchlab/bytes.h>

#include "real_launch.h"

namespace launchlab::real_launch {
namespace {

using bytes::hex;

// What one subchannel's inline-to-memory methods have set so far.
struct I2mState {
  std::uint64_t offset_out = 0;
  std::uint32_t line_length = 0;
  std::uint32_t line_count = 1;
  bool uploading = false;
  InlineUpload upload;
  std::size_t words_left = 0;
};

}  // namespace

std::vector<InlineUpload> inline_uploads(std::span<const channels::MethodGroup> groups) {
  std::array<I2mState, channels::kSubchannels> state{};
  std::vector<InlineUpload> uploads;
  auto finish = [&](I2mState& s) {
    s.upload.bytes.resize(s.line_length);  // the last word may carry bytes past the line
    uploads.push_back(std::move(s.upload));
    s.upload = {};
    s.uploading = false;
  };
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (const channels::MethodCall& call : channels::method_calls(groups[g])) {
      I2mState& s = state[call.subchannel];
      switch (call.method) {
        case i2m_method::kOffsetOutUpper:
          s.offset_out = (s.offset_out & 0xffffffffull) | (static_cast<std::uint64_t>(call.data & 0x1ffffff) << 32);
          break;
        case i2m_method::kOffsetOut:
          s.offset_out = (s.offset_out & ~0xffffffffull) | call.data;
          break;
        case i2m_method::kLineLengthIn:
          s.line_length = call.data;
          break;
        case i2m_method::kLineCount:
          s.line_count = call.data;
          break;
        case i2m_method::kLaunchDma:
          if (s.uploading) {
            throw LaunchError("group " + std::to_string(g) + ": LAUNCH_DMA while the upload to " +
                              hex(s.upload.address) + " still waits for " + std::to_string(s.words_left) + " words");
          }
          if (s.line_count != 1) {
            throw LaunchError("group " + std::to_string(g) + ": LINE_COUNT " + std::to_string(s.line_count) +
                              ": only uploads of one line are decoded");
          }
          s.upload = InlineUpload{call.subchannel, s.offset_out, call.data, {}, g};
          s.upload.bytes.reserve(s.line_length + 3u);
          s.words_left = (static_cast<std::size_t>(s.line_length) + 3) / 4;
          s.uploading = true;
          if (s.words_left == 0) finish(s);
          break;
        case i2m_method::kLoadInlineData: {
          if (!s.uploading) {
            throw LaunchError("group " + std::to_string(g) + ": LOAD_INLINE_DATA on subchannel " +
                              std::to_string(call.subchannel) + " with no upload in progress");
          }
          const std::size_t at = s.upload.bytes.size();
          s.upload.bytes.resize(at + 4);
          std::memcpy(s.upload.bytes.data() + at, &call.data, 4);
          if (--s.words_left == 0) finish(s);
          break;
        }
        default:
          break;
      }
    }
  }
  for (const I2mState& s : state) {
    if (s.uploading) {
      throw LaunchError("the stream ends while the upload to " + hex(s.upload.address) + " still waits for " +
                        std::to_string(s.words_left) + " words");
    }
  }
  return uploads;
}

std::vector<QmdLaunch> qmd_launches(std::span<const channels::MethodGroup> groups,
                                    std::span<const InlineUpload> uploads, qmd::QmdVersion version) {
  const std::size_t qmd_bytes = qmd::qmd_words(version) * 4;
  std::vector<QmdLaunch> launches;
  std::array<std::optional<std::size_t>, channels::kSubchannels> waiting{};  // a launch without its PCAS2_B yet
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (const channels::MethodCall& call : channels::method_calls(groups[g])) {
      if (call.method == channels::compute_method::kSendPcasA) {
        if (waiting[call.subchannel]) {
          throw LaunchError("group " + std::to_string(g) + ": SEND_PCAS_A before the SEND_SIGNALING_PCAS2_B of the one before");
        }
        QmdLaunch launch;
        launch.subchannel = call.subchannel;
        launch.address = static_cast<std::uint64_t>(call.data) << 8;
        const InlineUpload* found = nullptr;
        for (const InlineUpload& upload : uploads) {
          if (upload.group < g && upload.address == launch.address && upload.bytes.size() == qmd_bytes) found = &upload;
        }
        if (!found) {
          throw LaunchError("group " + std::to_string(g) + ": no upload of the stream wrote a QMD at " + hex(launch.address));
        }
        launch.words.resize(qmd_bytes / 4);
        std::memcpy(launch.words.data(), found->bytes.data(), qmd_bytes);
        launch.qmd = qmd::decode(launch.words, version);
        if (version == qmd::QmdVersion::V04_00) launch.type = static_cast<unsigned>(qmd::read_field(launch.words, {25, 23}));
        if (version == qmd::QmdVersion::V05_00) launch.type = static_cast<unsigned>(qmd::read_field(launch.words, {153, 151}));
        waiting[call.subchannel] = launches.size();
        launches.push_back(std::move(launch));
      } else if (call.method == channels::compute_method::kSendSignalingPcas2B && waiting[call.subchannel]) {
        launches[*waiting[call.subchannel]].pcas_action = call.data & 0xf;
        waiting[call.subchannel].reset();
      }
    }
  }
  for (const auto& w : waiting) {
    if (w) throw LaunchError("SEND_PCAS_A for the QMD at " + hex(launches[*w].address) + " is not followed by SEND_SIGNALING_PCAS2_B");
  }
  return launches;
}

}  // namespace launchlab::real_launch
