// The course model: what it reads from lab.toml and tests.toml, how it says
// what is wrong (the file, the line, the rule), and the chapter tables it
// makes and checks.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "launchlab/course/model.h"
#include "launchlab/course/tables.h"

namespace fs = std::filesystem;
using namespace launchlab::course;

namespace {

const fs::path kSource = LAUNCHLAB_SOURCE_DIR;

const char* const kGoodLab = R"(# a lab
title = "The journey"   # a comment after a value
summary = "grid arithmetic, the vadd program"
student_files = [
  "grid.cpp",
  'vadd.cu',
]
timeout_seconds = 90
hints = ["first", """second,
on two lines"""]

[[tests]]
name = "Grid.Blocks"
points = 2

[[tests]]
name = "Vadd.Gpu"
points = 1_0
needs = ["gpu", "cuobjdump"]
)";

/// A course folder of its own for each test, removed afterwards.
class Scratch : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device entropy;
    root_ = fs::temp_directory_path() / ("launchlab-model-" + std::to_string(getpid()) + "-" + std::to_string(entropy()));
    fs::create_directories(root_ / "labs");
  }
  void TearDown() override { fs::remove_all(root_); }

  /// Writes labs/<slug>/lab.toml and returns the lab's folder.
  fs::path lab(const std::string& slug, const std::string& toml) {
    fs::path dir = root_ / "labs" / slug;
    fs::create_directories(dir);
    std::ofstream(dir / "lab.toml") << toml;
    return dir;
  }

  /// The message load_lab gives for this lab.toml (fails the test when it loads).
  std::string refusal(const std::string& toml, const std::string& slug = "04_some_lab") {
    fs::path dir = lab(slug, toml);
    try {
      load_lab(dir);
    } catch (const CourseError& error) {
      return error.what();
    }
    ADD_FAILURE() << "load_lab accepted:\n" << toml;
    return "";
  }

  fs::path root_;
};

/// kGoodLab with the line that starts with key replaced, or removed (with
/// the rest of its array when the line opens one).
std::string good_lab_with(const std::string& key, const std::string& replacement) {
  std::istringstream in(kGoodLab);
  std::string out, line;
  bool replaced = false;
  while (std::getline(in, line)) {
    if (!replaced && line.rfind(key, 0) == 0) {
      replaced = true;
      if (!replacement.empty()) out += replacement + "\n";
      if (line.ends_with("[")) {
        while (std::getline(in, line) && line != "]") {
        }
      }
      continue;
    }
    out += line + "\n";
  }
  EXPECT_TRUE(replaced) << "kGoodLab has no line starting with " << key;
  return out;
}

}  // namespace

TEST(Slug, IsTwoDigitsAndLowercaseWordsJoinedByUnderscores) {
  for (const char* good : {"00_vadd_journey", "04_param_buffer", "12_real_launch", "07_qmd", "99_x2"}) {
    EXPECT_TRUE(is_slug(good)) << good;
  }
  for (const char* bad : {"4_param_buffer", "04-param-buffer", "04_Param", "04_", "04__double", "04_trailing_",
                          "004_three_digits", "04_with space", "ab_letters", ""}) {
    EXPECT_FALSE(is_slug(bad)) << bad;
  }
}

TEST_F(Scratch, ReadsEveryKeyOfAGoodLab) {
  Lab lab = load_lab(this->lab("04_param_buffer", kGoodLab));
  EXPECT_EQ(lab.slug, "04_param_buffer");
  EXPECT_EQ(lab.chapter, 4);
  EXPECT_EQ(lab.number(), "04");
  EXPECT_EQ(lab.title, "The journey");
  EXPECT_EQ(lab.summary, "grid arithmetic, the vadd program");
  EXPECT_EQ(lab.student_files, (std::vector<std::string>{"grid.cpp", "vadd.cu"}));
  EXPECT_EQ(lab.hints, (std::vector<std::string>{"first", "second,\non two lines"}));
  EXPECT_EQ(lab.timeout_seconds, 90);
  EXPECT_EQ(lab.test_timeout_seconds, 60) << "the default";
  ASSERT_EQ(lab.tests.size(), 2u);
  EXPECT_EQ(lab.tests[0].name, "Grid.Blocks");
  EXPECT_EQ(lab.tests[1].points, 10);
  EXPECT_EQ(lab.tests[1].needs, (std::vector<std::string>{"gpu", "cuobjdump"}));
  EXPECT_EQ(lab.max_points(), 12);
  EXPECT_EQ(lab.gpu_need(), GpuNeed::partly);
}

