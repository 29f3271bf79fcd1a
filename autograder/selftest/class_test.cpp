// grade-class's readers and writers on their own: the students' seeds, the
// gradebook's rows from results.json as the grader writes it, the CSV, and
// the submissions of a class, Gradescope's export among them.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "launchlab/class/grade_class.h"
#include "launchlab/class/gradebook.h"
#include "launchlab/class/roster.h"
#include "launchlab/grader/course.h"
#include "launchlab/grader/grading.h"
#include "temp_folder.h"

namespace fs = std::filesystem;
using namespace launchlab::classroom;
using nlohmann::json;

namespace {

// A build without yaml-cpp (a GPU host with no package manager) reads no
// Gradescope export; everything else of the class library works there.
#define REQUIRE_YAML() \
  if (!LAUNCHLAB_HAVE_YAML_CPP) GTEST_SKIP() << "built without yaml-cpp"

std::string hex_of(const std::array<std::uint8_t, 32>& digest) { return to_hex(digest.data(), digest.size()); }

/// The cells of each line of a CSV text (RFC 4180, CRLF line ends).
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> lines(1);
  std::string cell;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      lines.back().push_back(cell);
      cell.clear();
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      lines.back().push_back(cell);
      cell.clear();
      lines.emplace_back();
      ++i;
    } else {
      cell += c;
    }
  }
  if (lines.back().empty() && cell.empty()) lines.pop_back();
  return lines;
}

// ------------------------------------------------------------ seeds

