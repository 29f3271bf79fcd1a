// Part A: parse_dryrun and split_arguments, against real `nvcc --dryrun`
// output and a committed dryrun of a compile with a link step.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "launchlab/testing.h"
#include "live.h"
#include "pipeline.h"

namespace {
namespace fs = std::filesystem;
namespace lt = launchlab::testing;
using namespace launchlab::pipeline;
using namespace launchlab::compile_pipeline_tests;

std::vector<std::string> kind_names(const std::vector<StageKind>& kinds) {
  std::vector<std::string> names;
  for (auto k : kinds) names.emplace_back(to_string(k));
  return names;
}

std::vector<std::string> learner_kinds(const DryRun& run) {
  std::vector<StageKind> kinds;
  for (const auto& s : run.stages) kinds.push_back(s.kind);
  return kind_names(kinds);
}

std::vector<std::string> truth_kinds(std::string_view text) {
  std::vector<StageKind> kinds;
  for (const auto& s : truth_stages(text)) kinds.push_back(s.kind);
  return kind_names(kinds);
}

// Every file of a --keep build, as nvcc spells it: "k/vadd.ptx", plus the object.
std::set<std::string> files_on_disk(const LiveBuild& b) {
  std::set<std::string> files;
  for (const auto& name : b.kept) files.insert(b.kept_path(name));
  return files;
}

template <class F>
::testing::AssertionResult throws_naming_line(F&& f, const std::string& line) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    std::string what = e.what();
    if (what.find(line) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "the message should name \"" << line << "\", it says: " << what;
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "expected std::runtime_error, got another exception: " << e.what();
  }
  return ::testing::AssertionFailure() << "expected std::runtime_error, nothing was thrown";
}