TEST_F(Scratch, AMissingKeyIsNamed) {
  std::string top = refusal(good_lab_with("title", ""), "04_no_title");
  EXPECT_NE(top.find("labs/04_no_title/lab.toml: missing key 'title'"), std::string::npos) << top;
  // A key missing from a [[tests]] table: the line is the table's header.
  std::string in_table = refusal(good_lab_with("points = 2", ""));
  EXPECT_NE(in_table.find("lab.toml:12: missing key 'points' in the [[tests]] table of Grid.Blocks"), std::string::npos)
      << in_table;
}

TEST_F(Scratch, AWrongTypeNamesTheLineAndTheType) {
  std::string points = refusal(good_lab_with("points = 2", "points = \"2\""));
  EXPECT_NE(points.find("lab.toml:14: the points of Grid.Blocks must be a positive integer, not a string"), std::string::npos)
      << points;
  std::string files = refusal(good_lab_with("student_files", "student_files = \"grid.cpp\""));
  EXPECT_NE(files.find("lab.toml:4: student_files must be an array of strings, not a string"), std::string::npos) << files;
  std::string title = refusal(good_lab_with("title", "title = 3"));
  EXPECT_NE(title.find("lab.toml:2: title must be a string, not an integer"), std::string::npos) << title;
  std::string zero = refusal(good_lab_with("timeout_seconds", "timeout_seconds = 0"));
  EXPECT_NE(zero.find("lab.toml:8: timeout_seconds must be a positive integer"), std::string::npos) << zero;
}

TEST_F(Scratch, ATestListedTwiceNamesBothLines) {
  std::string twice = refusal(std::string(kGoodLab) + "\n[[tests]]\nname = \"Grid.Blocks\"\npoints = 1\n");
  EXPECT_NE(twice.find("lab.toml:22: test Grid.Blocks is listed twice (first on line 13)"), std::string::npos) << twice;
}

TEST_F(Scratch, AFolderThatIsNotASlugIsRefused) {
  std::string bad = refusal(kGoodLab, "4_param_buffer");
  EXPECT_NE(bad.find("labs/4_param_buffer/lab.toml: the folder's name '4_param_buffer' is not a slug"), std::string::npos)
      << bad;
  // The course names it too, and still reads the labs that are fine.
  lab("05_fine", kGoodLab);
  Course course = read_course(root_);
  ASSERT_EQ(course.labs.size(), 1u);
  EXPECT_EQ(course.labs[0].slug, "05_fine");
  ASSERT_EQ(course.problems.size(), 1u);
  EXPECT_NE(course.problems[0].find("is not a slug"), std::string::npos) << course.problems[0];
  EXPECT_THROW(load_course(root_), CourseError);
}

TEST_F(Scratch, UnknownKeysAndTheOldChapterKeyAreRefused) {
  std::string typo = refusal(good_lab_with("timeout_seconds", "timout_seconds = 90"));
  EXPECT_NE(typo.find("lab.toml:8: unknown key 'timout_seconds' at the top of lab.toml"), std::string::npos) << typo;
  std::string chapter = refusal(good_lab_with("summary", "chapter = 4"));
  EXPECT_NE(chapter.find("lab.toml:3: 'chapter' is no longer a key: the slug gives the chapter's number"), std::string::npos)
      << chapter;
  std::string in_test = refusal(good_lab_with("points = 2", "points = 2\nneeds_gpu = true"));
  EXPECT_NE(in_test.find("lab.toml:15: unknown key 'needs_gpu' in a [[tests]] table"), std::string::npos) << in_test;
}

