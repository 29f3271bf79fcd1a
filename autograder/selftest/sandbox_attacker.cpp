// What a submission might try from inside the sandbox, one attack a run.
// Every attempt prints one line, "NAME: SUCCEEDED (...)" or
// "NAME: blocked (...)", so that the selftest can tell which held.
#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace {

void succeeded(const std::string& name, const std::string& detail) {
  std::cout << name << ": SUCCEEDED (" << detail << ")" << std::endl;
}

void blocked(const std::string& name, const std::string& why = std::strerror(errno)) {
  std::cout << name << ": blocked (" << why << ")" << std::endl;
}

std::string printable(const char* data, std::size_t size) {
  std::string text;
  for (std::size_t i = 0; i < size; ++i) text += (data[i] >= 32 && data[i] < 127) ? data[i] : '.';
  return text;
}

void attach_and_read(pid_t grader, unsigned long address) {
  if (ptrace(PTRACE_ATTACH, grader, nullptr, nullptr) == 0) {
    waitpid(grader, nullptr, __WALL);
    errno = 0;
    long word = ptrace(PTRACE_PEEKDATA, grader, reinterpret_cast<void*>(address), nullptr);
    succeeded("ptrace", "attached; read " + printable(reinterpret_cast<const char*>(&word), sizeof word));
    ptrace(PTRACE_DETACH, grader, nullptr, nullptr);
  } else {
    blocked("ptrace");
  }
  int mem = open(("/proc/" + std::to_string(grader) + "/mem").c_str(), O_RDONLY);
  if (mem < 0) return blocked("mem");
  char buffer[64] = {};
  ssize_t got = pread(mem, buffer, sizeof buffer, static_cast<off_t>(address));
  if (got > 0) return succeeded("mem", "read " + printable(buffer, static_cast<std::size_t>(got)));
  blocked("mem");
}

void write_text(const std::string& name, const std::string& path, const std::string& text) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return blocked(name);
  if (write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    int error = errno;
    close(fd);
    return blocked(name, std::strerror(error));
  }
  close(fd);
  succeeded(name, "wrote " + path);
}

void read_file(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return blocked("read " + path);
  char buffer[256];
  ssize_t got = read(fd, buffer, sizeof buffer);
  close(fd);
  if (got < 0) return blocked("read " + path);
  succeeded("read " + path, printable(buffer, static_cast<std::size_t>(got)));
}

void send_signals(pid_t grader) {
  if (kill(grader, 0) == 0) {
    succeeded("see", "pid " + std::to_string(grader) + " answers");
  } else {
    blocked("see");
  }
  if (kill(grader, SIGUSR1) == 0) succeeded("sigusr1", "sent"); else blocked("sigusr1");
  if (kill(grader, SIGSTOP) == 0) succeeded("sigstop", "sent"); else blocked("sigstop");
  // Everything this process may signal, with a signal that every process
  // ignores unless it asks for it (should the sandbox fail, nothing else on
  // the machine is harmed); the grader catches it and reports whether it was hit.
  kill(-1, SIGURG);
  std::cout << "signal-all: sent" << std::endl;
}

void fork_bomb(int cap) {
  int forked = 0;
  for (; forked < cap; ++forked) {
    pid_t pid = fork();
    if (pid < 0) {
      blocked("forkbomb", "after " + std::to_string(forked) + ": " + std::strerror(errno));
      return;
    }
    if (pid == 0) {
      while (true) pause();
    }
  }
  succeeded("forkbomb", "forked " + std::to_string(forked));
}

// Writes 1 MiB chunks into files in folder until the writes fail or
// max_mib is reached; a file at the size limit is closed and the next begun.
void fill(const std::string& folder, const std::string& stem, long max_mib) {
  signal(SIGXFSZ, SIG_IGN);
  std::vector<char> chunk(1 << 20, 'f');
  long written = 0;
  for (int file = 0; written < max_mib; ++file) {
    std::string path = folder + "/" + stem + "-" + std::to_string(file);
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
      blocked("fill " + folder, "after " + std::to_string(written) + " MiB: " + std::strerror(errno));
      return;
    }
    while (written < max_mib) {
      ssize_t got = write(fd, chunk.data(), chunk.size());
      if (got == static_cast<ssize_t>(chunk.size())) {
        ++written;
        continue;
      }
      int error = got < 0 ? errno : EFBIG;
      close(fd);
      if (error == EFBIG) break;  // this file is full: begin the next
      blocked("fill " + folder, "after " + std::to_string(written) + " MiB: " + std::strerror(error));
      return;
    }
    if (written >= max_mib) close(fd);
  }
  succeeded("fill " + folder, "wrote " + std::to_string(written) + " MiB");
}

