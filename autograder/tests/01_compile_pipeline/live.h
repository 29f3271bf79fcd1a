// What the tests of 01_compile_pipeline share: real nvcc runs on the kernels
// in kernels/, how the lab's values are recorded, and the truth about the
// inputs worked out here, from the files nvcc leaves and from plain text
// matching, never from the learner's code. The truth exists only in the
// reference build (launchlab/record.h): the learner's program never holds it.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "launchlab/record.h"
#include "pipeline.h"

namespace launchlab::pipeline {

// How the lab's values are recorded: by their names and fields, so that a
// difference reads as `[3].kind: expected "Cicc", got "Cudafe"`.
nlohmann::json record_value(StageKind kind);
nlohmann::json record_value(FileKind kind);
nlohmann::json record_value(const EnvironmentVariable& variable);
nlohmann::json record_value(const StubArgument& argument);
nlohmann::json record_value(const StubKernel& kernel);
nlohmann::json record_value(const RegisteredEntry& entry);
nlohmann::json record_value(const PtxParam& param);
nlohmann::json record_value(const PtxRegister& reg);

}  // namespace launchlab::pipeline

namespace launchlab::compile_pipeline_tests {

/// One real compile: `nvcc --keep --keep-dir k <arch options> -c <source> -o <stem>.o`
/// in a folder of its own, with the `--dryrun` of the very same command.
struct LiveBuild {
  std::string name;                    ///< e.g. "vadd_gencode"
  std::filesystem::path dir;           ///< nvcc's working folder (holds the source)
  std::string source;                  ///< "vadd.cu"
  std::string stem;                    ///< "vadd"
  std::string keep_dir;                ///< "k", relative to dir
  std::string object;                  ///< "vadd.o", relative to dir
  std::vector<std::string> arch_options;
  std::string dryrun;                  ///< everything nvcc --dryrun printed
  std::vector<std::string> kept;       ///< base names of the files left in keep_dir, sorted

  /// The command, as a learner would type it: "nvcc --keep --keep-dir k -arch=sm_90 -c vadd.cu -o vadd.o".
  std::string command() const;
  /// The same with --dryrun, whose output is `dryrun`.
  std::string dryrun_command() const;

  /// The path, as nvcc spells it in the dryrun, of a kept file: "k/vadd.ptx".
  std::string kept_path(const std::string& base_name) const { return keep_dir + "/" + base_name; }
  /// The content of the one kept file whose name ends in suffix (fails when
  /// there is not exactly one).
  std::string read_kept(std::string_view suffix) const;
};

/// The builds, compiled on first use and kept for the whole test program:
/// vadd_sm80, vadd_sm90, vadd_gencode (sm_80 + sm_90 and compute_90 PTX),
/// params_gencode, multi_sm90.
const LiveBuild& live(std::string_view name);
/// The names above, in that order.
std::vector<std::string> live_names();

/// `nvcc --dryrun -arch=sm_90 -c vadd.cu -o vadd.o` (no --keep: nvcc's
/// temporary names, and a cleanup step).
const std::string& dryrun_without_keep();
inline constexpr const char* kDryrunWithoutKeepCommand = "nvcc --dryrun -arch=sm_90 -c vadd.cu -o vadd.o";

/// A committed fixture: labs/01_compile_pipeline/fixtures/<name>.
std::string fixture(std::string_view name);

/// "[a, b, c]", for messages.
std::string join(const std::vector<std::string>& items);

#ifndef LAUNCHLAB_EXERCISE
// --- the truth about a dryrun, by plain text matching ----------------------

/// One `#$` command line that is not a variable assignment.
struct TruthStage {
  std::string text;   ///< the line without "#$ "
  std::string tool;   ///< base name of the first word, quotes removed
  pipeline::StageKind kind = pipeline::StageKind::Unknown;
};
std::vector<TruthStage> truth_stages(std::string_view dryrun);
/// The `#$ NAME=value` lines, in order: the name before the first `=`, the rest as written.
std::vector<pipeline::EnvironmentVariable> truth_environment(std::string_view dryrun);

/// Which command writes a path, and with which option: the first command
/// line other than `rm` that names the path, as a whole argument (nvcc runs
/// a step before any step that reads its output), and the option just
/// before it ("-o", "--stub_file_name", "--create=", ...).
struct TruthProducer {
  pipeline::StageKind kind = pipeline::StageKind::Unknown;
  std::string option;
};
std::optional<TruthProducer> truth_producer(std::string_view dryrun, const std::string& path);
/// What the file a producer writes with an option holds.
pipeline::FileKind truth_file_kind(const TruthProducer& producer);

// --- the truth about PTX, by regular expressions over its lines ------------

struct TruthParam {
  std::string name;
  std::string type;
  std::size_t size = 0;
  std::size_t align = 0;
  std::optional<std::size_t> array_length;
};
struct TruthReg {
  std::string type;
  std::string prefix;
  std::size_t count = 0;
};
struct TruthEntry {
  std::string name;
  bool visible = false;
  std::vector<TruthParam> params;
  std::vector<TruthReg> top_level_regs;  ///< `.reg .t %x<N>;` lines directly in the body
};
std::vector<TruthEntry> truth_ptx(std::string_view ptx);
/// The offsets the parameters take when each sits at the next multiple of
/// its alignment (the C rule, which the parameter buffer follows).
std::vector<std::size_t> truth_offsets(const std::vector<TruthParam>& params);

/// The name of the stub nvcc wrote for a PTX entry: the entry's own name for
/// a C++ kernel ("_Z4vaddPKfS0_Pfi"); for an `extern "C"` one ("plain_c")
/// the C++ mangling its stub still carries ("_Z7plain_cPf"), found in the
/// stub's text.
std::string truth_stub_name(std::string_view stub_text, const std::string& entry_name);
#endif  // LAUNCHLAB_EXERCISE

}  // namespace launchlab::compile_pipeline_tests