TEST_F(Scratch, ALeaderboardFigureNamesARecordOfATestThatMeasures) {
  lab("00_board", good_lab_with("needs = ", "needs = [\"gpu\"]\nmeasures = true\n"
                                            "leaderboard = { name = \"vadd, yours / reference\", record = \"pair.first\", order = \"desc\" }"));
  const std::vector<Lab> labs = load_course(root_);
  ASSERT_TRUE(labs[0].tests[1].leaderboard.has_value());
  EXPECT_EQ(labs[0].tests[1].leaderboard->name, "vadd, yours / reference");
  EXPECT_EQ(labs[0].tests[1].leaderboard->record, "pair.first");
  EXPECT_FALSE(labs[0].tests[1].leaderboard->ascending);
  EXPECT_FALSE(labs[0].tests[0].leaderboard.has_value());

  const std::string unmeasured = refusal(good_lab_with("needs = ", "needs = [\"gpu\"]\nleaderboard = { name = \"a\", record = \"b\" }"));
  EXPECT_NE(unmeasured.find("test Vadd.Gpu has a leaderboard but does not measure"), std::string::npos) << unmeasured;
  const std::string order = refusal(good_lab_with(
      "needs = ", "needs = [\"gpu\"]\nmeasures = true\nleaderboard = { name = \"a\", record = \"b\", order = \"up\" }"));
  EXPECT_NE(order.find("the order of the leaderboard of Vadd.Gpu is \"asc\" (lower is better) or \"desc\", not \"up\""),
            std::string::npos) << order;
  const std::string typo = refusal(good_lab_with(
      "needs = ", "needs = [\"gpu\"]\nmeasures = true\nleaderboard = { name = \"a\", recrod = \"b\" }"));
  EXPECT_NE(typo.find("unknown key 'recrod' in the leaderboard of Vadd.Gpu"), std::string::npos) << typo;
}

TEST_F(Scratch, ATestThatTakesTheWholeGpuSaysItRunsAloneWithoutMeasuring) {
  lab("00_alone", good_lab_with("needs = ", "needs = [\"gpu\"]\nalone = true"));
  const std::vector<Lab> labs = load_course(root_);
  EXPECT_EQ(labs[0].tests[1].alone, std::optional<bool>(true));
  EXPECT_FALSE(labs[0].tests[1].measures);
  EXPECT_TRUE(labs[0].tests[1].runs_alone());
  EXPECT_FALSE(labs[0].tests[1].measures_alone());
  EXPECT_FALSE(labs[0].tests[0].runs_alone());

  const std::string both = refusal(good_lab_with("needs = ", "needs = [\"gpu\"]\nmeasures = true\nalone = true"));
  EXPECT_NE(both.find("test Vadd.Gpu measures, so it runs alone already: drop alone"), std::string::npos) << both;
  const std::string word = refusal(good_lab_with("needs = ", "needs = [\"gpu\"]\nalone = \"yes\""));
  EXPECT_NE(word.find("alone of Vadd.Gpu must be true or false"), std::string::npos) << word;
  const std::string default_for_the_rest = refusal(good_lab_with("needs = ", "needs = [\"gpu\"]\nalone = false"));
  EXPECT_NE(default_for_the_rest.find("test Vadd.Gpu measures nothing, so it shares the GPU already: drop alone"),
            std::string::npos) << default_for_the_rest;
}

// A test that measures but whose checks hold beside other work says
// alone = false: it shares the GPU and the cores, and its reference still
// runs at every grading (it measures). A leaderboard's figure is measured alone.
TEST_F(Scratch, ATestThatMeasuresMayShareTheGpuUnlessItHasALeaderboard) {
  lab("00_shares", good_lab_with("needs = ", "needs = [\"gpu\"]\nmeasures = true\nalone = false"));
  const std::vector<Lab> labs = load_course(root_);
  EXPECT_TRUE(labs[0].tests[1].measures);
  EXPECT_FALSE(labs[0].tests[1].runs_alone());
  EXPECT_FALSE(labs[0].tests[1].measures_alone());

  const std::string ranked = refusal(good_lab_with(
      "needs = ", "needs = [\"gpu\"]\nmeasures = true\nalone = false\nleaderboard = { name = \"a\", record = \"b\" }"));
  EXPECT_NE(ranked.find("test Vadd.Gpu has a leaderboard, so it measures alone: drop alone = false"), std::string::npos)
      << ranked;
}