// Leaves a process behind in a session of its own, which writes the marker
// when it is still alive after delay_ms.
void escape(const std::string& marker, int delay_ms) {
  pid_t child = fork();
  if (child == 0) {
    setsid();
    if (fork() == 0) {
      close(STDOUT_FILENO);
      close(STDERR_FILENO);
      usleep(static_cast<useconds_t>(delay_ms) * 1000);
      int fd = open(marker.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) {
        (void)!write(fd, "alive\n", 6);
        close(fd);
      }
      _exit(0);
    }
    _exit(0);
  }
  waitpid(child, nullptr, 0);
  std::cout << "escape: started" << std::endl;
}

std::string status_field(const std::string& name) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(name + ":", 0) == 0) {
      line.erase(0, name.size() + 1);
      line.erase(0, line.find_first_not_of(" \t"));
      return line;
    }
  }
  return "?";
}

std::string soft_limit(int resource) {
  rlimit limit{};
  getrlimit(resource, &limit);
  return limit.rlim_cur == RLIM_INFINITY ? "unlimited" : std::to_string(limit.rlim_cur);
}

void whoami() {
  uid_t ruid, euid, suid;
  gid_t rgid, egid, sgid;
  getresuid(&ruid, &euid, &suid);
  getresgid(&rgid, &egid, &sgid);
  std::cout << "uids: " << ruid << " " << euid << " " << suid << "\n"
            << "gids: " << rgid << " " << egid << " " << sgid << "\n"
            << "groups: " << getgroups(0, nullptr) << "\n"
            << "pid: " << getpid() << "\n"
            << "NoNewPrivs: " << status_field("NoNewPrivs") << "\n";
  std::ifstream oom("/proc/self/oom_score_adj");
  std::string score;
  oom >> score;
  std::cout << "oom_score_adj: " << score << "\n"
            << "core: " << soft_limit(RLIMIT_CORE) << "\n"
            << "data: " << soft_limit(RLIMIT_DATA) << "\n"
            << "nproc: " << soft_limit(RLIMIT_NPROC) << std::endl;
  if (setuid(0) == 0 && geteuid() == 0) succeeded("setuid-root", "uid 0"); else blocked("setuid-root");
  // Lowering its own score back makes the grader the likelier victim.
  int fd = open("/proc/self/oom_score_adj", O_WRONLY);
  if (fd >= 0 && write(fd, "0", 1) == 1) succeeded("lower-oom", "0"); else blocked("lower-oom");
  if (fd >= 0) close(fd);
}

void allocate(long mib) {
  std::size_t bytes = static_cast<std::size_t>(mib) << 20;
  char* memory = static_cast<char*>(std::malloc(bytes));
  if (!memory) {
    std::cout << "alloc " << mib << " MiB: failed" << std::endl;
    return;
  }
  for (std::size_t i = 0; i < bytes; i += 4096) memory[i] = 1;
  std::cout << "alloc " << mib << " MiB: ok" << std::endl;
  std::free(memory);
}

// Writes the line to the fd LAUNCHLAB_TRANSCRIPT_FD names.
void write_transcript(const std::string& line) {
  const char* fd = std::getenv("LAUNCHLAB_TRANSCRIPT_FD");
  std::string text = line + "\n";
  if (!fd || write(std::atoi(fd), text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    std::cout << "transcript: not written" << std::endl;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: sandbox_attacker COMMAND ARGS...\n";
    return 2;
  }
  std::string command = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  auto arg = [&](std::size_t i) { return i < args.size() ? args[i] : std::string(); };
  if (command == "ptrace") {
    attach_and_read(std::atoi(arg(0).c_str()), std::strtoul(arg(1).c_str(), nullptr, 16));
  } else if (command == "oom") {
    write_text("oom", "/proc/" + arg(0) + "/oom_score_adj", "1000");
  } else if (command == "signal") {
    send_signals(std::atoi(arg(0).c_str()));
  } else if (command == "read") {
    for (const auto& path : args) read_file(path);
  } else if (command == "write") {
    for (const auto& path : args) write_text("write " + path, path, "planted\n");
  } else if (command == "remount") {
    for (const auto& path : args) {
      if (mount(nullptr, path.c_str(), nullptr, MS_REMOUNT | MS_BIND, nullptr) == 0) {
        succeeded("remount " + path, "read-write");
      } else {
        blocked("remount " + path);
      }
    }
  } else if (command == "forkbomb") {
    fork_bomb(std::atoi(arg(0).c_str()));
  } else if (command == "fill") {
    fill(arg(0), arg(1), std::atol(arg(2).c_str()));
  } else if (command == "escape") {
    escape(arg(0), std::atoi(arg(1).c_str()));
  } else if (command == "whoami") {
    whoami();
  } else if (command == "alloc") {
    allocate(std::atol(arg(0).c_str()));
  } else if (command == "transcript") {
    write_transcript(arg(0));
  } else if (command == "sleep") {
    usleep(static_cast<useconds_t>(std::atoi(arg(0).c_str())) * 1000);
    std::cout << "slept\n";
  } else {
    std::cerr << "unknown command " << command << "\n";
    return 2;
  }
  return 0;
}
