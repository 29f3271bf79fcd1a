// Part A: parse_dryrun and split_arguments, against real `nvcc --dryrun`
// output and a committed dryrun of a compile with a link step.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "launchlab/record.h"
#include "launchlab/testing.h"
#include "live.h"
#include "pipeline.h"

namespace {
namespace fs = std::filesystem;
namespace lt = launchlab::testing;
using namespace launchlab::pipeline;
using namespace launchlab::compile_pipeline_tests;
using lt::Expected;

constexpr const char* kLinkFixture =
    "the committed output of `nvcc --dryrun --keep --keep-dir k -arch=sm_90 vadd.cu -o vadd`";
constexpr const char* kGencodeFixture =
    "the committed output of `nvcc --dryrun --keep --keep-dir k -gencode arch=compute_80,code=sm_80 -gencode "
    "arch=compute_90,code=[sm_90,compute_90] -c vadd.cu -o vadd.o`";

std::vector<StageKind> kinds_of(const DryRun& run) {
  std::vector<StageKind> kinds;
  for (const auto& s : run.stages) kinds.push_back(s.kind);
  return kinds;
}

#ifndef LAUNCHLAB_EXERCISE
std::vector<StageKind> truth_kinds(std::string_view text) {
  std::vector<StageKind> kinds;
  for (const auto& s : truth_stages(text)) kinds.push_back(s.kind);
  return kinds;
}
#endif

// The value of the learner's variable of that name, if there is one.
std::optional<std::string> value_of(const DryRun& run, const std::string& name) {
  for (const auto& v : run.environment) {
    if (v.name == name) return v.value;
  }
  return std::nullopt;
}

#ifndef LAUNCHLAB_EXERCISE
std::optional<std::string> truth_value_of(std::string_view text, const std::string& name) {
  for (const auto& v : truth_environment(text)) {
    if (v.name == name) return v.value;
  }
  return std::nullopt;
}
#endif

// "nvvm/bin" of "/usr/local/cuda/bin/../nvvm/bin": what a path ends in, wherever the toolkit is.
std::optional<std::string> last_two_folders(const std::optional<std::string>& path) {
  if (!path) return std::nullopt;
  fs::path p(*path);
  return (p.parent_path().filename() / p.filename()).string();
}

// The stage at an index, or an empty one where the learner's list is shorter.
const Stage& stage_at(const DryRun& run, std::size_t index) {
  static const Stage none;
  return index < run.stages.size() ? run.stages[index] : none;
}

// "parse_dryrun(<the text below>)" and the text, numbered.
std::string parse_dryrun_of(const std::string& text) {
  return "parse_dryrun(<the text below>)\n" + lt::with_line_numbers(text);
}

TEST(Tokenize, SplitsLikeAShell) {
  struct Case {
    const char* command;
    Expected<std::vector<std::string>> words;
  };
  const std::vector<Case> cases = {
      {R"(ptxas -arch=sm_90 -m64  "k/vadd.ptx"  -o "k/vadd.sm_90.cubin" )",
       LAUNCHLAB_EXPECTED(std::vector<std::string>{"ptxas", "-arch=sm_90", "-m64", "k/vadd.ptx", "-o", "k/vadd.sm_90.cubin"})},
      // nvcc writes cicc as "$CICC_PATH/cicc": quoted, and not expanded here.
      {R"("$CICC_PATH/cicc" --c++17)", LAUNCHLAB_EXPECTED(std::vector<std::string>{"$CICC_PATH/cicc", "--c++17"})},
      // Quotes join with the text around them; \" inside quotes is a quote.
      {R"(gcc -DFATBINFILE="\"k/vadd_dlink.fatbin.c\"" -I.)",
       LAUNCHLAB_EXPECTED(std::vector<std::string>{"gcc", "-DFATBINFILE=\"k/vadd_dlink.fatbin.c\"", "-I."})},
      {R"(--cicc-cmdline="-ftz=0 -prec_div=1 " x)",
       LAUNCHLAB_EXPECTED(std::vector<std::string>{"--cicc-cmdline=-ftz=0 -prec_div=1 ", "x"})},
      // An empty pair of quotes is an empty word; single quotes are literal.
      {R"(a "" 'b c\d' e\ f)", LAUNCHLAB_EXPECTED(std::vector<std::string>{"a", "", "b c\\d", "e f"})},
      {"   \t ", LAUNCHLAB_EXPECTED(std::vector<std::string>{})},
  };
  for (const Case& c : cases) {
    RECORD_EQ(split_arguments(c.command), c.words) << "split_arguments(R\"(" << c.command << ")\")";
  }
}