TEST_F(Scratch, TheOtherRulesOfALabSayWhereTheyAreBroken) {
  struct Case {
    std::string key, replacement, message;
  };
  for (const Case& c : {
           Case{"needs = ", "needs = [\"gpu\", \"tpu\"]", "lab.toml:19: test Vadd.Gpu: unknown need 'tpu'"},
           Case{"name = \"Grid.Blocks\"", "name = \"GridBlocks\"", "lab.toml:13: 'GridBlocks' is not a GoogleTest name"},
           Case{"student_files", "student_files = [\"../grid.cpp\"]", "lab.toml:4: student file '../grid.cpp' is not a plain file name"},
           Case{"student_files", "student_files = [\"a.cpp\", \"a.cpp\"]", "lab.toml:4: student file 'a.cpp' is listed twice"},
           Case{"summary", "summary = \"\"\"two\nlines\"\"\"", "lab.toml:3: summary must be one line"},
           Case{"title", "title = \"\"", "lab.toml:2: title is empty"},
           Case{"[[tests]]", "[tests]", "lab.toml:16: "},  // toml++'s own words, at the second [[tests]]
           Case{"timeout_seconds", "timeout_seconds = 90 90", "lab.toml:8: "},  // the same
       }) {
    std::string message = refusal(good_lab_with(c.key, c.replacement));
    EXPECT_NE(message.find(c.message), std::string::npos) << "expected \"" << c.message << "\" in: " << message;
  }
}

TEST_F(Scratch, TheLabsSanitizeToolsGoToItsGpuTestsUnlessATestNamesItsOwn) {
  const std::string toml = good_lab_with("timeout_seconds", "sanitize = [\"memcheck\", \"racecheck\"]\nsanitize_points = 2") +
                           "\n[[tests]]\nname = \"Vadd.Timing\"\npoints = 3\nneeds = [\"gpu\"]\nsanitize = []\n"
                           "\n[[tests]]\nname = \"Vadd.Shared\"\npoints = 3\nneeds = [\"gpu\"]\nsanitize = [\"racecheck\"]\n";
  Lab lab = load_lab(this->lab("00_vadd_journey", toml));
  ASSERT_EQ(lab.tests.size(), 4u);
  EXPECT_TRUE(lab.tests[0].sanitize.empty()) << "a CPU test has nothing for compute-sanitizer";
  EXPECT_EQ(lab.tests[1].sanitize, (std::vector<std::string>{"memcheck", "racecheck"}));
  EXPECT_TRUE(lab.tests[2].sanitize.empty());
  EXPECT_EQ(lab.tests[3].sanitize, (std::vector<std::string>{"racecheck"}));
  std::vector<std::string> names;
  for (const auto& check : lab.sanitizer_checks()) names.push_back(check.name() + " " + std::to_string(check.points));
  EXPECT_EQ(names, (std::vector<std::string>{"Vadd.Gpu [memcheck] 2", "Vadd.Gpu [racecheck] 2", "Vadd.Shared [racecheck] 2"}));
  EXPECT_EQ(lab.max_points(), 2 + 10 + 3 + 3 + 3 * 2);

  // A private GPU test takes the lab's tools too.
  fs::path overlay = root_ / "tests.toml";
  std::ofstream(overlay) << "[[tests]]\nname = \"Private.Gpu\"\npoints = 6\nneeds = [\"gpu\"]\n";
  EXPECT_EQ(read_private_tests(overlay, lab.tests, lab.sanitize)[0].sanitize, lab.sanitize);
}

TEST_F(Scratch, ASanitizeThatCannotWorkIsRefused) {
  struct Case {
    std::string key, replacement, message;
  };
  for (const Case& c : {
           Case{"timeout_seconds", "sanitize = [\"memcheck\", \"valgrind\"]",
                "lab.toml:8: sanitize: unknown compute-sanitizer tool 'valgrind'"},
           Case{"timeout_seconds", "sanitize = [\"memcheck\", \"memcheck\"]", "lab.toml:8: sanitize lists 'memcheck' twice"},
           Case{"timeout_seconds", "sanitize_points = 2", "lab.toml:8: sanitize_points is set but the lab names no sanitize tools"},
           Case{"points = 2", "points = 2\nsanitize = [\"memcheck\"]",
                "lab.toml:15: test Grid.Blocks lists sanitize but does not need a GPU"},
       }) {
    std::string message = refusal(good_lab_with(c.key, c.replacement));
    EXPECT_NE(message.find(c.message), std::string::npos) << "expected \"" << c.message << "\" in: " << message;
  }
  const std::string cpu_only = "title = \"t\"\nstudent_files = [\"a.cpp\"]\nhints = []\nsanitize = [\"memcheck\"]\n"
                               "[[tests]]\nname = \"A.B\"\npoints = 1\n";
  std::string message = refusal(cpu_only);
  EXPECT_NE(message.find("lab.toml:4: sanitize names tools, but no test of this lab needs a GPU"), std::string::npos)
      << message;
}

