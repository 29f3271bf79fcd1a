// Part B: classify_kept_file, against the files real `nvcc --keep` builds
// leave and the commands that wrote them.
#include <gtest/gtest.h>

#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "launchlab/record.h"
#include "launchlab/testing.h"
#include "live.h"
#include "pipeline.h"

namespace {
using namespace launchlab::pipeline;
using namespace launchlab::compile_pipeline_tests;
using launchlab::testing::Expected;

std::string classify(const std::string& name) { return "classify_kept_file(\"" + name + "\")"; }

#ifndef LAUNCHLAB_EXERCISE
// A dot-separated part of the name like compute_80 or sm_90.
std::optional<std::string> arch_part(const std::string& file, const char* pattern) {
  std::smatch m;
  if (std::regex_search(file, m, std::regex(pattern))) return m[1].str();
  return std::nullopt;
}
#endif

TEST(KeepFiles, ClassifiedByTheStageThatMadeThem) {
  for (const auto& name : live_names()) {
    const LiveBuild& b = live(name);
    const bool the_build_left_files = !b.kept.empty();
    RECORD_REQUIRE(the_build_left_files);
    for (const auto& file : b.kept) {
      RECORD_SCOPE(classify(file) + ", a file `" + b.command() + "` left");
      KeptFile got = classify_kept_file(file);
      RECORD_EQ(got.name, file) << "its name";
      RECORD_EQ(got.made_by, [&] {
        // The command of the dryrun that writes the file.
        auto producer = truth_producer(b.dryrun, b.kept_path(file));
        return producer ? std::string(to_string(producer->kind)) : std::string("(no command writes it)");
      }()) << "the stage that writes it";
      RECORD_EQ(got.kind, [&] {
        auto producer = truth_producer(b.dryrun, b.kept_path(file));
        return producer ? std::string(to_string(truth_file_kind(*producer))) : std::string("(no command writes it)");
      }()) << "what it holds";
      RECORD_FALSE(got.device_link) << "whether it belongs to the device link";
    }
  }
}

TEST(KeepFiles, ArchitectureFromTheName) {
  for (const auto& name : live_names()) {
    for (const auto& file : live(name).kept) {
      KeptFile got = classify_kept_file(file);
      RECORD_EQ(got.virtual_arch, arch_part(file, R"(\.(compute_\d+[a-z]?)\.)")) << classify(file) << ": its virtual_arch";
      RECORD_EQ(got.real_arch, arch_part(file, R"(\.(sm_\d+[a-z]?)\.)")) << classify(file) << ": its real_arch";
    }
  }
  // The names the course's text uses.
  struct Case {
    const char* file;
    Expected<FileKind> kind;
    Expected<std::optional<std::string>> virtual_arch;
    Expected<std::optional<std::string>> real_arch;
  };
  const std::vector<Case> cases = {
      {"vadd.compute_80.cubin", LAUNCHLAB_EXPECTED(FileKind::Cubin), LAUNCHLAB_EXPECTED(std::optional<std::string>("compute_80")),
       LAUNCHLAB_EXPECTED(std::optional<std::string>())},  // the name carries no sm_
      {"vadd.compute_90.sm_90.cubin", LAUNCHLAB_EXPECTED(FileKind::Cubin),
       LAUNCHLAB_EXPECTED(std::optional<std::string>("compute_90")), LAUNCHLAB_EXPECTED(std::optional<std::string>("sm_90"))},
      {"vadd.ptx", LAUNCHLAB_EXPECTED(FileKind::Ptx), LAUNCHLAB_EXPECTED(std::optional<std::string>()),
       LAUNCHLAB_EXPECTED(std::optional<std::string>())},
      {"vadd.compute_100a.cpp1.ii", LAUNCHLAB_EXPECTED(FileKind::DevicePreprocessed),
       LAUNCHLAB_EXPECTED(std::optional<std::string>("compute_100a")), LAUNCHLAB_EXPECTED(std::optional<std::string>())},
  };
  for (const Case& c : cases) {
    KeptFile got = classify_kept_file(c.file);
    RECORD_EQ(got.kind, c.kind) << classify(c.file) << ": its kind";
    RECORD_EQ(got.virtual_arch, c.virtual_arch) << classify(c.file) << ": its virtual_arch";
    RECORD_EQ(got.real_arch, c.real_arch) << classify(c.file) << ": its real_arch";
  }
}

TEST(KeepFiles, DeviceLinkFiles) {
  // What nvcc --keep -arch=sm_90 vadd.cu -o vadd adds for the device link
  // (see fixtures/dryrun_link_keep_sm90.txt).
  struct Case {
    const char* file;
    Expected<FileKind> kind;
    Expected<StageKind> made_by;
  };
  const std::vector<Case> cases = {
      {"vadd_dlink.sm_90.cubin", LAUNCHLAB_EXPECTED(FileKind::Cubin), LAUNCHLAB_EXPECTED(StageKind::Nvlink)},
      {"vadd_dlink.reg.c", LAUNCHLAB_EXPECTED(FileKind::LinkRegistration), LAUNCHLAB_EXPECTED(StageKind::Nvlink)},
      {"vadd_dlink.fatbin", LAUNCHLAB_EXPECTED(FileKind::Fatbin), LAUNCHLAB_EXPECTED(StageKind::Fatbinary)},
      {"vadd_dlink.fatbin.c", LAUNCHLAB_EXPECTED(FileKind::FatbinC), LAUNCHLAB_EXPECTED(StageKind::Fatbinary)},
      {"vadd_dlink.o", LAUNCHLAB_EXPECTED(FileKind::Object), LAUNCHLAB_EXPECTED(StageKind::HostCompile)},
  };
  for (const Case& c : cases) {
    KeptFile got = classify_kept_file(c.file);
    RECORD_EQ(got.kind, c.kind) << classify(c.file) << ", a file of the device link: its kind";
    RECORD_EQ(got.made_by, c.made_by) << classify(c.file) << ", a file of the device link: the stage that writes it";
    RECORD_TRUE(got.device_link) << classify(c.file) << ": whether it belongs to the device link";
  }
  RECORD_EQ(classify_kept_file("vadd_dlink.sm_90.cubin").real_arch, std::optional<std::string>("sm_90"))
      << classify("vadd_dlink.sm_90.cubin") << ": its real_arch";
}

TEST(KeepFiles, TemporaryAndDottedNames) {
  const std::string temporary = "/tmp/tmpxft_000010ce_00000000-6_vadd.cudafe1.cpp";
  KeptFile t = classify_kept_file(temporary);
  RECORD_EQ(t.name, "tmpxft_000010ce_00000000-6_vadd.cudafe1.cpp")
      << classify(temporary) << ": its name (only the part after the last / is the name)";
  RECORD_EQ(t.kind, FileKind::HostSource) << classify(temporary) << ": its kind";
  RECORD_EQ(t.made_by, StageKind::Cudafe) << classify(temporary) << ": the stage that writes it";

  struct Case {
    const char* file;
    Expected<FileKind> kind;
    Expected<StageKind> made_by;
    Expected<std::optional<std::string>> virtual_arch;
  };
  const std::vector<Case> cases = {
      {"tmpxft_000010ce_00000000-6_vadd.cudafe1.stub.c", LAUNCHLAB_EXPECTED(FileKind::Stub),
       LAUNCHLAB_EXPECTED(StageKind::Cicc), LAUNCHLAB_EXPECTED(std::optional<std::string>())},
      {"my.kernel.compute_90.cpp1.ii", LAUNCHLAB_EXPECTED(FileKind::DevicePreprocessed),
       LAUNCHLAB_EXPECTED(StageKind::DevicePreprocess), LAUNCHLAB_EXPECTED(std::optional<std::string>("compute_90"))},
      {"my.kernel.cpp4.ii", LAUNCHLAB_EXPECTED(FileKind::HostPreprocessed), LAUNCHLAB_EXPECTED(StageKind::HostPreprocess),
       LAUNCHLAB_EXPECTED(std::optional<std::string>())},
  };
  for (const Case& c : cases) {
    KeptFile got = classify_kept_file(c.file);
    RECORD_EQ(got.kind, c.kind) << classify(c.file) << ": its kind";
    RECORD_EQ(got.made_by, c.made_by) << classify(c.file) << ": the stage that writes it";
    RECORD_EQ(got.virtual_arch, c.virtual_arch) << classify(c.file) << ": its virtual_arch";
  }

  for (const char* unknown : {"vadd.cu", "notes.txt", "vadd", ".ptx.bak"}) {
    KeptFile u = classify_kept_file(unknown);
    RECORD_EQ(u.kind, FileKind::Unknown) << classify(unknown) << ", a name nvcc does not write: its kind";
    RECORD_EQ(u.made_by, StageKind::Unknown) << classify(unknown) << ", a name nvcc does not write: the stage";
  }
}

}  // namespace
