// launchlab-trace: what libcuda wrote for every kernel launch of a CUDA
// program, decoded with lab 12's code; or the same for a capture file, on a
// machine without a GPU.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "trace_decode.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const char* const kUsage =
    "usage: launchlab trace [--json] [--raw] [--limit N] -- PROGRAM [ARGS...]\n"
    "       launchlab trace --replay CAPTURE... [--json] [--raw]\n"
    "\n"
    "For every kernel launch of PROGRAM (cuLaunchKernel, cuLaunchKernelEx, and the\n"
    "runtime's launches, which go through them; not graph launches), prints the\n"
    "launch as the program made it and what libcuda wrote for it: the method stream\n"
    "(lab 06's parser), the inline uploads of constant bank 0 and of the QMDs, the\n"
    "kernel's QMD (lab 07's decoder) and the parameters in its constant bank, and\n"
    "whether they agree with the launch. --json prints one JSON document (the\n"
    "program's standard output then goes to standard error), --raw adds\n"
    "every changed word, --limit traces at most N launches (100 by default).\n"
    "--replay decodes committed captures (labs/12_real_launch/captures)\n"
    "on any machine and exits 1 unless every launch in them agrees.\n"
    "\n"
    "Where the program's channel memory can be read, each launch also shows the\n"
    "GPFIFO entry that hands its pushbuffer segment to the GPU (address, GET_HI,\n"
    "LENGTH, level), GP_PUT and GP_GET before and after, and the semaphore the\n"
    "segment releases, checked against the decoded method stream.\n"
    "\n"
    "It only reads: the program reads its own /dev/nvidiactl mappings (memory the\n"
    "driver allocated in RAM) and the readable shared mapping of /dev/nvidia0 that\n"
    "holds the channels' GPFIFO rings and USERD, through /proc/self/mem opened\n"
    "read-only, before and after each launch call. It never writes device memory\n"
    "and never touches the doorbell (a write-only mapping). Decoding is known to be\n"
    "right on sm_90 (an H100 or H200, driver 580); elsewhere it says it cannot decode.\n";

struct Options {
  bool json = false;
  bool raw = false;
  long limit = 100;
  std::vector<std::string> replay;
  std::vector<std::string> program;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") {
      o.program.assign(argv + i + 1, argv + argc);
      break;
    }
    if (arg == "--json") {
      o.json = true;
    } else if (arg == "--raw") {
      o.raw = true;
    } else if (arg == "--limit" && i + 1 < argc) {
      o.limit = std::strtol(argv[++i], nullptr, 10);
    } else if (arg == "--replay" && i + 1 < argc) {
      o.replay.push_back(argv[++i]);
      while (i + 1 < argc && argv[i + 1][0] != '-') o.replay.push_back(argv[++i]);
    } else if (arg == "--help" || arg == "-h" || arg == "help") {
      std::cout << kUsage;
      std::exit(0);
    } else {
      throw std::runtime_error("unexpected argument '" + arg + "'\n\n" + kUsage);
    }
  }
  if (o.replay.empty() == o.program.empty()) throw std::runtime_error(std::string("give a program after --, or --replay\n\n") + kUsage);
  return o;
}

void print(const json& launches, const Options& o, const json& header) {
  if (o.json) {
    json doc = header;
    doc["launches"] = launches;
    std::cout << doc.dump(2) << "\n";
    return;
  }
  std::size_t index = 0;
  for (const json& launch : launches) {
    if (launch.contains("note")) {
      std::cout << "note: " << launch.at("note").get<std::string>() << "\n";
      continue;
    }
    std::cout << "launch " << index++ << ": " << launchlab::trace::to_text(launch) << "\n";
  }
}

int replay(const Options& o) {
  json all = json::array();
  bool every_one_agrees = true;
  for (const std::string& path : o.replay) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto capture = launchlab::real_launch::read_capture(text);
    for (json launch : launchlab::trace::replay(capture, o.raw)) {
      every_one_agrees = every_one_agrees && launchlab::trace::agrees(launch);
      launch["capture"] = fs::path(path).filename().string();
      all.push_back(std::move(launch));
    }
  }
  print(all, o, {{"replay", o.replay}});
  if (!every_one_agrees) std::cerr << "launchlab trace: some launches were not decoded, or disagree with the capture\n";
  return every_one_agrees ? 0 : 1;
}

int run(const Options& o) {
  const fs::path out = fs::temp_directory_path() / ("launchlab-trace-" + std::to_string(getpid()) + ".jsonl");
  std::vector<std::string> env;
  std::string preload = LAUNCHLAB_TRACE_PRELOAD;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    if (entry.rfind("LD_PRELOAD=", 0) == 0) {
      preload += ":" + entry.substr(11);
    } else if (entry.rfind("LAUNCHLAB_TRACE_", 0) != 0) {
      env.push_back(entry);
    }
  }
  env.push_back("LD_PRELOAD=" + preload);
  env.push_back("LAUNCHLAB_TRACE_OUT=" + out.string());
  env.push_back("LAUNCHLAB_TRACE_LIMIT=" + std::to_string(o.limit));
  if (o.raw) env.push_back("LAUNCHLAB_TRACE_RAW=1");
  std::vector<char*> envp, argv;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = o.program;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  pid_t pid = 0;
  // The traced launches come back through the file. The program's own output
  // goes to ours, its standard output to our standard error under --json, so
  // that standard output holds the JSON document alone.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (o.json) posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
  const int spawned = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) throw std::runtime_error("cannot start " + o.program[0] + ": " + std::strerror(spawned));
  int status = 0;
  waitpid(pid, &status, 0);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

  json launches = json::array();
  std::ifstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) launches.push_back(json::parse(line));
  }
  std::error_code ignored;
  fs::remove(out, ignored);
  if (launches.empty()) {
    launches.push_back({{"note", "no kernel launch was traced (no CUDA launch, a graph launch, or the tracer was not loaded)"}});
  }
  print(launches, o, {{"program", o.program}, {"exit_status", code}});
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    return o.replay.empty() ? run(o) : replay(o);
  } catch (const std::exception& e) {
    std::cerr << "launchlab trace: " << e.what() << "\n";
    return 2;
  }
}
