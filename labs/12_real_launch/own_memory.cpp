// Given code: reading the process's own memory, read-only, and only the
// driver's memory in RAM.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "real_launch.h"

namespace launchlab::real_launch {
namespace {

// The rule of driver_memory, kept here on its own: what this file reads must
// not depend on the learner's code.
bool may_read(const Mapping& m) {
  return m.path == kControlDevice && m.perms.size() == 4 && m.perms[0] == 'r' && m.perms[3] == 's';
}

class SelfMemory {
 public:
  SelfMemory() : fd_(open("/proc/self/mem", O_RDONLY | O_CLOEXEC)) {
    if (fd_ < 0) throw LaunchError(std::string("cannot open /proc/self/mem for reading: ") + std::strerror(errno));
  }
  ~SelfMemory() { close(fd_); }
  SelfMemory(const SelfMemory&) = delete;
  SelfMemory& operator=(const SelfMemory&) = delete;

  // Reads what it can; a page that cannot be read stays zero.
  void read(std::uint64_t address, std::span<std::byte> to) const {
    constexpr std::size_t kPage = 4096;
    if (pread_all(address, to)) return;
    for (std::size_t at = 0; at < to.size(); at += kPage) {
      auto page = to.subspan(at, std::min(kPage, to.size() - at));
      if (!pread_all(address + at, page)) std::fill(page.begin(), page.end(), std::byte{0});
    }
  }

 private:
  bool pread_all(std::uint64_t address, std::span<std::byte> to) const {
    std::size_t done = 0;
    while (done < to.size()) {
      const ssize_t got = pread(fd_, to.data() + done, to.size() - done, static_cast<off_t>(address + done));
      if (got <= 0) return false;
      done += static_cast<std::size_t>(got);
    }
    return true;
  }
  int fd_;
};

}  // namespace

const Region* Snapshot::find(std::uint64_t address) const {
  for (const Region& r : regions) {
    if (r.address == address) return &r;
  }
  return nullptr;
}

std::string read_own_maps() {
  std::ifstream in("/proc/self/maps");
  if (!in) throw LaunchError("cannot read /proc/self/maps");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Snapshot take_snapshot(std::span<const Mapping> mappings) {
  for (const Mapping& m : mappings) {
    if (!may_read(m)) {
      throw LaunchError("refusing to read " + (m.path.empty() ? std::string("anonymous memory") : m.path) + " (" +
                        m.perms + "): only readable shared mappings of " + std::string(kControlDevice) + " are read");
    }
  }
  const SelfMemory memory;
  Snapshot snapshot;
  snapshot.regions.reserve(mappings.size());
  for (const Mapping& m : mappings) {
    Region region;
    region.address = m.start;
    region.bytes.resize(m.size());
    memory.read(m.start, region.bytes);
    snapshot.regions.push_back(std::move(region));
  }
  return snapshot;
}

}  // namespace launchlab::real_launch
