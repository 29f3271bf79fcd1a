// `launchlab watch [NN]`: the lab is built and tested again each time one of
// its student files is saved. Linux's inotify watches the lab folders rather
// than the files: an editor that saves by writing a new file and renaming it
// over the old one replaces the file, and a watch on the file would be lost.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <iostream>
#include <map>
#include <stdexcept>

#include "learner.h"

namespace launchlab::cli {
namespace fs = std::filesystem;
using namespace launchlab::grader;

namespace {

/// An editor's save is often several events (write a temporary file, rename
/// it, change its mode): the lab is tested once they have been quiet this long.
constexpr int kQuietMilliseconds = 200;

/// Ctrl-C (and SIGTERM) end the watch: the handler only writes a byte to a
/// pipe that the loop polls beside inotify.
int stop_pipe[2] = {-1, -1};

extern "C" void on_stop_signal(int) {
  const char byte = 1;
  [[maybe_unused]] ssize_t written = write(stop_pipe[1], &byte, 1);
}

/// A file descriptor closed when it goes out of scope.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) close(fd_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

/// The student files' folders under inotify, and which lab a saved file belongs to.
class StudentFileWatch {
 public:
  explicit StudentFileWatch(const Context& ctx, const std::vector<Lab>& labs)
      : inotify_(inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {
    if (inotify_.get() < 0) throw std::runtime_error(std::string("inotify is not available here: ") + std::strerror(errno));
    for (const auto& lab : labs) {
      const fs::path folder = ctx.root / "labs" / lab.slug;
      const int wd = inotify_add_watch(inotify_.get(), folder.c_str(), IN_CLOSE_WRITE | IN_MOVED_TO);
      if (wd < 0) throw std::runtime_error("cannot watch " + folder.string() + ": " + std::strerror(errno));
      folders_[wd] = &lab;
    }
  }

  int fd() const { return inotify_.get(); }

  /// Reads the events waiting, adding the lab of each student file saved to
  /// saved (in the order of their first save).
  void read_events(std::vector<const Lab*>& saved) {
    alignas(inotify_event) std::array<char, 16 * 1024> buffer;
    for (;;) {
      const ssize_t length = read(inotify_.get(), buffer.data(), buffer.size());
      if (length <= 0) return;  // EAGAIN: nothing more for now
      for (ssize_t at = 0; at < length;) {
        const auto* event = reinterpret_cast<const inotify_event*>(buffer.data() + at);
        at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
        auto lab = folders_.find(event->wd);
        if (lab == folders_.end() || event->len == 0) continue;
        const std::string name = event->name;
        const auto& files = lab->second->student_files;
        if (std::find(files.begin(), files.end(), name) == files.end()) continue;
        if (std::find(saved.begin(), saved.end(), lab->second) == saved.end()) saved.push_back(lab->second);
      }
    }
  }

 private:
  Descriptor inotify_;
  std::map<int, const Lab*> folders_;
};

/// Waits for fd to be readable or for a stop; false on a stop.
enum class Woken { event, quiet, stop };

Woken wait_for(int fd, int timeout_ms) {
  std::array<pollfd, 2> fds = {pollfd{fd, POLLIN, 0}, pollfd{stop_pipe[0], POLLIN, 0}};
  for (;;) {
    const int ready = poll(fds.data(), fds.size(), timeout_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    if (fds[1].revents) return Woken::stop;
    return ready == 0 ? Woken::quiet : Woken::event;
  }
}

bool stop_requested() {
  pollfd stop = {stop_pipe[0], POLLIN, 0};
  return poll(&stop, 1, 0) > 0;
}

void say_watching(const std::vector<Lab>& labs) {
  std::cout << "Watching ";
  if (labs.size() == 1) {
    std::string files;
    for (const auto& file : labs.front().student_files) files += (files.empty() ? "" : ", ") + file;
    std::cout << labs.front().slug << " (" << files << ")";
  } else {
    std::cout << "the student files of " << labs.size() << " labs";
  }
  std::cout << ": save one to test its lab again; Ctrl-C stops." << std::endl;
}

}  // namespace

int command_watch(const Context& ctx, const std::vector<Lab>& labs, const std::vector<Lab>& course,
                  const TestOptions& options) {
  if (pipe2(stop_pipe, O_CLOEXEC | O_NONBLOCK) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  Descriptor stop_read(stop_pipe[0]), stop_write(stop_pipe[1]);
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);

  StudentFileWatch watch(ctx, labs);
  const Capabilities capabilities = detect_capabilities(LAUNCHLAB_CUDA_BIN_DIR);
  const bool terminal = isatty(STDOUT_FILENO);
  auto test_again = [&](const Lab& lab) {
    // A terminal shows only the latest run; a log (a pipe, a file) keeps them all.
    if (terminal) std::cout << "\033[H\033[2J" << std::flush;
    test_lab(ctx, lab, options, std::cout);
    std::cout << course_progress_bar(ctx, course, capabilities) << "\n\n";
    say_watching(labs);
  };
  // One lab named: its state now, before the first save.
  if (labs.size() == 1) {
    test_again(labs.front());
  } else {
    std::cout << course_progress_bar(ctx, course, capabilities) << "\n\n";
    say_watching(labs);
  }
  while (!stop_requested()) {
    if (wait_for(watch.fd(), -1) == Woken::stop) break;
    std::vector<const Lab*> saved;
    watch.read_events(saved);
    Woken woken = Woken::event;
    while (woken == Woken::event) {
      woken = wait_for(watch.fd(), kQuietMilliseconds);
      if (woken == Woken::event) watch.read_events(saved);
    }
    if (woken == Woken::stop) break;
    for (const Lab* lab : saved) {
      if (stop_requested()) break;
      test_again(*lab);
    }
  }
  std::cout << "\nlaunchlab watch: stopped." << std::endl;
  return 0;
}

}  // namespace launchlab::cli
