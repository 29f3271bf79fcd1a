// Part B: changed_ranges and method_streams, on snapshots built here and on
// every committed capture.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "launchlab/record.h"
#include "launchlab/testing.h"
#include "pipeline.h"
#include "real_launch.h"

namespace launchlab::real_launch_tests {
namespace {

using real_launch::Change;
using real_launch::Region;
using real_launch::Snapshot;

Region region_of_words(std::uint64_t address, const std::vector<std::uint32_t>& words) {
  Region r;
  r.address = address;
  r.bytes.resize(words.size() * 4);
  std::memcpy(r.bytes.data(), words.data(), r.bytes.size());
  return r;
}

// A change as text: "0x1000: 3 words, 0 0 0 -> 7 0 9".
std::string show(const Change& c) {
  char start[32];
  std::snprintf(start, sizeof start, "0x%llx", static_cast<unsigned long long>(c.address));
  std::string out = std::string(start) + ": " + std::to_string(c.after.size()) + " words,";
  for (std::uint32_t w : c.before) out += " " + std::to_string(w);
  out += " ->";
  for (std::uint32_t w : c.after) out += " " + std::to_string(w);
  return out;
}

std::vector<std::string> ranges(const Snapshot& before, const Snapshot& after, std::size_t gap = real_launch::kMergeGap) {
  std::vector<std::string> out;
  try {
    for (const Change& c : real_launch::changed_ranges(before, after, gap)) out.push_back(show(c));
  } catch (const std::exception& e) {
    out.push_back(std::string("threw: ") + e.what());
  }
  return out;
}

TEST(Changes, OneChangedWordIsOneRange) {
  std::vector<std::uint32_t> words(64, 0x11111111);
  Snapshot before{{region_of_words(0x10000, words)}};
  words[5] = 0x22222222;
  Snapshot after{{region_of_words(0x10000, words)}};
  RECORD_EQ(ranges(before, after), std::vector<std::string>{"0x10014: 1 words, 286331153 -> 572662306"})
      << "64 words at 0x10000, word 5 changed";
}

TEST(Changes, CloseChangesShareARangeAndFarOnesDoNot) {
  // Words 10 and 265 changed: 254 unchanged words (1016 bytes) between them
  // share a range; words 10 and 267, 256 words (1024 bytes) apart, do not.
  std::vector<std::uint32_t> zeros(600, 0);
  Snapshot before{{region_of_words(0x2000, zeros)}};
  auto with = [&](std::initializer_list<std::size_t> changed) {
    std::vector<std::uint32_t> w = zeros;
    for (std::size_t i : changed) w[i] = static_cast<std::uint32_t>(i);
    return Snapshot{{region_of_words(0x2000, w)}};
  };
  auto sizes = [&](const Snapshot& after, std::size_t gap) {
    std::vector<std::string> out;
    try {
      for (const Change& c : real_launch::changed_ranges(before, after, gap)) {
        char start[32];
        std::snprintf(start, sizeof start, "0x%llx", static_cast<unsigned long long>(c.address));
        out.push_back(std::string(start) + " " + std::to_string(c.after.size()) + " words");
      }
    } catch (const std::exception& e) {
      out.push_back(std::string("threw: ") + e.what());
    }
    return out;
  };
  RECORD_EQ(sizes(with({10, 265}), real_launch::kMergeGap), std::vector<std::string>{"0x2028 256 words"})
      << "words 10 and 265 changed (1016 unchanged bytes between them), merge gap 1024";
  RECORD_EQ(sizes(with({10, 267}), real_launch::kMergeGap), (std::vector<std::string>{"0x2028 1 words", "0x242c 1 words"}))
      << "words 10 and 267 changed (1024 unchanged bytes between them), merge gap 1024";
  RECORD_EQ(sizes(with({10, 11, 12, 20, 599}), 16), (std::vector<std::string>{"0x2028 3 words", "0x2050 1 words", "0x295c 1 words"}))
      << "words 10, 11, 12, 20 and 599 changed, merge gap 16";
  RECORD_EQ(sizes(with({10, 14}), 16), std::vector<std::string>{"0x2028 5 words"})
      << "words 10 and 14 changed (12 unchanged bytes between them), merge gap 16";
}

TEST(Changes, NewRegionsCompareWithZeros) {
  Snapshot before{{region_of_words(0x1000, {1, 2, 3, 4})}};
  Snapshot after{{region_of_words(0x1000, {1, 2, 3, 4}), region_of_words(0x9000, {0, 0, 7, 0, 9, 0, 0})}};
  RECORD_EQ(ranges(before, after), std::vector<std::string>{"0x9008: 3 words, 0 0 0 -> 7 0 9"})
      << "a region at 0x9000 only in the snapshot after";
  Snapshot resized{{region_of_words(0x1000, {1, 2, 5, 4, 6})}};
  RECORD_EQ(ranges(before, resized), std::vector<std::string>{"0x1000: 5 words, 0 0 0 0 0 -> 1 2 5 4 6"})
      << "the region at 0x1000 grew from 4 words to 5: a new region, compared with zeros";
}

TEST(Changes, UnchangedSnapshotsHaveNoRanges) {
  Snapshot same{{region_of_words(0x1000, {1, 2, 3}), region_of_words(0x8000, {4, 5, 6, 7})}};
  RECORD_EQ(ranges(same, same), std::vector<std::string>{}) << "two identical snapshots";
  Snapshot two_regions_after{{region_of_words(0x8000, {4, 5, 6, 8}), region_of_words(0x1000, {9, 2, 3})}};
  RECORD_EQ(ranges(same, two_regions_after), (std::vector<std::string>{"0x1000: 1 words, 1 -> 9", "0x800c: 1 words, 7 -> 8"}))
      << "two regions, given in the snapshot after in the other order: ranges come in address order";
}

TEST(Streams, SemaphoresAndCountersAreNotStreams) {
  // What a launch also changes (captures/fill_1021x5x7_96x2.capture): a
  // semaphore payload with its timestamp, and a per-launch slot 0 -> 6.
  const std::vector<Change> changes = {
      Change{0x20460fff0, {0x78, 0, 0x81f629e0, 0x18ed138e}, {0x79, 0, 0x840caf80, 0x18ed138e}},
      Change{0x204637f0c, {0}, {6}},
      // Methods that parse but send no QMD: a NOP and a WAIT_FOR_IDLE.
      Change{0x200000000, {0, 0, 0}, {0x20012002, 0, 0x80002044}},
      // SEND_PCAS_A and SEND_SIGNALING_PCAS2_B on subchannel 1.
      Change{0x200001000, {0, 0, 0, 0}, {0x200120ad, 0x0204e0f0, 0x200120b0, 0xa}},
  };
  std::vector<std::string> found;
  try {
    for (const auto& s : real_launch::method_streams(changes)) {
      char line[64];
      std::snprintf(line, sizeof line, "0x%llx: %zu groups", static_cast<unsigned long long>(s.address), s.groups.size());
      found.push_back(line);
    }
  } catch (const std::exception& e) {
    found.push_back(std::string("threw: ") + e.what());
  }
  RECORD_EQ(found, std::vector<std::string>{"0x200001000: 2 groups"})
      << "four changes: a semaphore with its timestamp, a counter, methods without SEND_PCAS_A, and a launch";
}

TEST(Streams, EveryCaptureHasOneStreamPerCudaStream) {
  for (const std::string& name : capture_names()) {
    const Capture& c = capture(name);
    std::set<int> cuda_streams;
    for (const auto& l : c.launches) cuda_streams.insert(l.stream);
    const Decoded& d = decoded(name);
    RECORD_EQ(d.streams.size(), cuda_streams.size())
        << name << ": the method streams found (" << (d.error.empty() ? "no error" : d.error)
        << "), one per CUDA stream the capture launched on";
  }
}

}  // namespace
}  // namespace launchlab::real_launch_tests
