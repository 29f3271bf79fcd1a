// Part B: classify_kept_file, against the files real `nvcc --keep` builds
// leave and the commands that wrote them.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "launchlab/testing.h"
#include "live.h"
#include "pipeline.h"

namespace {
using namespace launchlab::pipeline;
using namespace launchlab::compile_pipeline_tests;

std::string describe(const KeptFile& f) {
  return std::string(to_string(f.kind)) + " made by " + std::string(to_string(f.made_by)) +
         ", virtual " + f.virtual_arch.value_or("(none)") + ", real " + f.real_arch.value_or("(none)") +
         (f.device_link ? ", device link" : "");
}

TEST(KeepFiles, ClassifiedByTheStageThatMadeThem) {
  for (const auto& name : live_names()) {
    const LiveBuild& b = live(name);
    ASSERT_FALSE(b.kept.empty()) << name;
    for (const auto& file : b.kept) {
      auto producer = truth_producer(b.dryrun, b.kept_path(file));
      ASSERT_TRUE(producer.has_value()) << name << ": no command writes " << file;
      KeptFile got = classify_kept_file(file);
      EXPECT_EQ(got.name, file);
      EXPECT_EQ(to_string(got.made_by), to_string(producer->kind))
          << name << ": " << file << " is written by " << to_string(producer->kind) << " (" << producer->option
          << "); you said " << describe(got);
      EXPECT_EQ(to_string(got.kind), to_string(truth_file_kind(*producer)))
          << name << ": " << file << " (written with " << producer->option << "); you said " << describe(got);
      EXPECT_FALSE(got.device_link) << file;
    }
  }
}

TEST(KeepFiles, ArchitectureFromTheName) {
  // The truth: a dot-separated part of the name like compute_80 or sm_90.
  const std::regex compute(R"(\.(compute_\d+[a-z]?)\.)");
  const std::regex sm(R"(\.(sm_\d+[a-z]?)\.)");
  for (const auto& name : live_names()) {
    for (const auto& file : live(name).kept) {
      std::smatch m;
      std::optional<std::string> virtual_arch, real_arch;
      if (std::regex_search(file, m, compute)) virtual_arch = m[1].str();
      if (std::regex_search(file, m, sm)) real_arch = m[1].str();
      KeptFile got = classify_kept_file(file);
      EXPECT_EQ(got.virtual_arch, virtual_arch) << file << ": you said " << describe(got);
      EXPECT_EQ(got.real_arch, real_arch) << file << ": you said " << describe(got);
    }
  }
  // The names the course's text uses.
  KeptFile a = classify_kept_file("vadd.compute_80.cubin");
  EXPECT_EQ(a.kind, FileKind::Cubin);
  EXPECT_EQ(a.virtual_arch, std::optional<std::string>("compute_80"));
  EXPECT_EQ(a.real_arch, std::nullopt) << "the name carries no sm_";
  KeptFile b = classify_kept_file("vadd.compute_90.sm_90.cubin");
  EXPECT_EQ(b.virtual_arch, std::optional<std::string>("compute_90"));
  EXPECT_EQ(b.real_arch, std::optional<std::string>("sm_90"));
  KeptFile c = classify_kept_file("vadd.ptx");
  EXPECT_EQ(c.kind, FileKind::Ptx);
  EXPECT_EQ(c.virtual_arch, std::nullopt);
  EXPECT_EQ(c.real_arch, std::nullopt);
  KeptFile d = classify_kept_file("vadd.compute_100a.cpp1.ii");
  EXPECT_EQ(d.kind, FileKind::DevicePreprocessed);
  EXPECT_EQ(d.virtual_arch, std::optional<std::string>("compute_100a"));
}

TEST(KeepFiles, DeviceLinkFiles) {
  // What nvcc --keep -arch=sm_90 vadd.cu -o vadd adds for the device link
  // (see fixtures/dryrun_link_keep_sm90.txt).
  struct Case {
    const char* name;
    FileKind kind;
    StageKind made_by;
  };
  for (const Case& c : {Case{"vadd_dlink.sm_90.cubin", FileKind::Cubin, StageKind::Nvlink},
                        Case{"vadd_dlink.reg.c", FileKind::LinkRegistration, StageKind::Nvlink},
                        Case{"vadd_dlink.fatbin", FileKind::Fatbin, StageKind::Fatbinary},
                        Case{"vadd_dlink.fatbin.c", FileKind::FatbinC, StageKind::Fatbinary},
                        Case{"vadd_dlink.o", FileKind::Object, StageKind::HostCompile}}) {
    KeptFile got = classify_kept_file(c.name);
    EXPECT_EQ(to_string(got.kind), to_string(c.kind)) << c.name << ": you said " << describe(got);
    EXPECT_EQ(to_string(got.made_by), to_string(c.made_by)) << c.name << ": you said " << describe(got);
    EXPECT_TRUE(got.device_link) << c.name;
  }
  EXPECT_EQ(classify_kept_file("vadd_dlink.sm_90.cubin").real_arch, std::optional<std::string>("sm_90"));
}

TEST(KeepFiles, TemporaryAndDottedNames) {
  KeptFile t = classify_kept_file("/tmp/tmpxft_000010ce_00000000-6_vadd.cudafe1.cpp");
  EXPECT_EQ(t.name, "tmpxft_000010ce_00000000-6_vadd.cudafe1.cpp") << "only the part after the last / is the name";
  EXPECT_EQ(t.kind, FileKind::HostSource);
  EXPECT_EQ(t.made_by, StageKind::Cudafe);

  KeptFile s = classify_kept_file("tmpxft_000010ce_00000000-6_vadd.cudafe1.stub.c");
  EXPECT_EQ(s.kind, FileKind::Stub);
  EXPECT_EQ(s.made_by, StageKind::Cicc);

  KeptFile d = classify_kept_file("my.kernel.compute_90.cpp1.ii");
  EXPECT_EQ(d.kind, FileKind::DevicePreprocessed);
  EXPECT_EQ(d.made_by, StageKind::DevicePreprocess);
  EXPECT_EQ(d.virtual_arch, std::optional<std::string>("compute_90"));

  KeptFile h = classify_kept_file("my.kernel.cpp4.ii");
  EXPECT_EQ(h.kind, FileKind::HostPreprocessed);
  EXPECT_EQ(h.made_by, StageKind::HostPreprocess);

  for (const char* unknown : {"vadd.cu", "notes.txt", "vadd", ".ptx.bak"}) {
    KeptFile u = classify_kept_file(unknown);
    EXPECT_EQ(u.kind, FileKind::Unknown) << unknown << ": you said " << describe(u);
    EXPECT_EQ(u.made_by, StageKind::Unknown) << unknown;
  }
}

}  // namespace
