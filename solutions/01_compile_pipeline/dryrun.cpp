// Part A: reading `nvcc --dryrun`.
#include "pipeline.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace launchlab::pipeline {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// `#$ NAME=value`: nvcc sets a shell variable. A name is what a shell accepts
// before `=`; a stage's program never looks like that ("gcc", "\"$CICC_PATH/cicc\"").
bool is_assignment(std::string_view rest, std::string& name, std::string& value) {
  std::size_t i = 0;
  if (rest.empty() || !(std::isalpha(static_cast<unsigned char>(rest[0])) || rest[0] == '_')) return false;
  while (i < rest.size() && (std::isalnum(static_cast<unsigned char>(rest[i])) || rest[i] == '_')) ++i;
  if (i == rest.size() || rest[i] != '=') return false;
  name = std::string(rest.substr(0, i));
  value = std::string(rest.substr(i + 1));
  return true;
}

std::string basename_of(std::string_view path) {
  std::size_t slash = path.find_last_of('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// Options that take the next word as their value, per program. A word that
// follows one of these is the option's value, never an input.
bool host_compiler_option_takes_value(std::string_view arg) {
  static constexpr std::array<std::string_view, 22> options = {
      "-o",        "-x",        "-include", "-imacros",   "-isystem",      "-idirafter",
      "-iquote",   "-iprefix",  "-I",       "-D",         "-U",            "-L",
      "-l",        "-MF",       "-MT",      "-MQ",        "-Xlinker",      "-Xassembler",
      "-Xpreprocessor", "-T",   "-u",       "--param"};
  return std::find(options.begin(), options.end(), arg) != options.end();
}

// cudafe++ and cicc share one convention: `--name value`
// with the value as a separate word. Every option they get whose name ends
// in "_name" takes a value, and so do a few others.
bool front_end_option_takes_value(std::string_view arg) {
  if (arg.size() > 5 && arg.substr(arg.size() - 5) == "_name") return true;
  static constexpr std::array<std::string_view, 7> options = {
      "-arch", "-o", "-include", "--diag_suppress", "--diag_error", "--diag_warning", "--diag_remark"};
  return std::find(options.begin(), options.end(), arg) != options.end();
}

bool ptxas_option_takes_value(std::string_view arg) {
  static constexpr std::array<std::string_view, 8> options = {
      "-o", "-arch", "--gpu-name", "--output-file", "-maxrregcount", "--maxrregcount", "-O", "--opt-level"};
  return std::find(options.begin(), options.end(), arg) != options.end();
}

bool nvlink_option_takes_value(std::string_view arg) {
  static constexpr std::array<std::string_view, 6> options = {
      "-o", "--host-ccbin", "-arch", "--output-file", "-L", "-l"};
  return std::find(options.begin(), options.end(), arg) != options.end();
}

// The value of `--name=value` when arg has that form.
std::optional<std::string> value_of(std::string_view arg, std::string_view name_with_equals) {
  if (!starts_with(arg, name_with_equals)) return std::nullopt;
  return std::string(arg.substr(name_with_equals.size()));
}

[[noreturn]] void fail(std::size_t line, const std::string& what) {
  throw std::runtime_error("line " + std::to_string(line) + ": " + what);
}

// The word after option i, which must exist.
const std::string& value_after(const std::vector<std::string>& args, std::size_t i, std::size_t line) {
  if (i + 1 >= args.size()) fail(line, "option " + args[i] + " has no value");
  return args[i + 1];
}

void read_host_compiler(Stage& stage) {
  const auto& args = stage.arguments;
  bool preprocess = false, compile = false, device = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-E") preprocess = true;
    else if (arg == "-c") compile = true;
    else if (starts_with(arg, "-D__CUDA_ARCH__=")) {
      device = true;
      // __CUDA_ARCH__ is major * 100 + minor * 10 of the virtual
      // architecture: 900 for compute_90, 1000 for compute_100.
      std::string number = arg.substr(std::string_view("-D__CUDA_ARCH__=").size());
      if (!number.empty() && std::all_of(number.begin(), number.end(),
                                         [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; })) {
        stage.arch = "compute_" + std::to_string(std::stoi(number) / 10);
      }
    }
    if (arg == "-o") {
      stage.outputs.push_back(value_after(args, i, stage.line));
      ++i;
    } else if (host_compiler_option_takes_value(arg)) {
      value_after(args, i, stage.line);
      ++i;
    } else if (!arg.empty() && arg[0] != '-') {
      stage.inputs.push_back(arg);
    }
  }
  if (preprocess) {
    stage.kind = device ? StageKind::DevicePreprocess : StageKind::HostPreprocess;
  } else {
    // The host compile of the .cudafe1.cpp also gets -D__CUDA_ARCH__ from
    // nvcc 13; it does not matter there (the file is already preprocessed),
    // and it names no device architecture.
    stage.arch.reset();
    stage.kind = compile ? StageKind::HostCompile : StageKind::HostLink;
  }
}

// cudafe++ and cicc: both are C++ front ends with the same option style.
void read_front_end(Stage& stage) {
  const auto& args = stage.arguments;
  const bool cicc = stage.tool == "cicc";
  bool writes_module_id = false;
  for (const auto& arg : args) {
    if (arg == "--gen_module_id_file") writes_module_id = true;
  }
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (!arg.empty() && arg[0] == '-') {
      if (!front_end_option_takes_value(arg)) continue;
      const std::string& value = value_after(args, i, stage.line);
      ++i;
      if (arg == "-o" || arg == "--gen_c_file_name" || arg == "--gen_device_file_name") {
        stage.outputs.push_back(value);
      } else if (arg == "--stub_file_name" && cicc) {
        // cicc writes the stub; cudafe++ only writes an #include of this name
        // into the .cudafe1.cpp (so its name may be relative to that file).
        stage.outputs.push_back(value);
      } else if (arg == "--module_id_file_name") {
        // cudafe++ writes the module id (--gen_module_id_file); cicc reads
        // it so that both halves of the program agree on it.
        if (writes_module_id) stage.outputs.push_back(value);
        else stage.inputs.push_back(value);
      } else if (arg == "-arch") {
        stage.arch = value;
      }
      // --include_file_name names the .fatbin.c the stub will #include;
      // fatbinary writes it later, so it is neither read nor written here.
    } else {
      stage.inputs.push_back(arg);
    }
  }
  stage.kind = cicc ? StageKind::Cicc : StageKind::Cudafe;
}

