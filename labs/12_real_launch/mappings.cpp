// Part A: the process's mappings.
//
// A line of /proc/self/maps is five fields and a path:
//   START-END PERMS OFFSET MAJOR:MINOR INODE    PATH
// with START, END and OFFSET in hexadecimal and INODE in decimal (proc(5)).
#include "real_launch.h"

namespace launchlab::real_launch {

std::vector<Mapping> parse_maps(std::string_view text) {
  // TODO(student): one Mapping per non-empty line. Read the five fields (the
  // range, the four permission letters, the offset, the device, the inode),
  // then take the rest of the line, after the spaces that follow the inode,
  // as the path (it may be empty, and may contain spaces). Throw LaunchError
  // naming the line's number (from 1) when a field is not in its format or
  // the range ends before it starts. std::from_chars reads numbers in base 16.
  (void)text;
  return {};
}

std::vector<Mapping> driver_memory(std::span<const Mapping> maps) {
  // TODO(student): keep the mappings of kControlDevice that are readable
  // (perms[0] == 'r') and shared (perms[3] == 's'), in order. Nothing else:
  // /dev/nvidia0 and /dev/nvidia-uvm are never to be read.
  return {maps.begin(), maps.end()};
}

}  // namespace launchlab::real_launch
