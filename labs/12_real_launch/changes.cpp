// Part B: what a launch changed, and which changes are method streams.
#include "real_launch.h"

namespace launchlab::real_launch {

std::vector<Change> changed_ranges(const Snapshot& before, const Snapshot& after, std::size_t merge_gap) {
  // TODO(student): for each region of `after`, in address order, find the
  // region of `before` at the same address and of the same size (or compare
  // with zeros when there is none), and compare them as little-endian 32-bit
  // words. Start a range at a changed word; extend it to the next changed
  // word while the unchanged bytes between them are fewer than merge_gap;
  // otherwise close it (from its first changed word to its last) and start
  // another. Each Change holds the words of its range before and after.
  (void)before;
  (void)after;
  (void)merge_gap;
  return {};
}

std::vector<MethodStream> method_streams(std::span<const Change> changes) {
  // TODO(student): a change is a method stream when lab 06's
  // channels::parse_pushbuffer accepts its `after` words (it throws
  // channels::ChannelError otherwise: catch it and move on) and one of its
  // method calls (channels::method_calls) is SEND_PCAS_A.
  (void)changes;
  return {};
}

}  // namespace launchlab::real_launch