// ptxas and nvlink spell their options alike: `--name=value` or `--name
// value`, the architecture and the outputs under a few names each, the
// inputs as bare words. What differs is which names they know.
struct BackEndOptions {
  std::vector<std::string_view> arch_with_equals;    // "-arch="
  std::vector<std::string_view> output_with_equals;  // "--output-file="
  std::vector<std::string_view> arch_before_value;   // "-arch" sm_90
  bool (*takes_value)(std::string_view arg);
};

void read_back_end(Stage& stage, const BackEndOptions& options) {
  const auto& args = stage.arguments;
  auto value_of_any = [](std::string_view arg, const std::vector<std::string_view>& names) {
    for (std::string_view name : names) {
      if (auto value = value_of(arg, name)) return value;
    }
    return std::optional<std::string>();
  };
  auto is_any = [](std::string_view arg, const std::vector<std::string_view>& names) {
    return std::find(names.begin(), names.end(), arg) != names.end();
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (auto arch = value_of_any(arg, options.arch_with_equals)) stage.arch = *arch;
    else if (auto out = value_of_any(arg, options.output_with_equals)) stage.outputs.push_back(*out);
    else if (options.takes_value(arg)) {
      const std::string& value = value_after(args, i, stage.line);
      ++i;
      if (arg == "-o" || arg == "--output-file") stage.outputs.push_back(value);
      else if (is_any(arg, options.arch_before_value)) stage.arch = value;
    } else if (!arg.empty() && arg[0] != '-') {
      stage.inputs.push_back(arg);
    }
  }
}

void read_ptxas(Stage& stage) {
  static const BackEndOptions options{
      {"-arch=", "--gpu-name="}, {"--output-file="}, {"-arch", "--gpu-name"}, ptxas_option_takes_value};
  read_back_end(stage, options);
  stage.kind = StageKind::Ptxas;
}