TEST_F(Scratch, PrivateTestsJoinUnderNewNamesOnly) {
  Lab lab = load_lab(this->lab("04_param_buffer", kGoodLab));
  fs::path overlay = root_ / "tests.toml";
  std::ofstream(overlay) << "[[tests]]\nname = \"Private.Seeded\"\npoints = 6\n";
  auto added = read_private_tests(overlay, lab.tests);
  ASSERT_EQ(added.size(), 1u);
  EXPECT_EQ(added[0].name, "Private.Seeded");
  EXPECT_EQ(added[0].points, 6);

  std::ofstream(overlay) << "[[tests]]\nname = \"Grid.Blocks\"\npoints = 6\n";
  try {
    read_private_tests(overlay, lab.tests);
    ADD_FAILURE() << "a private test took a public test's name";
  } catch (const CourseError& error) {
    EXPECT_NE(std::string(error.what()).find("tests.toml:2: test Grid.Blocks is already one of the lab's tests"), std::string::npos)
        << error.what();
  }
  std::ofstream(overlay) << "title = \"not here\"\n[[tests]]\nname = \"Private.Seeded\"\npoints = 6\n";
  EXPECT_THROW(read_private_tests(overlay, lab.tests), CourseError);
}

// A test names the hint that helps with it by its number in hints, from 1,
// as `launchlab hint` counts them.
TEST_F(Scratch, ATestNamesItsHintByItsNumber) {
  Lab lab = load_lab(this->lab("04_param_buffer", good_lab_with("points = 2", "points = 2\nhint = 2")));
  ASSERT_EQ(lab.tests.size(), 2u);
  EXPECT_EQ(lab.tests[0].hint, 2);
  EXPECT_EQ(lab.hint_for(lab.tests[0]), "second,\non two lines");
  EXPECT_EQ(lab.tests[1].hint, 0) << "a test may name no hint (launchlab lint says so)";
  EXPECT_EQ(lab.hint_for(lab.tests[1]), std::nullopt);

  struct Case {
    std::string hint, message;
  };
  for (const Case& c : {
           Case{"hint = 3", "lab.toml:15: the hint of Grid.Blocks is 3, but the lab has hints 1 to 2"},
           Case{"hint = 0", "lab.toml:15: the hint of Grid.Blocks is 0, but the lab has hints 1 to 2"},
           Case{"hint = -1", "lab.toml:15: the hint of Grid.Blocks is -1"},
           Case{"hint = \"2\"", "lab.toml:15: the hint of Grid.Blocks must be a hint's number, not a string"},
       }) {
    std::string message = refusal(good_lab_with("points = 2", "points = 2\n" + c.hint));
    EXPECT_NE(message.find(c.message), std::string::npos) << "expected \"" << c.message << "\" in: " << message;
  }
  // A private tests.toml has no hints to name.
  fs::path overlay = root_ / "tests.toml";
  std::ofstream(overlay) << "[[tests]]\nname = \"Private.Seeded\"\npoints = 6\nhint = 1\n";
  try {
    read_private_tests(overlay, lab.tests);
    ADD_FAILURE() << "a private test named a hint";
  } catch (const CourseError& error) {
    EXPECT_NE(std::string(error.what()).find("tests.toml:4: unknown key 'hint' in a private [[tests]] table"),
              std::string::npos)
        << error.what();
  }
}

TEST_F(Scratch, AFolderNamedLikeALabNeedsALabToml) {
  lab("05_fine", kGoodLab);
  fs::create_directories(root_ / "labs" / "06_forgotten");
  fs::create_directories(root_ / "labs" / "common");  // not a lab, and not named like one
  Course course = read_course(root_);
  EXPECT_EQ(course.labs.size(), 1u);
  ASSERT_EQ(course.problems.size(), 1u);
  EXPECT_NE(course.problems[0].find("06_forgotten: no lab.toml"), std::string::npos) << course.problems[0];
}

