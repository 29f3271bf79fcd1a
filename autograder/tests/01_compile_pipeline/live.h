// What the tests of 01_compile_pipeline share: real nvcc runs on the kernels
// in kernels/, and the truth about them worked out here, from the files nvcc
// leaves and from plain text matching, never from the learner's code.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline.h"

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

/// A committed fixture: autograder/tests/01_compile_pipeline/fixtures/<name>.
std::string fixture(std::string_view name);

// --- the truth about a dryrun, by plain text matching ----------------------

/// One `#$` command line that is not a variable assignment.
struct TruthStage {
  std::string text;   ///< the line without "#$ "
  std::string tool;   ///< base name of the first word, quotes removed
  pipeline::StageKind kind = pipeline::StageKind::Unknown;
};
std::vector<TruthStage> truth_stages(std::string_view dryrun);
/// The names of the `#$ NAME=value` lines, in order.
std::vector<std::string> truth_environment_names(std::string_view dryrun);

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

/// "[a, b, c]", for messages.
std::string join(const std::vector<std::string>& items);

}  // namespace launchlab::compile_pipeline_tests
