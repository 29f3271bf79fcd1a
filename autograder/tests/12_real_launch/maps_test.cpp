// Part A: parse_maps and driver_memory, on lines written here and on the
// maps of the process that made the captures (captures/maps.txt).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "launchlab/record.h"
#include "launchlab/testing.h"
#include "pipeline.h"
#include "real_launch.h"

namespace launchlab::real_launch_tests {
namespace {

using launchlab::testing::Expected;
using real_launch::Mapping;

// A mapping as a line of text, for records: both sides compare the text.
std::string show(const Mapping& m) {
  char range[80];
  std::snprintf(range, sizeof range, "%llx-%llx", static_cast<unsigned long long>(m.start),
                static_cast<unsigned long long>(m.end));
  char offset[40];
  std::snprintf(offset, sizeof offset, "%llx", static_cast<unsigned long long>(m.offset));
  return std::string(range) + " " + m.perms + " " + offset + " " + m.device + " " + std::to_string(m.inode) + " [" + m.path +
         "]";
}

/// Calls `read` while this process can open no file: the soft limit on
/// descriptors is lowered to the lowest free one, so that every open fails
/// (EMFILE), and put back however `read` ends.
template <class Read>
auto with_no_file_left_to_open(Read&& read) {
  class Limit {
   public:
    Limit() {
      getrlimit(RLIMIT_NOFILE, &saved_);
      const int lowest_free = fcntl(STDERR_FILENO, F_DUPFD, 0);
      if (lowest_free >= 0) close(lowest_free);
      rlimit tight = saved_;
      tight.rlim_cur = static_cast<rlim_t>(std::max(lowest_free, 0));
      setrlimit(RLIMIT_NOFILE, &tight);
    }
    ~Limit() { setrlimit(RLIMIT_NOFILE, &saved_); }
    Limit(const Limit&) = delete;
    Limit& operator=(const Limit&) = delete;

   private:
    rlimit saved_{};
  };
  const Limit limit;
  return read();
}

std::vector<std::string> shown(const std::vector<Mapping>& maps) {
  std::vector<std::string> out;
  for (const Mapping& m : maps) out.push_back(show(m));
  return out;
}

std::vector<Mapping> parsed(const std::string& text) {
  try {
    return real_launch::parse_maps(text);
  } catch (const std::exception&) {
    return {};
  }
}

TEST(Maps, ParsesEveryField) {
  const std::string text =
      "200800000-204000000 rw-s 00000000 00:05 1041                               /dev/nvidiactl\n"
      "7fa1ebf89000-7fa1ebf99000 -w-s 0a000000 00:05 1040                       /dev/nvidia0\n"
      "5619452d8000-561946400000 rw-p 00000000 00:00 0                          [heap]\n"
      "7fa1ec200000-7fa1ec228000 r-xp 00028000 fd:01 2103551                    libc.so.6\n";
  RECORD_NO_THROW(real_launch::parse_maps(text)) << "four lines of /proc/self/maps";
  RECORD_EQ(shown(parsed(text)), (std::vector<std::string>{
                                     "200800000-204000000 rw-s 0 00:05 1041 [/dev/nvidiactl]",
                                     "7fa1ebf89000-7fa1ebf99000 -w-s a000000 00:05 1040 [/dev/nvidia0]",
                                     "5619452d8000-561946400000 rw-p 0 00:00 0 [[heap]]",
                                     "7fa1ec200000-7fa1ec228000 r-xp 28000 fd:01 2103551 [libc.so.6]",
                                 }))
      << "the lines:\n"
      << text;
}

TEST(Maps, PathsWithSpacesAndNoPath) {
  const std::string text =
      "7f0000000000-7f0000001000 rw-p 00000000 00:00 0 \n"
      "7f0000001000-7f0000002000 r--p 00000000 08:02 77   /tmp/a file with spaces (deleted)\n"
      "\n"
      "7f0000002000-7f0000003000 ---p 00000000 00:00 0\n";
  RECORD_EQ(shown(parsed(text)), (std::vector<std::string>{
                                     "7f0000000000-7f0000001000 rw-p 0 00:00 0 []",
                                     "7f0000001000-7f0000002000 r--p 0 08:02 77 [/tmp/a file with spaces (deleted)]",
                                     "7f0000002000-7f0000003000 ---p 0 00:00 0 []",
                                 }))
      << "an anonymous mapping with a space after its inode, a path with spaces, an empty line, and a line that "
         "ends at its inode:\n"
      << text;
}

TEST(Maps, ReadsTheCapturedProcessMaps) {
  const std::string text = launchlab::testing::read_file(launchlab::testing::lab_material("12_real_launch/captures/maps.txt"));
  const auto maps = parsed(text);
  RECORD_EQ(maps.size(), launchlab::testing::lines_of(text).size()) << "captures/maps.txt, one mapping per line";
  std::size_t control = 0;
  for (const Mapping& m : maps) control += m.path == "/dev/nvidiactl" ? 1 : 0;
  std::size_t expected_control = 0;
  for (const std::string& line : launchlab::testing::lines_of(text)) {
    expected_control += line.size() >= 14 && line.compare(line.size() - 14, 14, "/dev/nvidiactl") == 0 ? 1 : 0;
  }
  RECORD_EQ(control, expected_control) << "the mappings of /dev/nvidiactl in captures/maps.txt";
  // The live tests read the process's own maps with the given read_own_maps:
  // a maps file it cannot open is an error, never an empty list of mappings.
  RECORD_THROWS(with_no_file_left_to_open([] { return real_launch::read_own_maps(); }), real_launch::LaunchError)
      << "read_own_maps() while the process may open no more files";
}

TEST(Maps, MalformedLinesNameTheirLine) {
  const std::string good = "200800000-204000000 rw-s 00000000 00:05 1041 /dev/nvidiactl\n";
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"2008000g0-204000000 rw-s 00000000 00:05 1041 /dev/nvidiactl", "a range that is not hexadecimal"},
      {"204000000-200800000 rw-s 00000000 00:05 1041 /dev/nvidiactl", "a range that ends before it starts"},
      {"200800000-204000000 rwxsp 00000000 00:05 1041 /dev/nvidiactl", "five permission letters"},
      {"200800000-204000000 rw-s 0000z000 00:05 1041 /dev/nvidiactl", "an offset that is not hexadecimal"},
      {"200800000-204000000 rw-s 00000000 0005 1041 /dev/nvidiactl", "a device without a colon"},
      {"200800000-204000000 rw-s 00000000 00:05 10x41 /dev/nvidiactl", "an inode that is not decimal"},
      {"200800000-204000000 rw-s", "a line cut after its permissions"},
  };
  for (const auto& [line, what] : bad) {
    const std::string text = good + good + line + "\n" + good;
    RECORD_THROWS(real_launch::parse_maps(text), real_launch::LaunchError) << what << ", on line 3: " << line;
    const auto error = launchlab::testing::thrown<real_launch::LaunchError>([&] { real_launch::parse_maps(text); });
    RECORD_CONTAINS(error ? std::string(error->what()) : std::string(), "3") << "the message names line 3, for " << what;
  }
}

