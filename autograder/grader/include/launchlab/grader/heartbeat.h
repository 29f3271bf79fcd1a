/// @file
/// A long step that prints nothing for a while (a compile, a configure, a
/// lab's test programs) still tells the learner that it goes on, and what it
/// is, so that no command of the course stays silent for ten seconds.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "launchlab/grader/process.h"

namespace launchlab::grader {

/// How long a step may stay silent before it says that it still goes on:
/// short enough that no command is silent for ten seconds, long enough that
/// a log gets a line per several seconds at most.
inline constexpr double kHeartbeatSeconds = 8;

/// Decides when a silent step says that it still goes on. It reads no clock:
/// the caller gives the seconds since the step started, so that a test can
/// drive it with made-up times.
class Heartbeat {
 public:
  /// `doing` completes "still ...": "building lab 00's tests".
  explicit Heartbeat(std::string doing, double every_seconds = kHeartbeatSeconds);

  /// Something else was shown at `seconds`: the silence starts again.
  void shown(double seconds);

  /// At `seconds`, when nothing was shown for `every_seconds`, the line that
  /// says so ("still building lab 00's tests (16 s so far)"); else nothing.
  std::optional<std::string> due(double seconds);

 private:
  std::string doing_;
  double every_seconds_;
  double last_shown_ = 0;
};

/// A RunWatch (process.h) for a long step: when `show_output`, it writes the
/// step's output to `out` as it comes; whenever the step was silent for
/// `every_seconds`, it writes the heartbeat's line, after "launchlab: ".
/// It never stops the run.
RunWatch heartbeat_watch(std::ostream& out, std::string doing, bool show_output,
                         double every_seconds = kHeartbeatSeconds);

/// A RunWatch for a CMake build that may have nothing to do: heartbeat_watch
/// with the output shown, but ninja's lines of a build with nothing to do
/// ("Re-checking globbed directories...", "no work to do.") are left out,
/// and "launchlab: DOING" comes before the first line shown or the first
/// heartbeat, so that a build that builds nothing says nothing.
RunWatch build_watch(std::ostream& out, std::string doing, double every_seconds = kHeartbeatSeconds);

}  // namespace launchlab::grader
