// The test support, the records and GoogleTest are linked whole into every
// test program (cmake/LaunchlabLab.cmake): a learner's second definition of
// one of their names fails the link, whatever the symbol check before it
// (autograder/support/symbol_guard.cpp) let through. Linked here as the
// exercise program links them, with and without such a definition.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fixture_course.h"

namespace {

using namespace launchlab::selftest;

RunOutcome run(const std::vector<std::string>& argv) {
  RunLimits limits;
  limits.timeout = std::chrono::minutes(3);
  return run_limited(argv, {}, {}, limits);
}

/// The symbol check of one learner's object against the course's parts.
RunOutcome check_learner(const std::vector<std::string>& course, const std::string& learner_object) {
  std::vector<std::string> argv = course;
  argv.insert(argv.end(), {"--learner", learner_object});
  return run(argv);
}

/// Links a program of `objects` and the course's parts, whole, as an
/// exercise program is linked.
RunOutcome link_with_the_course(const std::vector<std::string>& objects, const fs::path& program) {
  std::vector<std::string> argv = {LAUNCHLAB_CXX, "-o", program.string()};
  argv.insert(argv.end(), objects.begin(), objects.end());
  argv.insert(argv.end(), {"-Wl,--push-state,--whole-archive", LAUNCHLAB_SUPPORT_ARCHIVE, LAUNCHLAB_RECORDS_ARCHIVE,
                           LAUNCHLAB_GTEST_ARCHIVE, "-Wl,--pop-state", LAUNCHLAB_CUDART_ARCHIVE, "-ldl", "-lrt",
                           "-lpthread"});
  return run(argv);
}

TEST(CourseCode, ASecondDefinitionOfARecordersNameFailsTheLink) {
  const fs::path dir = fresh_temp_dir("course-code");
  const fs::path attack = dir / "alpha.cpp.o";
  const fs::path source = kSelftest / "submissions" / "replaced_recorder" / "labs" / "00_alpha" / "alpha.cpp";
  RunOutcome compiled = run({LAUNCHLAB_CXX, "-std=c++20", "-c", source.string(),
                             "-I", (kFixture / "labs" / "00_alpha").string(), "-o", attack.string()});
  ASSERT_TRUE(compiled.exited_cleanly()) << compiled.output;

  // The course's parts alone link: what fails below fails for the attack.
  RunOutcome alone = link_with_the_course({}, dir / "alone");
  EXPECT_TRUE(alone.exited_cleanly()) << alone.output;
  RunOutcome attacked = link_with_the_course({attack.string()}, dir / "attacked");
  EXPECT_FALSE(attacked.exited_cleanly());
  EXPECT_NE(attacked.output.find("multiple definition of `launchlab::testing::Record::~Record()'"), std::string::npos)
      << attacked.output;
  fs::remove_all(dir);
}

TEST(CourseCode, TheSymbolCheckNamesTheFileAndTheNameAndLetsTemplatesThrough) {
  const fs::path dir = fresh_temp_dir("symbol-check");
  const fs::path attack = dir / "alpha.cpp.o";
  const fs::path honest = dir / "honest.cpp.o";
  for (const auto& [name, object] : {std::pair{"replaced_recorder", attack}, std::pair{"own_vector_instantiation", honest}}) {
    const fs::path source = kSelftest / "submissions" / name / "labs" / "00_alpha" / "alpha.cpp";
    RunOutcome compiled = run({LAUNCHLAB_CXX, "-std=c++20", "-c", source.string(),
                               "-I", (kFixture / "labs" / "00_alpha").string(), "-o", object.string()});
    ASSERT_TRUE(compiled.exited_cleanly()) << compiled.output;
  }
  const std::vector<std::string> course = {LAUNCHLAB_SYMBOL_GUARD, "--support", LAUNCHLAB_SUPPORT_ARCHIVE,
                                           "--support", LAUNCHLAB_RECORDS_ARCHIVE, "--googletest",
                                           LAUNCHLAB_GTEST_ARCHIVE};
  RunOutcome checked = check_learner(course, attack.string());
  EXPECT_EQ(checked.exit_code, 1) << checked.output;
  EXPECT_NE(checked.output.find("error: alpha.cpp defines launchlab::testing::Record::~Record(), which belongs to the "
                                "course's test support: rename it"),
            std::string::npos)
      << checked.output;

  RunOutcome passed = check_learner(course, honest.string());
  EXPECT_EQ(passed.exit_code, 0) << passed.output;
  EXPECT_EQ(passed.output, "");

  // A file it cannot read as an object is a clear error, never a pass.
  write_text(dir / "not_an_object.o", "text, not ELF");
  RunOutcome bad = check_learner(course, (dir / "not_an_object.o").string());
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("not_an_object.o: not an ELF object"), std::string::npos) << bad.output;
  fs::remove_all(dir);
}

// A lab's tests may hold course code of their own (lab 10's reference
// launches): a learner's file that uses it, to hand back the course's answer
// as its own, is refused by name; one that uses only GoogleTest's names, or
// its own, is not.
TEST(CourseCode, TheSymbolCheckRefusesALearnersUseOfTheTestsOwnCode) {
  const fs::path dir = fresh_temp_dir("symbol-use");
  const auto compile = [&](const std::string& name, const std::string& text) {
    write_text(dir / (name + ".cpp"), text);
    const fs::path object = dir / (name + ".cpp.o");
    RunOutcome compiled = run({LAUNCHLAB_CXX, "-std=c++20", "-c", (dir / (name + ".cpp")).string(), "-o",
                               object.string()});
    EXPECT_TRUE(compiled.exited_cleanly()) << compiled.output;
    return object.string();
  };
  const std::string tests = compile("reference", "namespace course::reference { double latency_us(int n) { return n; } }\n");
  const std::string borrowing = compile("launches",
                                        "namespace course::reference { double latency_us(int); }\n"
                                        "double measure_latency() { return course::reference::latency_us(500); }\n");
  const std::string own = compile("own",
                                  "namespace testing { struct UnitTest { static UnitTest* GetInstance(); }; }\n"
                                  "namespace course::reference { double latency_us(int n) { return n; } }\n"
                                  "double measure_latency() { return course::reference::latency_us(500); }\n"
                                  "void* running() { return ::testing::UnitTest::GetInstance(); }\n");
  write_text(dir / "tests.objects", tests + "\n");
  const std::vector<std::string> course = {LAUNCHLAB_SYMBOL_GUARD, "--support", LAUNCHLAB_SUPPORT_ARCHIVE,
                                           "--googletest", LAUNCHLAB_GTEST_ARCHIVE,
                                           "--tests-list", (dir / "tests.objects").string()};

  RunOutcome checked = check_learner(course, borrowing);
  EXPECT_EQ(checked.exit_code, 1) << checked.output;
  EXPECT_NE(checked.output.find("error: launches.cpp uses course::reference::latency_us(int), which belongs to the "
                                "lab's tests: the lab's code must compute its answers itself"),
            std::string::npos)
      << checked.output;

  // Its own function of the same name is a second definition, refused as
  // such; GoogleTest's names alone are the learner's to use.
  RunOutcome defined = check_learner(course, own);
  EXPECT_EQ(defined.exit_code, 1) << defined.output;
  EXPECT_NE(defined.output.find("own.cpp defines course::reference::latency_us(int)"), std::string::npos)
      << defined.output;
  EXPECT_EQ(defined.output.find("uses testing::UnitTest"), std::string::npos) << defined.output;
  fs::remove_all(dir);
}

}  // namespace