TEST(Tokenize, RejectsUnterminatedQuotes) {
  const std::vector<std::string> unterminated = {R"("vadd.cu)", R"('vadd.cu)", R"(vadd.cu\)"};
  for (const std::string& last : unterminated) {
    const std::string command = "gcc " + last;
    RECORD_THROWS(split_arguments(command), std::runtime_error) << "split_arguments(R\"(" << command << ")\")";
  }
  // Drawn commands, every other one ending in an unterminated word: only code
  // that rejects exactly those and splits the rest matches the solution.
  const std::vector<std::string> words = {"nvcc", "-O2", R"("a b")", R"('c d')", R"(e\ f)", R"(-DNAME="x y")",
                                          R"('it''s')", R"("q\"r")", "-o", "vadd"};
  std::mt19937_64 random = launchlab::testing::seeded_random(20260101);
  for (int row = 0; row < 8; ++row) {
    std::string command = "gcc";
    for (std::uint64_t count = 1 + random() % 5; count > 0; --count) command += " " + words[random() % words.size()];
    if (row % 2 == 1) command += " " + unterminated[random() % unterminated.size()];
    RECORD_OUTCOME(split_arguments(command), std::runtime_error) << "split_arguments(R\"(" << command << ")\")";
  }
}

TEST(DryRun, EnvironmentIsNotAStage) {
  const std::string& text = dryrun_without_keep();
  RECORD_SCOPE(std::string("parse_dryrun(the output of `") + kDryrunWithoutKeepCommand + "`)");
  DryRun run = parse_dryrun(text);
  // Most values are paths of this machine (and PATH is the test's own), so
  // only the names and two values that are the same everywhere are compared.
  std::vector<std::string> names;
  for (const auto& v : run.environment) names.push_back(v.name);
  RECORD_EQ(names, [&] {
    std::vector<std::string> expected;
    for (const auto& v : truth_environment(text)) expected.push_back(v.name);
    return expected;
  }()) << "the environment's names: every `#$ NAME=value` line, in order";
  RECORD_EQ(value_of(run, "_NVVM_BRANCH_"), truth_value_of(text, "_NVVM_BRANCH_")) << "the value of _NVVM_BRANCH_";
  RECORD_EQ(last_two_folders(value_of(run, "CICC_PATH")), last_two_folders(truth_value_of(text, "CICC_PATH")))
      << "the last two folders of CICC_PATH's value";
  RECORD_EQ(run.stages.size(), truth_stages(text).size()) << "how many stages: the `#$` lines that are not NAME=value";
  std::vector<std::string> tools_with_equals;
  for (const auto& s : run.stages) {
    if (s.tool.find('=') != std::string::npos) tools_with_equals.push_back(s.tool);
  }
  RECORD_EQ(tools_with_equals, std::vector<std::string>{}) << "stages whose tool holds a `=`: an assignment is no stage";
}

TEST(DryRun, StagesComeInOrder) {
  for (const auto& name : live_names()) {
    const LiveBuild& b = live(name);
    RECORD_EQ(kinds_of(parse_dryrun(b.dryrun)), truth_kinds(b.dryrun))
        << "parse_dryrun(the output of `" << b.dryrun_command() << "`): the stages' kinds, in order";
  }
  RECORD_EQ(kinds_of(parse_dryrun(dryrun_without_keep())), truth_kinds(dryrun_without_keep()))
      << "parse_dryrun(the output of `" << kDryrunWithoutKeepCommand << "`): the stages' kinds, in order";
}

TEST(DryRun, ToolNamesAreBaseNames) {
  struct Input {
    const std::string* text;
    std::string command;
  };
  for (const Input& input : {Input{&live("vadd_gencode").dryrun, live("vadd_gencode").dryrun_command()},
                             Input{&dryrun_without_keep(), kDryrunWithoutKeepCommand}}) {
    DryRun run = parse_dryrun(*input.text);
    std::vector<std::string> tools;
    for (const auto& s : run.stages) tools.push_back(s.tool);
    RECORD_EQ(tools, [&] {
      std::vector<std::string> expected;
      for (const auto& s : truth_stages(*input.text)) expected.push_back(s.tool);
      return expected;
    }()) << "parse_dryrun(the output of `" << input.command
         << "`): each stage's tool, a base name (\"$CICC_PATH/cicc\" is the tool cicc)";
  }
}

TEST(DryRun, OutputsExistAfterKeep) {
  for (const auto& name : live_names()) {
    const LiveBuild& b = live(name);
    DryRun run = parse_dryrun(b.dryrun);
    std::set<std::string> written;
    for (const auto& s : run.stages) written.insert(s.outputs.begin(), s.outputs.end());
    RECORD_EQ(written, [&] {
      // What the build left: every file of the keep folder, and the object.
      std::set<std::string> on_disk = {b.object};
      for (const auto& file : b.kept) on_disk.insert(b.kept_path(file));
      return on_disk;
    }()) << "parse_dryrun(the output of `" << b.dryrun_command()
         << "`): every stage's outputs together, sorted; `" << b.command()
         << "` leaves exactly these files (the keep folder's and the object)";
  }
}

TEST(DryRun, InputsComeFromEarlierStages) {
  for (const auto& name : live_names()) {
    const LiveBuild& b = live(name);
    RECORD_SCOPE("parse_dryrun(the output of `" + b.dryrun_command() + "`)");
    DryRun run = parse_dryrun(b.dryrun);
    RECORD_EQ(run.stages.size(), truth_stages(b.dryrun).size()) << "how many stages";
    std::vector<std::string> reading_nothing, reading_from_nowhere;
    std::set<std::string> available = {b.source};
    for (const auto& s : run.stages) {
      const std::string where = std::string(to_string(s.kind)) + " (line " + std::to_string(s.line) + ")";
      if (s.kind != StageKind::Cleanup && s.inputs.empty()) reading_nothing.push_back(where);
      for (const auto& in : s.inputs) {
        if (!available.count(in)) reading_from_nowhere.push_back(where + " reads " + in);
      }
      for (const auto& out : s.outputs) available.insert(out);
    }
    RECORD_EQ(reading_nothing, std::vector<std::string>{}) << "the stages other than rm that read no file";
    RECORD_EQ(reading_from_nowhere, std::vector<std::string>{})
        << "inputs that are neither the source nor an earlier stage's output";
  }
  // cicc reads the module id cudafe++ wrote, so host and device agree on it.
  const LiveBuild& b = live("vadd_sm90");
  RECORD_SCOPE("parse_dryrun(the output of `" + b.dryrun_command() + "`)");
  std::vector<std::vector<std::string>> cudafe_files, cicc_inputs;
  for (const auto& s : parse_dryrun(b.dryrun).stages) {
    if (s.kind == StageKind::Cudafe) cudafe_files.push_back({"inputs: " + join(s.inputs), "outputs: " + join(s.outputs)});
    if (s.kind == StageKind::Cicc) cicc_inputs.push_back(s.inputs);
  }
  RECORD_EQ(cudafe_files, std::vector<std::vector<std::string>>{
                              {"inputs: [k/vadd.cpp4.ii]", "outputs: [k/vadd.cudafe1.cpp, k/vadd.module_id]"}})
      << "the files of each Cudafe stage (one): cudafe++ writes the .cudafe1.cpp and the module id; the stub is cicc's";
  RECORD_EQ(cicc_inputs, std::vector<std::vector<std::string>>{{"k/vadd.module_id", "k/vadd.cpp1.ii"}})
      << "the inputs of each Cicc stage (one)";
}

TEST(DryRun, ArchitecturesPerStage) {
  // Live, and fixtures/dryrun_gencode_keep.txt, made with the same options.
  struct Input {
    std::string text;
    std::string what;
  };
  const LiveBuild& b = live("vadd_gencode");
  for (const Input& input : {Input{b.dryrun, "the output of `" + b.dryrun_command() + "`"},
                             Input{fixture("dryrun_gencode_keep.txt"), kGencodeFixture}}) {
    RECORD_SCOPE("parse_dryrun(" + input.what + ")");
    DryRun run = parse_dryrun(input.text);
    std::vector<std::optional<std::string>> device_pre, cicc, ptxas;
    std::vector<std::string> others;
    for (const auto& s : run.stages) {
      if (s.kind == StageKind::DevicePreprocess) device_pre.push_back(s.arch);
      else if (s.kind == StageKind::Cicc) cicc.push_back(s.arch);
      else if (s.kind == StageKind::Ptxas) ptxas.push_back(s.arch);
      else if (s.arch) others.push_back(std::string(to_string(s.kind)) + " (line " + std::to_string(s.line) + "): " + *s.arch);
    }
    RECORD_EQ(device_pre, std::vector<std::string>{"compute_80", "compute_90"}) << "the arch of each DevicePreprocess stage";
    RECORD_EQ(cicc, std::vector<std::string>{"compute_80", "compute_90"}) << "the arch of each Cicc stage";
    RECORD_EQ(ptxas, std::vector<std::string>{"sm_80", "sm_90"}) << "the arch of each Ptxas stage";
    RECORD_EQ(others, std::vector<std::string>{})
        << "other stages with an arch: only device preprocessing, cicc, ptxas and nvlink have one";
  }
}

TEST(DryRun, FatbinaryPacksEveryImage) {
  // code=sm_80 and code=sm_90 ask for SASS (the cubins); code=compute_90 asks
  // for PTX to be embedded too. -arch=sm_90 alone means both sm_90 and compute_90.
  struct Case {
    const char* build;
    Expected<std::vector<std::string>> images;
  };
  const std::vector<Case> cases = {
      {"vadd_gencode",
       LAUNCHLAB_EXPECTED(std::vector<std::string>{"k/vadd.compute_80.cubin", "k/vadd.compute_90.sm_90.cubin", "k/vadd.compute_90.ptx"})},
      {"vadd_sm90", LAUNCHLAB_EXPECTED(std::vector<std::string>{"k/vadd.sm_90.cubin", "k/vadd.ptx"})},
  };
  for (const Case& c : cases) {
    const LiveBuild& b = live(c.build);
    RECORD_SCOPE("the Fatbinary stage of parse_dryrun(the output of `" + b.dryrun_command() + "`)");
    DryRun run = parse_dryrun(b.dryrun);
    auto fatbinary = std::find_if(run.stages.begin(), run.stages.end(),
                                  [](const Stage& s) { return s.kind == StageKind::Fatbinary; });
    const bool has_a_fatbinary_stage = fatbinary != run.stages.end();
    RECORD_REQUIRE(has_a_fatbinary_stage);
    RECORD_EQ(fatbinary->inputs, [&] {
      // Each image is a file the build left.
      std::vector<std::string> images = c.images.value;
      for (auto& image : images) {
        if (!fs::exists(b.dir / image)) image += " (which nvcc did not leave: the test's own build is wrong)";
      }
      return images;
    }()) << "its inputs: the images it packs";
    RECORD_EQ(fatbinary->outputs, std::vector<std::string>{"k/vadd.fatbin", "k/vadd.fatbin.c"}) << "its outputs";
  }
}

TEST(DryRun, CleanupWithoutKeep) {
  RECORD_SCOPE(std::string("parse_dryrun(the output of `") + kDryrunWithoutKeepCommand + "`)");
  DryRun run = parse_dryrun(dryrun_without_keep());
  std::vector<const Stage*> cleanups;
  for (const auto& s : run.stages) {
    if (s.kind == StageKind::Cleanup) cleanups.push_back(&s);
  }
  RECORD_EQ(cleanups.size(), 1u) << "how many Cleanup stages: nvcc -c without --keep removes one file";
  const bool has_a_cleanup_stage = !cleanups.empty();
  RECORD_REQUIRE(has_a_cleanup_stage);
  const Stage& rm = *cleanups.front();
  RECORD_EQ(rm.tool, "rm") << "the Cleanup stage's tool";
  // Without --keep the files have temporary names; what they end in is fixed.
  std::vector<std::string> endings;
  for (const auto& in : rm.inputs) endings.push_back(fs::path(in).extension().string());
  RECORD_EQ(endings, std::vector<std::string>{".fatbin"}) << "how the Cleanup stage's inputs end: it removes the fatbin";
  RECORD_EQ(rm.outputs, std::vector<std::string>{}) << "the Cleanup stage's outputs";
  // The intermediate files get temporary names, but the object is ours.
  const Stage& last_stage = stage_at(run, run.stages.empty() ? 0 : run.stages.size() - 1);
  RECORD_EQ(last_stage.outputs, std::vector<std::string>{"vadd.o"})
      << "the last stage's outputs";
}

TEST(DryRun, LinkStepFromFixture) {
  RECORD_SCOPE(std::string("parse_dryrun(") + kLinkFixture + ")");
  DryRun run = parse_dryrun(fixture("dryrun_link_keep_sm90.txt"));
  RECORD_EQ(kinds_of(run), std::vector<StageKind>{StageKind::Cleanup, StageKind::HostPreprocess, StageKind::Cudafe,
                                                  StageKind::DevicePreprocess, StageKind::Cicc, StageKind::Ptxas,
                                                  StageKind::Fatbinary, StageKind::HostCompile, StageKind::Nvlink,
                                                  StageKind::Fatbinary, StageKind::HostCompile, StageKind::HostLink})
      << "the stages' kinds, in order";
  RECORD_EQ(run.environment.size(), 18u) << "how many environment variables";

  const Stage& nvlink = stage_at(run, 8);
  RECORD_EQ(nvlink.tool, "nvlink") << "stage 8 (from 0): its tool";
  RECORD_EQ(nvlink.arch, std::optional<std::string>("sm_90")) << "stage 8, nvlink: its arch";
  RECORD_EQ(nvlink.inputs, std::vector<std::string>{"k/vadd.o"}) << "stage 8, nvlink: its inputs";
  RECORD_EQ(nvlink.outputs, std::vector<std::string>{"k/vadd_dlink.reg.c", "k/vadd_dlink.sm_90.cubin"})
      << "stage 8, nvlink: its outputs (--host-ccbin \"gcc\" takes a value)";

  const Stage& link_fatbinary = stage_at(run, 9);
  RECORD_EQ(link_fatbinary.inputs, std::vector<std::string>{"k/vadd_dlink.sm_90.cubin"}) << "stage 9, fatbinary: its inputs";
  RECORD_EQ(link_fatbinary.outputs, std::vector<std::string>{"k/vadd_dlink.fatbin", "k/vadd_dlink.fatbin.c"})
      << "stage 9, fatbinary: its outputs";

  const Stage& link_stub = stage_at(run, 10);
  RECORD_EQ(link_stub.outputs, std::vector<std::string>{"k/vadd_dlink.o"}) << "stage 10, the host compile of link.stub: its outputs";
  std::vector<std::string> input_names;
  for (const auto& in : link_stub.inputs) input_names.push_back(fs::path(in).filename().string());
  RECORD_EQ(input_names, std::vector<std::string>{"link.stub"}) << "stage 10: the file names of its inputs";
  std::vector<std::string> fatbinfile_arguments;
  for (const auto& argument : link_stub.arguments) {
    if (argument.rfind("-DFATBINFILE", 0) == 0) fatbinfile_arguments.push_back(argument);
  }
  RECORD_EQ(fatbinfile_arguments, std::vector<std::string>{"-DFATBINFILE=\"k/vadd_dlink.fatbin.c\""})
      << "stage 10: its -DFATBINFILE argument, unquoted the way a shell would";

  const Stage& link = stage_at(run, 11);
  RECORD_EQ(link.tool, "g++") << "stage 11, the host link: its tool";
  RECORD_EQ(link.inputs, std::vector<std::string>{"k/vadd_dlink.o", "k/vadd.o"}) << "stage 11, the host link: its inputs";
  RECORD_EQ(link.outputs, std::vector<std::string>{"vadd"}) << "stage 11, the host link: its outputs";

  // --keep runs "rm" first, on a file no step has written yet.
  RECORD_EQ(stage_at(run, 0).inputs, std::vector<std::string>{"k/vadd_dlink.reg.c"}) << "stage 0, rm: its inputs";
  RECORD_EQ(stage_at(run, 0).line, 19u) << "stage 0, rm: its line";
}

TEST(DryRun, IgnoresOtherLines) {
  const std::string text =
      "nvcc warning : some warning nvcc may print\r\n"
      "\r\n"
      "#$ _NVVM_BRANCH_=nvvm\r\n"
      "#$ ptxas -arch=sm_90 -m64  \"a b.ptx\"  -o \"a b.sm_90.cubin\" \r\n"
      "# a comment, not a command\n"
      "#$ rm \"a b.fatbin\"";
  RECORD_SCOPE(parse_dryrun_of(text) + "(lines 1 to 4 end in \\r\\n, line 6 in nothing)");
  DryRun run = parse_dryrun(text);
  RECORD_EQ(run.environment, std::vector<EnvironmentVariable>{{"_NVVM_BRANCH_", "nvvm"}}) << "the environment";
  RECORD_EQ(kinds_of(run), std::vector<StageKind>{StageKind::Ptxas, StageKind::Cleanup}) << "the stages' kinds";
  RECORD_EQ(stage_at(run, 0).line, 4u) << "stage 0's line";
  RECORD_EQ(stage_at(run, 0).inputs, std::vector<std::string>{"a b.ptx"}) << "stage 0's inputs";
  RECORD_EQ(stage_at(run, 0).outputs, std::vector<std::string>{"a b.sm_90.cubin"}) << "stage 0's outputs";
  RECORD_EQ(stage_at(run, 1).line, 6u) << "stage 1's line";
  RECORD_EQ(parse_dryrun("").stages.size(), 0u) << "parse_dryrun(\"\"): how many stages";
}

TEST(DryRun, MalformedInputThrows) {
  struct Case {
    std::string text;
    Expected<std::string> line;
  };
  const std::vector<Case> cases = {
      {"#$ _SPACE_= \n#$ gcc -E x.cu -o x.ii\n#$ ptxas \"x.ptx -o x.cubin\n", LAUNCHLAB_EXPECTED(std::string("line 3"))},
      {"#$ ptxas -arch=sm_90 x.ptx -o\n", LAUNCHLAB_EXPECTED(std::string("line 1"))},
      {"\n\n#$ cudafe++ --gen_c_file_name\n", LAUNCHLAB_EXPECTED(std::string("line 3"))},
  };
  for (const Case& c : cases) {
    RECORD_SCOPE(parse_dryrun_of(c.text));
    RECORD_THROWS(parse_dryrun(c.text), std::runtime_error);
    const std::string message = lt::message_thrown<std::runtime_error>([&] { parse_dryrun(c.text); });
    RECORD_CONTAINS(message, c.line) << "the exception's message names the line";
  }
}

}  // namespace