TEST(Seeds, Sha256MatchesTheStandardsVectors) {
  // FIPS 180-4's examples (and sha256sum's answers).
  EXPECT_EQ(hex_of(sha256("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(hex_of(sha256("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // Longer than one block, and a length whose padding needs a block of its own.
  EXPECT_EQ(hex_of(sha256(std::string(1000, 'a'))), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
}

TEST(Seeds, HmacSha256MatchesRfc4231) {
  EXPECT_EQ(hex_of(hmac_sha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  // A key longer than a block is hashed first (test case 6).
  EXPECT_EQ(hex_of(hmac_sha256(std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First")),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST(Seeds, AStudentsSeedIsTheFirstEightBytesOfTheHmacAndNamesTheSecretOnlyByItsFingerprint) {
  StudentSeed seed = derive_seed("course secret", "alice");
  // Python: int.from_bytes(hmac.new(b"course secret", b"alice", "sha256").digest()[:8], "big")
  EXPECT_EQ(seed.value, 2749228271089995229u);
  EXPECT_EQ(seed.derivation, "hmac-sha256(secret 64ed5e79, \"alice\")[0:8] big-endian");
  EXPECT_EQ(seed.derivation.find("course secret"), std::string::npos);
  EXPECT_EQ(derive_seed("course secret", "alice").value, seed.value) << "a regrade must see the same seed";
  EXPECT_NE(derive_seed("course secret", "bob").value, seed.value);
  EXPECT_NE(derive_seed("another secret", "alice").value, seed.value);
}

// `launchlab grade --seed-secret` and grade-class draw a submission's seed
// alike: from the student and the files of the labs graded, and nothing else.
TEST(Seeds, ASubmissionsSeedFollowsItsStudentAndTheFilesOfTheLabsGraded) {
  const fs::path course = fs::path(LAUNCHLAB_SOURCE_DIR) / "autograder" / "selftest" / "fixture_course";
  const TempFolder folder("submission-seed");
  const fs::path submission = folder.path() / "alice";
  fs::copy(course / "solutions", submission, fs::copy_options::recursive);
  const auto seed = [&](const std::string& student, const std::vector<std::string>& labs) {
    return derive_submission_seed("course secret", student, submission,
                                  launchlab::grader::labs_to_grade(launchlab::grader::load_course(course), labs));
  };
  const StudentSeed every_lab = seed("alice", {});
  const StudentSeed alpha = seed("alice", {"00_alpha"});
  EXPECT_EQ(seed("alice", {}).value, every_lab.value) << "a regrade of the same files must see the same seed";
  EXPECT_NE(seed("bob", {}).value, every_lab.value);
  EXPECT_NE(alpha.value, every_lab.value) << "the files graded are those of the labs graded";
  EXPECT_EQ(every_lab.derivation.find("course secret"), std::string::npos) << every_lab.derivation;

  std::ofstream(submission / "01_beta" / "stats.cpp", std::ios::app) << "\n// handed in again\n";
  EXPECT_NE(seed("alice", {}).value, every_lab.value) << "a resubmission with other files keeps its seed";
  EXPECT_EQ(seed("alice", {"00_alpha"}).value, alpha.value) << "a file of a lab not graded changed the seed";
}

// ------------------------------------------------------------ rows from results.json

launchlab::grader::LabResult lab_result(const std::string& slug,
                                        const std::vector<launchlab::grader::TestResult>& tests) {
  launchlab::grader::LabResult result;
  result.lab.slug = slug;
  for (const auto& test : tests) result.lab.tests.push_back({test.name, test.max_points, {}, false});
  result.tests = tests;
  return result;
}

TEST(Gradebook, ARowAddsUpTheGradersOwnResultsJsonLabByLab) {
  using launchlab::grader::TestStatus;
  std::vector<launchlab::grader::LabResult> labs = {
      lab_result("00_vadd_journey", {{"Grid.A", 2, 2, TestStatus::passed, ""},
                                     {"Grid.B", 0, 3, TestStatus::failed, "expected 4, got 3"},
                                     {"Vadd.OnTheGpu", 0, 5, TestStatus::needs_gpu, "needs a GPU"}}),
      lab_result("03_binary_containers", {{"Elf.Header", 4, 4, TestStatus::passed, ""},
                                          {"Elf.Sections", 6, 6, TestStatus::passed, ""}}),
  };
  launchlab::grader::Capabilities capabilities;
  capabilities.gpu_detail = "no usable GPU";
  json results = launchlab::grader::results_json(labs, capabilities, 12.0);

  GradebookRow row = row_from_results(results);
  EXPECT_EQ(row.lab_points.at("00_vadd_journey"), 2);
  EXPECT_EQ(row.lab_points.at("03_binary_containers"), 10);
  EXPECT_EQ(row.lab_max.at("00_vadd_journey"), 10) << "points_if_graded counts the GPU test too";
  EXPECT_EQ(row.total, results["score"].get<int>());
  EXPECT_EQ(row.total, 12);
  EXPECT_EQ(row.graded_max, 15);
  EXPECT_EQ(row.not_graded, 5);
  EXPECT_TRUE(row.flags.empty());
}

TEST(Gradebook, FlagsARegradeAGraderErrorAndACourseProblem) {
  json regrade = {{"score", 3},
                  {"tests", json::array({{{"name", "10_launch_overhead: Timing.GraphLaunch"},
                                          {"score", 0},
                                          {"extra_data", {{"lab", "10_launch_overhead"}, {"outcome", "regrade"},
                                                          {"points_if_graded", 4}}}}})}};
  EXPECT_EQ(row_from_results(regrade).flags, std::vector<std::string>{"regrade"});
  json throttled = {{"score", 0}, {"extra_data", {{"regrade", json::array({"the GPU was throttled"})}}}};
  EXPECT_EQ(row_from_results(throttled).flags, std::vector<std::string>{"regrade"});
  json not_regrade = {{"score", 0}, {"extra_data", {{"regrade", false}}}};
  EXPECT_TRUE(row_from_results(not_regrade).flags.empty());

  json error = {{"score", 0}, {"output", "The grader could not grade this submission: no lab to grade"}, {"tests", json::array()}};
  EXPECT_EQ(row_from_results(error).flags, std::vector<std::string>{"grader-error"});
  json course = {{"score", 0},
                 {"tests", json::array({{{"name", "00_vadd_journey: A.B"}, {"score", 0},
                                         {"extra_data", {{"lab", "00_vadd_journey"}, {"outcome", "not graded"}}}}})}};
  EXPECT_EQ(row_from_results(course).flags, std::vector<std::string>{"course-problem"});
}

TEST(Gradebook, TakesTheLabFromTheTestNameWhenExtraDataHasNone) {
  json results = {{"score", 5},
                  {"tests", json::array({{{"name", "07_qmd: Qmd.Decode"}, {"score", 5}, {"max_score", 5}}})}};
  GradebookRow row = row_from_results(results);
  EXPECT_EQ(row.lab_points.at("07_qmd"), 5);
  EXPECT_EQ(row.lab_max.at("07_qmd"), 5);
}

// ------------------------------------------------------------ CSV

TEST(Gradebook, CsvCellsAreQuotedWhereTheyMustBeAndFormulasAreDefused) {
  EXPECT_EQ(csv_cell("alice"), "alice");
  EXPECT_EQ(csv_cell("Smith, Ann"), "\"Smith, Ann\"");
  EXPECT_EQ(csv_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_cell("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_cell("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
  EXPECT_EQ(csv_cell("@SUM(A1)"), "'@SUM(A1)");
  EXPECT_EQ(csv_cell("-3"), "-3") << "a negative number stays a number";
  EXPECT_EQ(csv_cell("-rm"), "'-rm");
  EXPECT_EQ(csv_cell(""), "");
}

TEST(Gradebook, TheCsvHasOneColumnPerLabInOrderAndReadsBackCellByCell) {
  GradebookRow alice;
  alice.student = "alice";
  alice.name = "Smith, Alice";
  alice.email = "alice@example.edu";
  alice.lab_points = {{"00_vadd_journey", 30}, {"03_binary_containers", 12}};
  alice.total = 42;
  alice.graded_max = 50;
  alice.not_graded = 8;
  alice.flags = {"regrade"};
  alice.seed = "hmac-sha256(secret 64ed5e79, \"alice\")[0:8] big-endian";
  alice.late["00_vadd_journey"] = {.late_days = 3, .grace_days_used = 1, .penalty = 6};
  GradebookRow bob;
  bob.student = "bob";
  bob.flags = {"no-results"};
  bob.seed = "none";

  auto lines = parse_csv(gradebook_csv({"00_vadd_journey", "03_binary_containers"}, {alice, bob}));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], (std::vector<std::string>{"student", "name", "email", "00_vadd_journey", "03_binary_containers",
                                                "total", "late_days", "grace_days_used", "penalty", "final",
                                                "graded_max", "not_graded", "flags", "seed"}));
  EXPECT_EQ(lines[1], (std::vector<std::string>{"alice", "Smith, Alice", "alice@example.edu", "30", "12", "42", "3", "1",
                                                "6", "36", "50", "8", "regrade", alice.seed}));
  EXPECT_EQ(lines[2], (std::vector<std::string>{"bob", "", "", "", "", "0", "0", "0", "0", "0", "0", "0", "no-results",
                                                "none"}))
      << "a lab that was not graded is an empty cell, not a zero";
}

TEST(Gradebook, TheSummaryCountsOnlyGradedStudentsAndListsTheFlagged) {
  GradebookRow alice;
  alice.student = "alice";
  alice.lab_points = {{"00_vadd_journey", 30}};
  alice.lab_max = {{"00_vadd_journey", 40}};
  alice.total = 30;
  alice.graded_max = 40;
  alice.seconds = 10;
  GradebookRow carol = alice;
  carol.student = "carol";
  carol.lab_points = {{"00_vadd_journey", 10}};
  carol.total = 10;
  carol.seconds = 20;
  GradebookRow bob;
  bob.student = "bob";
  bob.flags = {"no-results"};

  json summary = summary_json({"00_vadd_journey"}, {alice, bob, carol});
  EXPECT_EQ(summary["students"], 3);
  EXPECT_EQ(summary["labs"][0]["name"], "00_vadd_journey");
  EXPECT_EQ(summary["labs"][0]["max_points"], 40);
  EXPECT_EQ(summary["labs"][0]["points"], json::array({30, 10}));
  EXPECT_EQ(summary["total"]["points"], json::array({30, 10}));
  EXPECT_EQ(summary["flagged"], json({{"bob", {"no-results"}}}));
  std::string text = summary_markdown(summary);
  EXPECT_NE(text.find("| 00_vadd_journey | 40 | 2 | 20.0 | 20.0 | 10 | 30 |"), std::string::npos) << text;
  EXPECT_NE(text.find("- bob: no-results"), std::string::npos) << text;
  EXPECT_NE(text.find("15.0 s on average"), std::string::npos) << text;
}

// ------------------------------------------------------------ YAML and Gradescope's export

// The shape of Gradescope's submission_metadata.yml (Ruby's YAML, keys that
// are Ruby symbols): the submissions' folders at the top, each with its
// submitters, and a history whose entries repeat them through aliases.
const char* kExport = R"(---
submission_1001:
  :submitters:
  - &1
    :name: Alice Smith
    :sid: '12345'
    :email: alice@example.edu
  :created_at: 2025-10-01 12:00:00.000000000 -07:00
  :score: 42.0
  :status: processed
  :results:
    :score: 42.0
    :output: |-
      line one
      line two: with a colon
  :history:
  - :id: 900
    :submitters:
    - *1
    :created_at: 2025-09-30 09:00:00.000000000 -07:00
submission_1002:
  :submitters:
  - :name: "Bj\u00F6rn \"Bo\" Berg"
    :sid: ''
    :email: bjorn@example.edu
  - :name: Carol Chu
    :sid: '777'
    :email: carol@example.edu
  :created_at: 2025-10-01 13:00:00.000000000 -07:00
  :history: []
submission_1003:
  :submitters:
  - :name: O'Neil, Dana  # a comment
    :sid:
    :email:
  :comment: a long plain string that the emitter folded
    onto a second line
)";

TEST(Roster, TheYamlReaderReadsGradescopesMetadata) {
  REQUIRE_YAML();
  json metadata = yaml_as_json(kExport);
  ASSERT_TRUE(metadata.is_object());
  EXPECT_EQ(metadata.size(), 3u);
  const json& first = metadata["submission_1001"];
  EXPECT_EQ(first[":submitters"][0][":name"], "Alice Smith");
  EXPECT_EQ(first[":submitters"][0][":sid"], "12345");
  EXPECT_EQ(first[":score"], "42.0");
  EXPECT_EQ(first[":results"][":output"], "line one\nline two: with a colon");
  EXPECT_EQ(first[":history"][0][":submitters"][0], first[":submitters"][0]) << "the alias *1 is the anchored mapping";
  EXPECT_EQ(first[":history"][0][":id"], "900");
  const json& second = metadata["submission_1002"];
  EXPECT_EQ(second[":submitters"][0][":name"], "Bj\xc3\xb6rn \"Bo\" Berg");
  EXPECT_EQ(second[":submitters"][0][":sid"], "");
  EXPECT_EQ(second[":submitters"][1][":sid"], "777");
  EXPECT_EQ(second[":history"], json::array());
  const json& third = metadata["submission_1003"];
  EXPECT_EQ(third[":submitters"][0][":name"], "O'Neil, Dana");
  EXPECT_TRUE(third[":submitters"][0][":sid"].is_null());
  EXPECT_EQ(third[":comment"], "a long plain string that the emitter folded onto a second line");
}

TEST(Roster, TheYamlReaderNamesTheLineItCannotRead) {
  REQUIRE_YAML();
  try {
    yaml_as_json("a:\n  b: 1\n c: [2\n");
    ADD_FAILURE() << "a broken document was accepted";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("line "), std::string::npos) << error.what();
  }
  EXPECT_THROW(yaml_as_json("a: *nowhere\n"), std::runtime_error);
  EXPECT_THROW(yaml_as_json("a: b: c\n"), std::runtime_error) << "a mapping where a value goes";
  EXPECT_EQ(yaml_as_json("a: \"\\x41\\u00e9\\U0001F600\\t\"\n")["a"], "A\xc3\xa9\xf0\x9f\x98\x80\t");
}

TEST(Roster, GradescopesExportMapsEachFolderToItsFirstSubmitter) {
  REQUIRE_YAML();
  TempFolder temp("export");
  const fs::path dir = temp.path();
  for (const char* folder : {"submission_1001", "submission_1002", "submission_1003"}) fs::create_directories(dir / folder);
  auto submissions = read_gradescope_metadata(kExport, dir);
  ASSERT_EQ(submissions.size(), 3u);
  // Ordered by student: the sid where there is one, else the email, else the name.
  EXPECT_EQ(submissions[0].student, "12345");
  EXPECT_EQ(submissions[0].folder, dir / "submission_1001");
  EXPECT_EQ(submissions[0].submitters.at(0).email, "alice@example.edu");
  EXPECT_EQ(submissions[1].student, "O_Neil__Dana");
  EXPECT_EQ(submissions[2].student, "bjorn@example.edu");
  ASSERT_EQ(submissions[2].submitters.size(), 2u) << "a group submission keeps all its submitters";
  EXPECT_EQ(submissions[2].submitters[1].name, "Carol Chu");
  EXPECT_EQ(submissions[2].submitted_at, "2025-10-01 13:00:00.000000000 -07:00");

  std::ofstream(dir / "submission_metadata.yml") << kExport;
  EXPECT_EQ(find_class_submissions(dir).size(), 3u) << "the export is recognised by its metadata";
  fs::remove_all(dir / "submission_1003");
  EXPECT_THROW(find_class_submissions(dir), std::runtime_error) << "metadata naming a missing folder";
}

TEST(Roster, TwoSubmissionsOfOneStudentKeepTheirKeysApart) {
  REQUIRE_YAML();
  TempFolder temp("export-twice");
  const fs::path dir = temp.path();
  fs::create_directories(dir / "submission_1");
  fs::create_directories(dir / "submission_2");
  auto submissions = read_gradescope_metadata(
      "submission_1:\n  :submitters:\n  - :sid: '5'\nsubmission_2:\n  :submitters:\n  - :sid: '5'\n", dir);
  ASSERT_EQ(submissions.size(), 2u);
  EXPECT_NE(submissions[0].student, submissions[1].student);
  EXPECT_EQ(submissions[0].student, "5");
  EXPECT_EQ(submissions[1].student, "5-submission_2");
}

TEST(Roster, APlainFolderIsOneStudentPerFolderWithoutHiddenOnesLinksOrFiles) {
  TempFolder temp("class");
  const fs::path dir = temp.path();
  fs::create_directories(dir / "bob" / "00_vadd_journey");
  fs::create_directories(dir / "alice");
  fs::create_directories(dir / "odd name!");
  fs::create_directories(dir / ".cache");
  std::ofstream(dir / "README.txt") << "not a student\n";
  fs::create_directory_symlink(dir / "alice", dir / "mallory");
  auto submissions = find_class_submissions(dir);
  ASSERT_EQ(submissions.size(), 3u);
  EXPECT_EQ(submissions[0].student, "alice");
  EXPECT_EQ(submissions[1].student, "bob");
  EXPECT_EQ(submissions[1].folder, dir / "bob");
  EXPECT_EQ(submissions[2].student, "odd_name_");
  EXPECT_TRUE(submissions[0].submitters.empty());

  // One student's own folder is not a class.
  fs::create_directories(dir / "bob" / "labs");
  EXPECT_THROW(find_class_submissions(dir / "bob"), std::runtime_error);
}

TEST(Roster, StudentKeysAreSafeAsFolderNames) {
  EXPECT_EQ(student_key("alice.smith@example.edu"), "alice.smith@example.edu");
  EXPECT_EQ(student_key("../etc"), "_.._etc");
  EXPECT_EQ(student_key(".launchlab"), "_.launchlab");
  EXPECT_EQ(student_key(".."), "_..");
  EXPECT_EQ(student_key(""), "_");
  EXPECT_EQ(student_key("Ann Lee/2"), "Ann_Lee_2");
}

}  // namespace
