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

RunWatch build_watch(std::ostream& out, std::string doing, double every_seconds) {
  struct State {
    std::string pending;  // the start of a line not ended yet
    bool announced = false;
  };
  auto state = std::make_shared<State>();
  RunWatch shown = heartbeat_watch(out, doing, true, every_seconds);
  return [&out, doing = std::move(doing), every_seconds, state, shown](std::string_view output,
                                                                        double seconds) -> std::optional<std::string> {
    auto announce = [&] {
      if (!state->announced) out << "launchlab: " << doing << std::endl;
      state->announced = true;
    };
    state->pending += output;
    std::string lines;
    for (std::size_t newline; (newline = state->pending.find('\n')) != std::string::npos;) {
      const std::string line = state->pending.substr(0, newline + 1);
      state->pending.erase(0, newline + 1);
      const bool nothing_to_do = line.find("Re-checking globbed directories") != std::string::npos ||
                                 line.find("ninja: no work to do.") != std::string::npos;
      if (!nothing_to_do) lines += line;
    }
    if (!lines.empty() || seconds >= every_seconds) announce();
    return shown(lines, seconds);
  };
}

}  // namespace launchlab::grader