void read_fatbinary(Stage& stage) {
  for (const auto& arg : stage.arguments) {
    if (auto fatbin = value_of(arg, "--create=")) {
      stage.outputs.push_back(*fatbin);
    } else if (auto fatbin_c = value_of(arg, "--embedded-fatbin=")) {
      stage.outputs.push_back(*fatbin_c);
    } else if (starts_with(arg, "--image3=") || starts_with(arg, "--image=")) {
      // --image3=kind=elf,sm=90,file=x.cubin: comma-separated key=value pairs,
      // the file last (a file name could hold a comma, so take all after file=).
      std::size_t file = arg.find("file=");
      if (file == std::string::npos) fail(stage.line, arg + " names no file=");
      stage.inputs.push_back(arg.substr(file + 5));
    }
  }
  stage.kind = StageKind::Fatbinary;
}

void read_nvlink(Stage& stage) {
  static const BackEndOptions options{
      {"--arch=", "-arch="}, {"--register-link-binaries=", "--output-file="}, {"-arch"}, nvlink_option_takes_value};
  read_back_end(stage, options);
  stage.kind = StageKind::Nvlink;
}

void read_rm(Stage& stage) {
  for (const auto& arg : stage.arguments) {
    if (!arg.empty() && arg[0] != '-') stage.inputs.push_back(arg);
  }
  stage.kind = StageKind::Cleanup;
}

}  // namespace

std::vector<std::string> split_arguments(std::string_view command) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;  // a word can be empty ("") and still be a word
  std::size_t i = 0;
  while (i < command.size()) {
    char c = command[i];
    if (is_blank(c)) {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
      ++i;
    } else if (c == '"') {
      in_word = true;
      ++i;
      bool closed = false;
      while (i < command.size()) {
        char d = command[i];
        if (d == '"') { closed = true; ++i; break; }
        // Inside double quotes a backslash escapes only these four.
        if (d == '\\' && i + 1 < command.size() &&
            (command[i + 1] == '"' || command[i + 1] == '\\' || command[i + 1] == '$' || command[i + 1] == '`')) {
          word += command[i + 1];
          i += 2;
          continue;
        }
        word += d;
        ++i;
      }
      if (!closed) throw std::runtime_error("unterminated double quote");
    } else if (c == '\'') {
      in_word = true;
      std::size_t end = command.find('\'', i + 1);
      if (end == std::string_view::npos) throw std::runtime_error("unterminated single quote");
      word.append(command.substr(i + 1, end - i - 1));
      i = end + 1;
    } else if (c == '\\') {
      if (i + 1 >= command.size()) throw std::runtime_error("trailing backslash");
      in_word = true;
      word += command[i + 1];
      i += 2;
    } else {
      in_word = true;
      word += c;
      ++i;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

DryRun parse_dryrun(std::string_view text) {
  DryRun result;
  std::size_t line_number = 0;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);

    // Only `#$ ` lines are nvcc's commands; warnings and the like are not.
    if (!starts_with(line, "#$ ")) continue;
    std::string_view rest = line.substr(3);
    std::string name, value;
    if (is_assignment(rest, name, value)) {
      result.environment.push_back({std::move(name), std::move(value)});
      continue;
    }
    std::vector<std::string> words;
    try {
      words = split_arguments(rest);
    } catch (const std::runtime_error& e) {
      fail(line_number, e.what());
    }
    if (words.empty()) continue;
    Stage stage;
    stage.line = line_number;
    stage.tool = basename_of(words.front());
    stage.arguments.assign(words.begin() + 1, words.end());
    if (stage.tool == "cudafe++" || stage.tool == "cicc") read_front_end(stage);
    else if (stage.tool == "ptxas") read_ptxas(stage);
    else if (stage.tool == "fatbinary") read_fatbinary(stage);
    else if (stage.tool == "nvlink") read_nvlink(stage);
    else if (stage.tool == "rm") read_rm(stage);
    // The host compiler is whatever nvcc was told to use (gcc, g++-13,
    // clang++, a full path given with -ccbin): every program that is not CUDA's.
    else read_host_compiler(stage);
    result.stages.push_back(std::move(stage));
  }
  return result;
}

}  // namespace launchlab::pipeline
