// Part B: what a launch changed, and which changes are method streams.
#include <algorithm>
#include <cstring>

#include "real_launch.h"

namespace launchlab::real_launch {
namespace {

std::vector<std::uint32_t> words_of(std::span<const std::byte> bytes) {
  std::vector<std::uint32_t> words(bytes.size() / 4);
  if (!words.empty()) std::memcpy(words.data(), bytes.data(), words.size() * 4);
  return words;
}

}  // namespace

std::vector<Change> changed_ranges(const Snapshot& before, const Snapshot& after, std::size_t merge_gap) {
  std::vector<const Region*> regions;
  for (const Region& r : after.regions) regions.push_back(&r);
  std::sort(regions.begin(), regions.end(), [](const Region* a, const Region* b) { return a->address < b->address; });

  std::vector<Change> changes;
  for (const Region* region : regions) {
    const std::vector<std::uint32_t> now = words_of(region->bytes);
    std::vector<std::uint32_t> then(now.size(), 0);
    const Region* old = before.find(region->address);
    if (old && old->bytes.size() == region->bytes.size()) then = words_of(old->bytes);

    std::size_t first = 0, last = 0;  // the current range, in words: [first, last]
    bool open = false;
    auto close = [&] {
      Change c;
      c.address = region->address + 4 * first;
      c.before.assign(then.begin() + static_cast<long>(first), then.begin() + static_cast<long>(last + 1));
      c.after.assign(now.begin() + static_cast<long>(first), now.begin() + static_cast<long>(last + 1));
      changes.push_back(std::move(c));
    };
    for (std::size_t i = 0; i < now.size(); ++i) {
      if (now[i] == then[i]) continue;
      if (open && 4 * (i - last - 1) < merge_gap) {
        last = i;
        continue;
      }
      if (open) close();
      first = last = i;
      open = true;
    }
    if (open) close();
  }
  return changes;
}

std::vector<MethodStream> method_streams(std::span<const Change> changes) {
  std::vector<MethodStream> streams;
  for (const Change& change : changes) {
    std::vector<channels::MethodGroup> groups;
    try {
      groups = channels::parse_pushbuffer(change.after);
    } catch (const channels::ChannelError&) {
      continue;  // not methods
    }
    bool sends_a_qmd = false;
    for (const auto& group : groups) {
      for (const auto& call : channels::method_calls(group)) {
        sends_a_qmd = sends_a_qmd || call.method == channels::compute_method::kSendPcasA;
      }
    }
    if (sends_a_qmd) streams.push_back(MethodStream{change.address, std::move(groups)});
  }
  return streams;
}

}  // namespace launchlab::real_launch