TEST(Maps, DriverMemoryIsSharedReadableNvidiactlOnly) {
  const std::string text =
      "200600000-200800000 rw-s 00000000 00:05 1040 /dev/nvidia0\n"
      "200800000-204000000 rw-s 00000000 00:05 1041 /dev/nvidiactl\n"
      "204600000-204800000 rw-s 00000000 00:05 1041 /dev/nvidiactl\n"
      "204a00000-204c00000 rw-s 204a00000 00:05 1042 /dev/nvidia-uvm\n"
      "7f9fdeddf000-7f9fdede0000 rw-p 00000000 00:05 1041 /dev/nvidiactl\n"
      "7fa1ebf89000-7fa1ebf99000 -w-s 00000000 00:05 1040 /dev/nvidia0\n"
      "7fa1ebf99000-7fa1ebfa9000 -w-s 00000000 00:05 1041 /dev/nvidiactl\n"
      "7fa1ec0e7000-7fa1ec0e8000 r--s 00000000 00:05 1041 /dev/nvidiactl\n"
      "7fa1ec0e8000-7fa1ec0e9000 r--s 00000000 00:05 1041 /dev/nvidiactl (deleted)\n"
      "7fa1ec0e9000-7fa1ec0ea000 r--s 00000000 00:05 1043 /dev/nvidiactl2\n";
  const auto maps = parsed(text);
  RECORD_REQUIRE(maps.size() == 10);
  RECORD_EQ(shown(real_launch::driver_memory(maps)), (std::vector<std::string>{
                                                         "200800000-204000000 rw-s 0 00:05 1041 [/dev/nvidiactl]",
                                                         "204600000-204800000 rw-s 0 00:05 1041 [/dev/nvidiactl]",
                                                         "7fa1ec0e7000-7fa1ec0e8000 r--s 0 00:05 1041 [/dev/nvidiactl]",
                                                     }))
      << "ten mappings: /dev/nvidia0, /dev/nvidia-uvm, private, write-only and look-alike paths among them:\n"
      << text;
  // take_snapshot refuses them all before it reads anything: among them are
  // the GPU's registers (/dev/nvidia0), which must never be read.
  RECORD_THROWS(real_launch::take_snapshot(maps), real_launch::LaunchError)
      << "take_snapshot of the same ten mappings";
}

}  // namespace
}  // namespace launchlab::real_launch_tests