TEST(Course, EveryLabOfTheCourseReadsCleanly) {
  Course course = read_course(kSource);
  for (const auto& problem : course.problems) ADD_FAILURE() << problem;
  ASSERT_GE(course.labs.size(), 12u);
  for (std::size_t i = 0; i < course.labs.size(); ++i) {
    EXPECT_EQ(course.labs[i].chapter, static_cast<int>(i)) << course.labs[i].slug << ": the labs are numbered without gaps";
    EXPECT_FALSE(course.labs[i].summary.empty()) << course.labs[i].slug;
  }
}

// After a failure the learner is shown the hint of the first failing test.
TEST(Course, EveryTestOfTheCourseNamesAHintAndEveryHintIsNamed) {
  for (const auto& lab : load_course(kSource)) {
    for (const auto& problem : hint_problems(lab)) ADD_FAILURE() << lab.slug << ": " << problem;
  }
}

TEST_F(Scratch, TestsWithoutAHintAndHintsNoTestNamesAreProblems) {
  Lab lab = load_lab(this->lab("04_param_buffer", good_lab_with("points = 2", "points = 2\nhint = 1")));
  const auto problems = hint_problems(lab);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0], "the test Vadd.Gpu names no hint: add hint = N (1 to 2) to its [[tests]] table");
  EXPECT_NE(problems[1].find("hint 2 is named by no test"), std::string::npos) << problems[1];
}

// ------------------------------------------------------------ translations

const char* const kTranslations = R"(
[translations.pt_BR]
title = "A jornada"
summary = "aritmética da grade"
hints = ["primeira", "segunda"]

[translations.zh_CN]
title = "旅程"
hints = ["第一"]
)";

TEST_F(Scratch, TranslationsAreReadByLanguageAndFallBackToEnglishPartByPart) {
  Lab lab = load_lab(this->lab("04_param_buffer", std::string(kGoodLab) + kTranslations));
  ASSERT_EQ(lab.translations.size(), 2u);
  const LabText portuguese = lab.text_in("pt_BR");
  EXPECT_EQ(portuguese.title, "A jornada");
  EXPECT_EQ(portuguese.summary, "aritmética da grade");
  EXPECT_EQ(portuguese.hints, (std::vector<std::string>{"primeira", "segunda"}));
  // zh_CN has no summary and one hint of two: those stay English, so that
  // hint N is always the lab's hint N.
  const LabText chinese = lab.text_in("zh_CN");
  EXPECT_EQ(chinese.title, "旅程");
  EXPECT_EQ(chinese.summary, lab.summary);
  EXPECT_EQ(chinese.hints, lab.hints);
  const LabText english = lab.text_in("");
  EXPECT_EQ(english.title, "The journey");
  EXPECT_EQ(lab.text_in("fr").hints, lab.hints);
}

TEST_F(Scratch, ABadTranslationTableIsNamedWithItsLine) {
  const std::vector<std::pair<std::string, std::string>> refused = {
      {std::string(kGoodLab) + "\n[translations.pt_BR]\ntitle = 3\n",
       "lab.toml:22: the title of [translations.pt_BR] must be a string, not an integer"},
      {std::string(kGoodLab) + "\n[translations.pt_BR]\nhint = [\"um\"]\n",
       "unknown key 'hint' in [translations.pt_BR] (the keys are title, summary, hints)"},
      {std::string(kGoodLab) + "\n[translations.Portuguese]\ntitle = \"A jornada\"\n",
       "[translations.Portuguese]: 'Portuguese' is not a language as docs/locale names them"},
      {std::string(kGoodLab) + "\n[translations.zh_CN]\nsummary = \"\"\"two\nlines\"\"\"\n",
       "the summary of [translations.zh_CN] must be one line"},
      {"translations = \"pt_BR\"\n" + std::string(kGoodLab),
       "translations must be [translations.LANGUAGE] tables, not a string"},
  };
  for (const auto& [toml, said] : refused) EXPECT_NE(refusal(toml).find(said), std::string::npos) << said;
}