TEST(Tokenize, SplitsLikeAShell) {
  EXPECT_TRUE(lt::SameSequence(std::vector<std::string>{"ptxas", "-arch=sm_90", "-m64", "k/vadd.ptx", "-o", "k/vadd.sm_90.cubin"},
                               split_arguments(R"(ptxas -arch=sm_90 -m64  "k/vadd.ptx"  -o "k/vadd.sm_90.cubin" )")));
  // nvcc writes cicc as "$CICC_PATH/cicc": quoted, and not expanded here.
  EXPECT_TRUE(lt::SameSequence(std::vector<std::string>{"$CICC_PATH/cicc", "--c++17"},
                               split_arguments(R"("$CICC_PATH/cicc" --c++17)")));
  // Quotes join with the text around them; \" inside quotes is a quote.
  EXPECT_TRUE(lt::SameSequence(std::vector<std::string>{"gcc", "-DFATBINFILE=\"k/vadd_dlink.fatbin.c\"", "-I."},
                               split_arguments(R"(gcc -DFATBINFILE="\"k/vadd_dlink.fatbin.c\"" -I.)")));
  EXPECT_TRUE(lt::SameSequence(std::vector<std::string>{"--cicc-cmdline=-ftz=0 -prec_div=1 ", "x"},
                               split_arguments(R"(--cicc-cmdline="-ftz=0 -prec_div=1 " x)")));
  // An empty pair of quotes is an empty word; single quotes are literal.
  EXPECT_TRUE(lt::SameSequence(std::vector<std::string>{"a", "", "b c\\d", "e f"},
                               split_arguments(R"(a "" 'b c\d' e\ f)")));
  EXPECT_TRUE(split_arguments("   \t ").empty());
}

TEST(Tokenize, RejectsUnterminatedQuotes) {
  EXPECT_THROW(split_arguments(R"(gcc "vadd.cu)"), std::runtime_error);
  EXPECT_THROW(split_arguments(R"(gcc 'vadd.cu)"), std::runtime_error);
  EXPECT_THROW(split_arguments(R"(gcc vadd.cu\)"), std::runtime_error);
}

TEST(DryRun, EnvironmentIsNotAStage) {
  const std::string& text = dryrun_without_keep();
  DryRun run = parse_dryrun(text);
  std::vector<std::string> names;
  for (const auto& v : run.environment) names.push_back(v.name);
  EXPECT_TRUE(lt::SameSequence(truth_environment_names(text), names));
  EXPECT_EQ(run.stages.size(), truth_stages(text).size()) << "stages found: " << join(learner_kinds(run));
  for (const auto& v : run.environment) {
    if (v.name == "_NVVM_BRANCH_") {
      EXPECT_EQ(v.value, "nvvm");
    }
    if (v.name == "CICC_PATH") {
      EXPECT_TRUE(v.value.size() >= 9 && v.value.substr(v.value.size() - 9) == "/nvvm/bin") << v.value;
    }
  }
  for (const auto& s : run.stages) EXPECT_EQ(s.tool.find('='), std::string::npos) << "a stage named " << s.tool;
}

TEST(DryRun, StagesComeInOrder) {
  for (const auto& name : live_names()) {
    const LiveBuild& b = live(name);
    DryRun run = parse_dryrun(b.dryrun);
    EXPECT_TRUE(lt::SameSequence(truth_kinds(b.dryrun), learner_kinds(run))) << "in " << name << " (" << join(b.arch_options) << ")";
  }
  EXPECT_TRUE(lt::SameSequence(truth_kinds(dryrun_without_keep()), learner_kinds(parse_dryrun(dryrun_without_keep()))))
      << "in the dryrun without --keep";
}

TEST(DryRun, ToolNamesAreBaseNames) {
  for (const std::string* text : {&live("vadd_gencode").dryrun, &dryrun_without_keep()}) {
    DryRun run = parse_dryrun(*text);
    std::vector<std::string> tools;
    for (const auto& s : run.stages) tools.push_back(s.tool);
    std::vector<std::string> expected;
    for (const auto& s : truth_stages(*text)) expected.push_back(s.tool);
    EXPECT_TRUE(lt::SameSequence(expected, tools));
    EXPECT_NE(std::find(tools.begin(), tools.end(), "cicc"), tools.end()) << "\"$CICC_PATH/cicc\" is the tool cicc";
  }
}

TEST(DryRun, OutputsExistAfterKeep) {
  for (const auto& name : live_names()) {
    const LiveBuild& b = live(name);
    DryRun run = parse_dryrun(b.dryrun);
    std::set<std::string> on_disk = files_on_disk(b);
    std::set<std::string> written;
    for (const auto& s : run.stages) {
      for (const auto& out : s.outputs) {
        written.insert(out);
        EXPECT_TRUE(fs::exists(b.dir / out)) << name << ": " << to_string(s.kind) << " (line " << s.line
                                             << ") lists the output " << out << ", which nvcc --keep did not leave";
      }
    }
    for (const auto& file : on_disk) {
      EXPECT_TRUE(written.count(file)) << name << ": nvcc --keep left " << file << " but no stage lists it as an output";
    }
    EXPECT_TRUE(written.count(b.object)) << name << ": the object " << b.object << " is no stage's output";
  }
}

TEST(DryRun, InputsComeFromEarlierStages) {
  for (const auto& name : live_names()) {
    const LiveBuild& b = live(name);
    DryRun run = parse_dryrun(b.dryrun);
    ASSERT_EQ(run.stages.size(), truth_stages(b.dryrun).size()) << name << ": stages found: " << join(learner_kinds(run));
    std::set<std::string> available = {b.source};
    for (const auto& s : run.stages) {
      if (s.kind != StageKind::Cleanup) {
        EXPECT_FALSE(s.inputs.empty()) << name << ": " << to_string(s.kind) << " (line " << s.line << ") reads nothing";
      }
      for (const auto& in : s.inputs) {
        EXPECT_TRUE(available.count(in)) << name << ": " << to_string(s.kind) << " (line " << s.line << ") reads " << in
                                         << ", which is neither the source nor an earlier stage's output";
      }
      for (const auto& out : s.outputs) available.insert(out);
    }
  }
  // cicc reads the module id cudafe++ wrote, so host and device agree on it.
  DryRun run = parse_dryrun(live("vadd_sm90").dryrun);
  int seen = 0;
  for (const auto& s : run.stages) {
    if (s.kind == StageKind::Cicc || s.kind == StageKind::Cudafe) ++seen;
    if (s.kind == StageKind::Cicc) {
      EXPECT_TRUE(lt::SameSequence(std::vector<std::string>{"k/vadd.module_id", "k/vadd.cpp1.ii"}, s.inputs));
    }
    if (s.kind == StageKind::Cudafe) {
      EXPECT_TRUE(lt::SameSequence(std::vector<std::string>{"k/vadd.cpp4.ii"}, s.inputs));
      EXPECT_TRUE(lt::SameSequence(std::vector<std::string>{"k/vadd.cudafe1.cpp", "k/vadd.module_id"}, s.outputs))
          << "cudafe++ writes the .cudafe1.cpp and the module id; the stub is cicc's";
    }
  }
  EXPECT_EQ(seen, 2) << "vadd_sm90 runs cudafe++ once and cicc once";
}

TEST(DryRun, ArchitecturesPerStage) {
  // Live, and fixtures/dryrun_gencode_keep.txt, made with the same options.
  for (const std::string& text : {live("vadd_gencode").dryrun, fixture("dryrun_gencode_keep.txt")}) {
    DryRun run = parse_dryrun(text);
    std::vector<std::string> device_pre, cicc, ptxas, others;
    for (const auto& s : run.stages) {
      std::string arch = s.arch.value_or("(none)");
      if (s.kind == StageKind::DevicePreprocess) device_pre.push_back(arch);
      else if (s.kind == StageKind::Cicc) cicc.push_back(arch);
      else if (s.kind == StageKind::Ptxas) ptxas.push_back(arch);
      else if (s.arch) others.push_back(std::string(to_string(s.kind)) + "=" + *s.arch);
    }
    EXPECT_TRUE(lt::SameSequence(std::vector<std::string>{"compute_80", "compute_90"}, device_pre)) << "device preprocessing";
    EXPECT_TRUE(lt::SameSequence(std::vector<std::string>{"compute_80", "compute_90"}, cicc)) << "cicc";
    EXPECT_TRUE(lt::SameSequence(std::vector<std::string>{"sm_80", "sm_90"}, ptxas)) << "ptxas";
    EXPECT_TRUE(others.empty()) << "only device preprocessing, cicc, ptxas and nvlink have an arch: " << join(others);
  }
}

TEST(DryRun, FatbinaryPacksEveryImage) {
  // code=sm_80 and code=sm_90 ask for SASS (the cubins); code=compute_90 asks
  // for PTX to be embedded too. -arch=sm_90 alone means both sm_90 and compute_90.
  struct Case {
    const char* build;
    std::vector<std::string> images;
  };
  for (const Case& c : {Case{"vadd_gencode", {"k/vadd.compute_80.cubin", "k/vadd.compute_90.sm_90.cubin", "k/vadd.compute_90.ptx"}},
                        Case{"vadd_sm90", {"k/vadd.sm_90.cubin", "k/vadd.ptx"}}}) {
    const LiveBuild& b = live(c.build);
    for (const auto& image : c.images) ASSERT_TRUE(fs::exists(b.dir / image)) << image;
    DryRun run = parse_dryrun(b.dryrun);
    auto fatbinary = std::find_if(run.stages.begin(), run.stages.end(),
                                  [](const Stage& s) { return s.kind == StageKind::Fatbinary; });
    ASSERT_NE(fatbinary, run.stages.end()) << "no fatbinary stage in " << c.build;
    EXPECT_TRUE(lt::SameSequence(c.images, fatbinary->inputs)) << c.build;
    EXPECT_TRUE(lt::SameSequence(std::vector<std::string>{"k/vadd.fatbin", "k/vadd.fatbin.c"}, fatbinary->outputs)) << c.build;
  }
}

TEST(DryRun, CleanupWithoutKeep) {
  DryRun run = parse_dryrun(dryrun_without_keep());
  std::vector<const Stage*> cleanups;
  for (const auto& s : run.stages) {
    if (s.kind == StageKind::Cleanup) cleanups.push_back(&s);
  }
  ASSERT_EQ(cleanups.size(), 1u) << "nvcc -c without --keep removes one file; stages: " << join(learner_kinds(run));
  const Stage& rm = *cleanups.front();
  EXPECT_EQ(rm.tool, "rm");
  ASSERT_EQ(rm.inputs.size(), 1u);
  EXPECT_TRUE(rm.inputs[0].size() > 7 && rm.inputs[0].substr(rm.inputs[0].size() - 7) == ".fatbin") << rm.inputs[0];
  EXPECT_TRUE(rm.outputs.empty());
  // Without --keep the intermediate files get temporary names, but the object is ours.
  ASSERT_FALSE(run.stages.empty());
  EXPECT_TRUE(lt::SameSequence(std::vector<std::string>{"vadd.o"}, run.stages.back().outputs));
}

TEST(DryRun, LinkStepFromFixture) {
  // fixtures/dryrun_link_keep_sm90.txt: nvcc --dryrun --keep --keep-dir k -arch=sm_90 vadd.cu -o vadd
  DryRun run = parse_dryrun(fixture("dryrun_link_keep_sm90.txt"));
  EXPECT_TRUE(lt::SameSequence(
      std::vector<std::string>{"Cleanup", "HostPreprocess", "Cudafe", "DevicePreprocess", "Cicc", "Ptxas", "Fatbinary",
                               "HostCompile", "Nvlink", "Fatbinary", "HostCompile", "HostLink"},
      learner_kinds(run)));
  ASSERT_EQ(run.stages.size(), 12u);
  EXPECT_EQ(run.environment.size(), 18u);

  const Stage& nvlink = run.stages[8];
  EXPECT_EQ(nvlink.tool, "nvlink");
  EXPECT_EQ(nvlink.arch, std::optional<std::string>("sm_90"));
  EXPECT_TRUE(lt::SameSequence(std::vector<std::string>{"k/vadd.o"}, nvlink.inputs)) << "nvlink's inputs";
  EXPECT_TRUE(lt::SameSequence(std::vector<std::string>{"k/vadd_dlink.reg.c", "k/vadd_dlink.sm_90.cubin"}, nvlink.outputs))
      << "nvlink's outputs (--host-ccbin \"gcc\" takes a value)";

  const Stage& link_fatbinary = run.stages[9];
  EXPECT_TRUE(lt::SameSequence(std::vector<std::string>{"k/vadd_dlink.sm_90.cubin"}, link_fatbinary.inputs));
  EXPECT_TRUE(lt::SameSequence(std::vector<std::string>{"k/vadd_dlink.fatbin", "k/vadd_dlink.fatbin.c"}, link_fatbinary.outputs));

  const Stage& link_stub = run.stages[10];
  EXPECT_EQ(link_stub.outputs, std::vector<std::string>{"k/vadd_dlink.o"});
  ASSERT_EQ(link_stub.inputs.size(), 1u);
  EXPECT_EQ(fs::path(link_stub.inputs[0]).filename(), "link.stub");
  EXPECT_NE(std::find(link_stub.arguments.begin(), link_stub.arguments.end(), "-DFATBINFILE=\"k/vadd_dlink.fatbin.c\""),
            link_stub.arguments.end())
      << "the arguments are unquoted the way a shell would";

  const Stage& link = run.stages[11];
  EXPECT_EQ(link.tool, "g++");
  EXPECT_TRUE(lt::SameSequence(std::vector<std::string>{"k/vadd_dlink.o", "k/vadd.o"}, link.inputs));
  EXPECT_TRUE(lt::SameSequence(std::vector<std::string>{"vadd"}, link.outputs));

  // --keep runs "rm" first, on a file no step has written yet.
  EXPECT_TRUE(lt::SameSequence(std::vector<std::string>{"k/vadd_dlink.reg.c"}, run.stages[0].inputs));
  EXPECT_EQ(run.stages[0].line, 19u);
}

TEST(DryRun, IgnoresOtherLines) {
  const std::string text =
      "nvcc warning : some warning nvcc may print\r\n"
      "\r\n"
      "#$ _NVVM_BRANCH_=nvvm\r\n"
      "#$ ptxas -arch=sm_90 -m64  \"a b.ptx\"  -o \"a b.sm_90.cubin\" \r\n"
      "# a comment, not a command\n"
      "#$ rm \"a b.fatbin\"";
  DryRun run = parse_dryrun(text);
  ASSERT_EQ(run.environment.size(), 1u);
  EXPECT_EQ(run.environment[0].value, "nvvm");
  ASSERT_EQ(run.stages.size(), 2u);
  EXPECT_EQ(run.stages[0].line, 4u);
  EXPECT_EQ(run.stages[0].kind, StageKind::Ptxas);
  EXPECT_TRUE(lt::SameSequence(std::vector<std::string>{"a b.ptx"}, run.stages[0].inputs));
  EXPECT_TRUE(lt::SameSequence(std::vector<std::string>{"a b.sm_90.cubin"}, run.stages[0].outputs));
  EXPECT_EQ(run.stages[1].kind, StageKind::Cleanup);
  EXPECT_EQ(run.stages[1].line, 6u);
  EXPECT_TRUE(parse_dryrun("").stages.empty());
}

TEST(DryRun, MalformedInputThrows) {
  EXPECT_TRUE(throws_naming_line([] { parse_dryrun("#$ _SPACE_= \n#$ gcc -E x.cu -o x.ii\n#$ ptxas \"x.ptx -o x.cubin\n"); },
                                 "line 3"));
  EXPECT_TRUE(throws_naming_line([] { parse_dryrun("#$ ptxas -arch=sm_90 x.ptx -o\n"); }, "line 1"));
  EXPECT_TRUE(throws_naming_line([] { parse_dryrun("\n\n#$ cudafe++ --gen_c_file_name\n"); }, "line 3"));
}

}  // namespace
