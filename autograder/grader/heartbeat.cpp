#include "launchlab/grader/heartbeat.h"

#include <memory>
#include <ostream>

namespace launchlab::grader {

Heartbeat::Heartbeat(std::string doing, double every_seconds)
    : doing_(std::move(doing)), every_seconds_(every_seconds) {}

void Heartbeat::shown(double seconds) { last_shown_ = seconds; }

std::optional<std::string> Heartbeat::due(double seconds) {
  if (seconds - last_shown_ < every_seconds_) return std::nullopt;
  last_shown_ = seconds;
  return "still " + doing_ + " (" + std::to_string(static_cast<long>(seconds)) + " s so far)";
}

RunWatch heartbeat_watch(std::ostream& out, std::string doing, bool show_output, double every_seconds) {
  struct State {
    Heartbeat heartbeat;
    bool mid_line = false;  // the output shown last did not end its line
  };
  // A RunWatch is copied around: the copies share one heartbeat.
  auto state = std::make_shared<State>(State{Heartbeat(std::move(doing), every_seconds)});
  return [&out, show_output, state](std::string_view output, double seconds) -> std::optional<std::string> {
    if (show_output && !output.empty()) {
      out << output << std::flush;
      state->mid_line = output.back() != '\n';
      state->heartbeat.shown(seconds);
    } else if (auto line = state->heartbeat.due(seconds)) {
      out << (state->mid_line ? "\n" : "") << "launchlab: " << *line << std::endl;
      state->mid_line = false;
    }
    return std::nullopt;
  };
}

}  // namespace launchlab::grader