TEST(Translations, TheLocaleNamesTheCoursesLanguage) {
  const std::vector<std::pair<std::string, std::string>> languages = {
      {"pt_BR.UTF-8", "pt_BR"}, {"pt_PT", "pt_BR"}, {"pt", "pt_BR"}, {"zh_CN.UTF-8", "zh_CN"}, {"zh_TW", "zh_CN"},
      {"en_US.UTF-8", ""},      {"C", ""},          {"fr_FR", ""},  {"", ""}};
  for (const auto& [locale, language] : languages) EXPECT_EQ(course_language(locale), language) << locale;
}

// Every lab speaks each language of docs/locale whole: its title, summary and
// one translation for each hint, none of them left in English.
TEST(Course, EveryLabIsTranslatedIntoEachLanguageOfTheSite) {
  const std::vector<std::string> languages = course_languages(kSource);
  EXPECT_EQ(languages, (std::vector<std::string>{"pt_BR", "zh_CN"}));
  for (const auto& lab : load_course(kSource)) {
    for (const auto& problem : translation_problems(lab, languages)) ADD_FAILURE() << lab.slug << ": " << problem;
    for (const auto& language : languages) {
      EXPECT_NE(lab.text_in(language).hints, lab.hints) << lab.slug << ": the " << language << " hints are the English";
    }
  }
}

TEST_F(Scratch, WhatATranslationLacksIsAProblemInEachLanguageOfTheSite) {
  Lab lab = load_lab(this->lab("04_param_buffer", std::string(kGoodLab) + kTranslations));
  EXPECT_TRUE(translation_problems(lab, {}).empty()) << "a course without docs/locale asks for no language";
  EXPECT_TRUE(translation_problems(lab, {"pt_BR"}).empty());
  EXPECT_EQ(translation_problems(lab, {"pt_BR", "zh_CN", "ja_JP"}),
            (std::vector<std::string>{
                "[translations.zh_CN] has no summary",
                "[translations.zh_CN] has 1 hints, but the lab has 2: each hint needs its translation, in the same order",
                "lab.toml has no [translations.ja_JP]: the title, summary and hints in ja_JP, a language of the course "
                "(docs/locale/ja_JP)"}));
}

TEST(Course, FindsALabByNumberOrSlug) {
  auto labs = load_course(kSource);
  EXPECT_EQ(find_lab(labs, "4")->slug, "04_param_buffer");
  EXPECT_EQ(find_lab(labs, "04")->slug, "04_param_buffer");
  EXPECT_EQ(find_lab(labs, "04_param_buffer")->slug, "04_param_buffer");
  for (const char* nothing : {"", "99", "004", "4x", "param_buffer", "-4"}) EXPECT_FALSE(find_lab(labs, nothing)) << nothing;
}

TEST(Course, FactsForTheBuildAreJsonWithEveryTest) {
  auto labs = load_course(kSource);
  std::string json = facts_json(labs);
  EXPECT_EQ(json.front(), '{');
  EXPECT_NE(json.find("\"00_vadd_journey\""), std::string::npos);
  EXPECT_NE(json.find("\"GridArithmetic.BlocksNeededIsExactForWholeBlocks\""), std::string::npos);
  EXPECT_NE(json.find("\"gpu\" : \"partly\""), std::string::npos) << json.substr(0, 400);
  // Which tests measure time: the build runs them alone (cmake/LaunchlabLab.cmake).
  const auto lab09 = nlohmann::json::parse(json)["labs"]["09_completion"]["tests"];
  std::map<std::string, bool> measures;
  for (const auto& test : lab09) measures[test["name"]] = test["measures"];
  EXPECT_TRUE(measures.at("WaitLatency.BlockingSyncWakesLaterThanSpinning"));
  EXPECT_FALSE(measures.at("Median.OfAnOddCountIsTheMiddleSample"));
}

// ---- The chapter tables ---------------------------------------------------

namespace {

Lab table_lab(const std::string& slug, const std::string& title, int gpu_tests, int cpu_tests) {
  Lab lab;
  lab.slug = slug;
  lab.title = title;
  lab.summary = "what " + slug + " builds";
  for (int i = 0; i < gpu_tests + cpu_tests; ++i) {
    LabTest test{"Suite.Test" + std::to_string(i), 1, {}};
    if (i < gpu_tests) test.needs = {"gpu"};
    lab.tests.push_back(test);
  }
  return lab;
}

const std::vector<Lab> kLabs = {table_lab("00_first", "The first", 0, 3), table_lab("01_second", "The second", 2, 2),
                                table_lab("02_third", "A | pipe", 4, 0)};

std::string readme_with(const std::string& table) { return "# A course\n\nSome words.\n\n" + table + "\nMore words.\n"; }

}  // namespace

TEST(ChapterTable, GpuNeedComesFromTheTestsNeeds) {
  EXPECT_EQ(kLabs[0].gpu_need(), GpuNeed::none);
  EXPECT_EQ(kLabs[1].gpu_need(), GpuNeed::partly);
  EXPECT_EQ(kLabs[2].gpu_need(), GpuNeed::all);
  EXPECT_EQ(to_string(GpuNeed::none), "no");
  EXPECT_EQ(to_string(GpuNeed::partly), "partly");
  EXPECT_EQ(to_string(GpuNeed::all), "yes");
}

TEST(ChapterTable, TheGeneratedTableAgreesWithItself) {
  std::string table = chapter_table_markdown(kLabs, readme_table());
  EXPECT_EQ(table,
            "| NN | chapter | lab | GPU |\n|---|---|---|---|\n"
            "| 00 | The first | what 00_first builds | no |\n"
            "| 01 | The second | what 01_second builds | partly |\n"
            "| 02 | A \\| pipe | what 02_third builds | yes |\n");
  EXPECT_TRUE(check_chapter_table(readme_with(table), "README.md", kLabs, readme_table()).empty());
  std::string site = chapter_table_markdown(kLabs, site_table());
  EXPECT_NE(site.find("| 01 | [The second](../chapters/01_second/index.md) | what 01_second builds | partly |"), std::string::npos)
      << site;
}

TEST(ChapterTable, EachRowThatDiffersIsNamedWithItsLine) {
  std::string table =
      "| NN | chapter | lab | GPU |\n"
      "|----|---------|-----|-----|\n"
      "| 00 | The first one | what 00_first builds | no |\n"      // line 7: the title differs
      "| 01 | The second | what 01_second builds | yes |\n"       // line 8: the GPU column differs
      "| 02 | A \\| pipe | something else | yes |\n"              // line 9: the summary differs
      "| 03 | No such lab | x | no |\n";                          // line 10
  auto problems = check_chapter_table(readme_with(table), "README.md", kLabs, readme_table());
  ASSERT_EQ(problems.size(), 4u) << ::testing::PrintToString(problems);
  EXPECT_EQ(problems[0],
            "README.md:7: row 00: the chapter column says 'The first one' but the title in labs/00_first/lab.toml is 'The first'");
  EXPECT_EQ(problems[1],
            "README.md:8: row 01: the GPU column says 'yes' but the needs in labs/01_second/lab.toml make it 'partly' "
            "(2 of 4 tests need a GPU)");
  EXPECT_EQ(problems[2],
            "README.md:9: row 02: the lab column says 'something else' but the summary in labs/02_third/lab.toml is "
            "'what 02_third builds'");
  EXPECT_EQ(problems[3], "README.md:10: row 03: there is no lab 03 in labs/");
}

TEST(ChapterTable, AMissingARepeatedOrAMisplacedRowIsNamed) {
  std::string table =
      "| NN | chapter | lab | GPU |\n|---|---|---|---|\n"
      "| 01 | The second | what 01_second builds | partly |\n"
      "| 00 | The first | what 00_first builds | no |\n"
      "| 01 | The second | what 01_second builds | partly |\n";
  auto problems = check_chapter_table(readme_with(table), "README.md", kLabs, readme_table());
  ASSERT_EQ(problems.size(), 3u) << ::testing::PrintToString(problems);
  EXPECT_EQ(problems[0], "README.md:8: row 00 comes after row 01: the rows follow the labs' numbers");
  EXPECT_EQ(problems[1], "README.md:9: row 01 again (first on line 7)");
  EXPECT_EQ(problems[2], "README.md: no row for lab 02_third; it would read | 02 | A \\| pipe | what 02_third builds | yes |");
}

TEST(ChapterTable, NoTableIsAProblemToo) {
  auto problems = check_chapter_table("# A course\n\nNo table here.\n", "README.md", kLabs, readme_table());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "README.md: no chapter table (a Markdown table whose header is | NN | chapter | lab | GPU |)");
}

