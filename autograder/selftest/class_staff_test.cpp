// What grade-class gives a course's staff, on a class of six made-up
// students of lab 04 (layout.cpp): alice and bob (bob copied alice, renaming
// every variable and reordering the functions), carol (two days late with
// one grace day), dave (late, within his extension), erin and frank (honest,
// frank missing from the class file). Their results.json are the test's own,
// as the grader writes them; the reports are read back from the files.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "launchlab/class/history.h"
#include "launchlab/class/reports.h"
#include "launchlab/class/roster.h"
#include "temp_folder.h"

namespace fs = std::filesystem;
using namespace launchlab::classroom;
using nlohmann::json;

namespace {

const fs::path kCourse = LAUNCHLAB_SOURCE_DIR;
const char* const kLab = "04_param_buffer";

// The course's solution, as alice wrote it.
const char* const kAlice = R"cpp(#include "param_buffer.h"

#include <stdexcept>
#include <string>

namespace launchlab::param_buffer {

namespace {

bool is_power_of_two(std::size_t n) { return n != 0 && (n & (n - 1)) == 0; }

void check_param(const Param& p, std::size_t i) {
  const std::string which = "parameter " + std::to_string(i) + " (" + p.name + ")";
  if (p.size == 0) throw std::invalid_argument(which + " has size 0");
  if (!is_power_of_two(p.alignment)) throw std::invalid_argument(which + " has an alignment that is no power of two");
}

}  // namespace

std::size_t align_up(std::size_t offset, std::size_t alignment) {
  if (!is_power_of_two(alignment)) throw std::invalid_argument("alignment " + std::to_string(alignment));
  const std::size_t mask = alignment - 1;
  return (offset + mask) & ~mask;
}

Layout lay_out(std::span<const Param> params) {
  Layout layout;
  std::size_t end = 0;
  for (std::size_t i = 0; i < params.size(); ++i) {
    check_param(params[i], i);
    const std::size_t offset = align_up(end, params[i].alignment);
    if (offset + params[i].size > kMaxParamBytes) throw std::length_error("needs " + std::to_string(offset + params[i].size));
    layout.slots.push_back(Slot{offset, params[i].size});
    end = offset + params[i].size;
  }
  layout.size = end;
  return layout;
}

}  // namespace launchlab::param_buffer
)cpp";

std::string honest_file(const char* functions) {
  return std::string("#include \"param_buffer.h\"\n#include <bit>\n#include <numeric>\n#include <stdexcept>\n"
                     "#include <vector>\nnamespace launchlab::param_buffer {\n") +
         functions + "}  // namespace launchlab::param_buffer\n";
}

/// alice's, as bob handed it in: every variable renamed (whole words, not
/// the members after a '.') and align_up moved after lay_out.
std::string bobs_copy() {
  std::string copy = kAlice;
  for (auto [from, to] : {std::pair{"is_power_of_two", "pow2"}, {"check_param", "validate"}, {"layout", "result"},
                          {"params", "list"}, {"offset", "at"}, {"alignment", "a"}, {"mask", "bits"},
                          {"which", "label"}, {"end", "cursor"}, {"n", "value"}, {"p", "q"}, {"i", "k"}}) {
    copy = std::regex_replace(copy, std::regex("(^|[^.\\w])" + std::string(from) + "\\b"), "$1" + std::string(to));
  }
  const std::size_t align_up = copy.find("std::size_t align_up(");
  const std::size_t lay_out = copy.find("Layout lay_out(");
  const std::size_t end = copy.find("}  // namespace launchlab");
  return copy.substr(0, align_up) + copy.substr(lay_out, end - lay_out) + copy.substr(align_up, lay_out - align_up) +
         copy.substr(end);
}

// Four honest ones, each in a way of its own: the functions alone, which
// honest_file puts in the lab's file.
const char* const kCarol = R"cpp(std::size_t align_up(std::size_t offset, std::size_t alignment) {
  if (alignment == 0 || __builtin_popcountll(alignment) != 1) throw std::invalid_argument("bad alignment");
  while (offset % alignment) ++offset;
  return offset;
}
Layout lay_out(std::span<const Param> params) {
  Layout out{};
  for (const Param& each : params) {
    if (!each.size) throw std::invalid_argument(each.name + ": empty");
    std::size_t start = align_up(out.size, each.alignment);
    out.slots.emplace_back(Slot{start, each.size});
    out.size = start + each.size;
    if (out.size > kMaxParamBytes) throw std::length_error(each.name + " ends past the limit");
  }
  return out;
}
)cpp";

const char* const kDave = R"cpp(std::size_t align_up(std::size_t offset, std::size_t alignment) {
  if (!std::has_single_bit(alignment)) throw std::invalid_argument("alignment must be a power of two");
  std::size_t rest = offset % alignment;
  return rest == 0 ? offset : offset + (alignment - rest);
}
Layout lay_out(std::span<const Param> params) {
  Layout built;
  std::size_t next = 0;
  std::size_t index = 0;
  while (index < params.size()) {
    const Param& current = params[index++];
    if (current.size == 0 || !std::has_single_bit(current.alignment))
      throw std::invalid_argument("bad parameter " + current.name);
    next = align_up(next, current.alignment);
    built.slots.push_back({next, current.size});
    next += current.size;
  }
  if (next > kMaxParamBytes) throw std::length_error("too many parameter bytes");
  built.size = next;
  return built;
}
)cpp";

const char* const kErin = R"cpp(std::size_t align_up(std::size_t offset, std::size_t alignment) {
  if ((alignment & (alignment - 1)) != 0 || alignment == 0) throw std::invalid_argument("no power of two");
  return ((offset + alignment - 1) / alignment) * alignment;
}
Layout lay_out(std::span<const Param> params) {
  Layout l;
  l.size = std::accumulate(params.begin(), params.end(), std::size_t{0}, [&l](std::size_t so_far, const Param& x) {
    if (x.size < 1) throw std::invalid_argument("zero-sized " + x.name);
    auto placed = align_up(so_far, x.alignment);
    l.slots.push_back(Slot{placed, x.size});
    return placed + x.size;
  });
  if (l.size > kMaxParamBytes) throw std::length_error("the buffer is too small");
  return l;
}
)cpp";

const char* const kFrank = R"cpp(static bool single_bit(std::size_t v) {
  int bits = 0;
  for (; v; v >>= 1) bits += static_cast<int>(v & 1);
  return bits == 1;
}
std::size_t align_up(std::size_t offset, std::size_t alignment) {
  if (!single_bit(alignment)) throw std::invalid_argument("align_up needs a power of two");
  std::size_t up = offset;
  if (up & (alignment - 1)) up = (up | (alignment - 1)) + 1;
  return up;
}
Layout lay_out(std::span<const Param> params) {
  std::vector<Slot> slots;
  std::size_t position = 0;
  for (auto it = params.begin(); it != params.end(); ++it) {
    if (it->size == 0 || !single_bit(it->alignment)) throw std::invalid_argument(it->name);
    position = align_up(position, it->alignment);
    if (position + it->size > kMaxParamBytes) throw std::length_error(it->name);
    slots.push_back(Slot{position, it->size});
    position += it->size;
  }
  return Layout{slots, position};
}
)cpp";

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The CSV's lines, each split at its commas (the test's cells hold none).
std::vector<std::vector<std::string>> csv_cells(const std::string& text) {
  std::vector<std::vector<std::string>> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    EXPECT_TRUE(line.ends_with('\r')) << "RFC 4180 ends a line with CRLF: " << line;
    if (line.ends_with('\r')) line.pop_back();
    std::vector<std::string> cells(1);
    for (char c : line) {
      if (c == ',') {
        cells.emplace_back();
      } else {
        cells.back().push_back(c);
      }
    }
    lines.push_back(cells);
  }
  return lines;
}

/// results.json as `launchlab grade` writes it for lab 04: three tests.
json results_of(int align, int scalars, int pack) {
  json tests = json::array();
  for (auto [name, points, most] : {std::tuple{"Layout.AlignUpRoundsUpToAMultiple", align, 2},
                                    {"Layout.ScalarsSitAtTheirOwnAlignment", scalars, 3},
                                    {"Pack.ValuesLandAtTheirOffsets", pack, 5}}) {
    tests.push_back({{"name", std::string(kLab) + ": " + name},
                     {"score", points},
                     {"max_score", most},
                     {"extra_data", {{"lab", kLab}, {"outcome", points == most ? "passed" : "failed"},
                                     {"points_if_graded", most}}}});
  }
  return {{"score", align + scalars + pack},
          {"tests", tests},
          {"extra_data", {{"gradable_max_score", 10}, {"not_gradable_points", 0}}}};
}

/// Sets when every file and folder of a submission last changed.
void submitted_at(const fs::path& folder, std::chrono::sys_seconds when) {
  const auto time = std::chrono::file_clock::from_sys(when);
  for (const auto& entry : fs::recursive_directory_iterator(folder)) fs::last_write_time(entry.path(), time);
  fs::last_write_time(folder, time);
}

std::chrono::sys_seconds utc(int month, int day, int hour) {
  using namespace std::chrono;
  return sys_days{year{2026} / month / day} + hours{hour};
}

const json* pair_of(const json& pairs, const std::string& first, const std::string& second) {
  for (const auto& pair : pairs) {
    if (pair["first"] == first && pair["second"] == second) return &pair;
  }
  return nullptr;
}

TEST(ClassStaff, SixStudentsGiveTheLmsFilesLateColumnsSimilarPairsTheLeaderboardAndTheRegradeHistory) {
  TempFolder temp("class-staff");
  const fs::path submissions = temp.path() / "class";
  const fs::path out = temp.path() / "graded";
  const std::map<std::string, std::pair<const char*, std::chrono::sys_seconds>> students = {
      {"alice", {kAlice, utc(3, 1, 12)}}, {"bob", {"", utc(3, 1, 20)}},   {"carol", {kCarol, utc(3, 3, 12)}},
      {"dave", {kDave, utc(3, 3, 12)}},   {"erin", {kErin, utc(3, 1, 9)}},  {"frank", {kFrank, utc(3, 1, 10)}}};
  const std::map<std::string, json> results = {{"alice", results_of(2, 3, 5)}, {"bob", results_of(2, 3, 5)},
                                               {"carol", results_of(2, 3, 5)}, {"dave", results_of(2, 0, 5)},
                                               {"erin", results_of(2, 3, 0)},  {"frank", results_of(0, 3, 5)}};
  for (const auto& [student, submission] : students) {
    fs::create_directories(submissions / student / kLab);
    std::ofstream(submissions / student / kLab / "layout.cpp") << (student == "alice" ? std::string(kAlice) : student == "bob" ? bobs_copy() : honest_file(submission.first));
    submitted_at(submissions / student, submission.second);
    fs::create_directories(out / student);
    json written = results.at(student);
    // Lab 10's figure, as a timing test puts it in results.json: the
    // learner's launches per second over the reference's in the same grading.
    if (student == "alice" || student == "carol" || student == "erin") {
      written["leaderboard"] = {{{"name", "10_launch_overhead: launch rate vs the reference"},
                                 {"value", student == "carol" ? 1.25 : student == "alice" ? 0.8 : 1.0}}};
    }
    std::ofstream(out / student / "results.json") << written.dump(2);
  }
  // The guide's example class file is this class's.
  const fs::path class_file = kCourse / "autograder" / "class" / "example-class.toml";

  ClassReportSettings settings{kCourse, out, {kLab}, class_file, true, 50};
  const auto roster = find_class_submissions(submissions);
  ASSERT_EQ(roster.size(), 6u);
  write_class_reports(settings, roster);

  // The gradebook: raw points, then the late columns.
  const auto gradebook = csv_cells(read_text(out / "gradebook.csv"));
  ASSERT_EQ(gradebook.size(), 7u);
  EXPECT_EQ(gradebook[0], (std::vector<std::string>{"student", "name", "email", kLab, "total", "late_days",
                                                    "grace_days_used", "penalty", "final", "graded_max", "not_graded",
                                                    "flags", "seed"}));
  std::map<std::string, std::vector<std::string>> row_of;
  for (std::size_t i = 1; i < gradebook.size(); ++i) row_of[gradebook[i][0]] = gradebook[i];
  // carol: 36 hours late is 2 days; one grace day covers one, 10% of 10 points goes for the other.
  EXPECT_EQ(std::vector<std::string>(row_of["carol"].begin() + 3, row_of["carol"].begin() + 9),
            (std::vector<std::string>{"10", "10", "2", "1", "1", "9"}));
  // dave: as late, inside his three-day extension.
  EXPECT_EQ(std::vector<std::string>(row_of["dave"].begin() + 3, row_of["dave"].begin() + 9),
            (std::vector<std::string>{"7", "7", "0", "0", "0", "7"}));
  EXPECT_EQ(std::vector<std::string>(row_of["alice"].begin() + 3, row_of["alice"].begin() + 9),
            (std::vector<std::string>{"10", "10", "0", "0", "0", "10"}));

  // Canvas's import: its five columns, then the lab's, named with its assignment id.
  const auto canvas = csv_cells(read_text(out / "canvas.csv"));
  ASSERT_EQ(canvas.size(), 6u) << "alice, bob, carol, dave, erin; frank is not in the class file";
  EXPECT_EQ(canvas[0], (std::vector<std::string>{"Student", "ID", "SIS User ID", "SIS Login ID", "Section",
                                                 "launchlab 04_param_buffer (1234)"}));
  EXPECT_EQ(canvas[1], (std::vector<std::string>{"Alice Smith", "101", "A001", "alice", "Section 1", "10"}));
  EXPECT_EQ(canvas[2], (std::vector<std::string>{"Bob Jones", "102", "B002", "bob", "Section 1", "10"}));
  EXPECT_EQ(canvas[3], (std::vector<std::string>{"Carol Chu", "103", "C003", "carol", "Section 2", "9"}));
  EXPECT_EQ(canvas[4], (std::vector<std::string>{"Dave Diaz", "104", "D004", "dave", "Section 2", "7"}));
  EXPECT_EQ(canvas[5], (std::vector<std::string>{"Erin Eze", "105", "E005", "erin", "Section 1", "5"}));

  // Gradescope's score upload: matched by SID or email, the final points.
  const auto gradescope = csv_cells(read_text(out / "gradescope_scores.csv"));
  ASSERT_EQ(gradescope.size(), 6u);
  EXPECT_EQ(gradescope[0], (std::vector<std::string>{"Name", "SID", "Email", "Total Score"}));
  EXPECT_EQ(gradescope[1], (std::vector<std::string>{"Alice Smith", "A001", "alice@example.edu", "10"}));
  EXPECT_EQ(gradescope[3], (std::vector<std::string>{"Carol Chu", "", "carol@example.edu", "9"}));

  json summary = json::parse(read_text(out / "summary.json"));
  EXPECT_EQ(summary["roster_mismatches"]["without_identity"], json::array({"frank"}));
  EXPECT_EQ(summary["roster_mismatches"]["without_submission"], json::array({"gina"}));
  EXPECT_EQ(summary["late"]["carol"]["penalty"], 1);
  EXPECT_FALSE(summary["late"].contains("dave"));

  // Similarity: the copy is found, no honest pair is above the threshold.
  const json& similarity = summary["similarity"];
  if (!similarity["checked"].get<bool>()) {
    GTEST_SKIP() << "similarity not checked: " << similarity["why_not"];
  }
  ASSERT_EQ(similarity["pairs"].size(), 1u) << similarity.dump(2);
  const json* copied = pair_of(similarity["pairs"], "alice", "bob");
  ASSERT_NE(copied, nullptr);
  EXPECT_GT((*copied)["percent"].get<int>(), 50);
  ASSERT_FALSE((*copied)["regions"].empty());
  EXPECT_TRUE((*copied)["regions"][0]["first"].get<std::string>().starts_with("layout.cpp:"));
  const std::string markdown = read_text(out / "summary.md");
  EXPECT_NE(markdown.find("| 04_param_buffer | alice, bob |"), std::string::npos) << markdown;

  // The leaderboard: higher is better, carol first; no point changes.
  ASSERT_EQ(summary["leaderboards"].size(), 1u);
  const json& places = summary["leaderboards"][0]["places"];
  ASSERT_EQ(places.size(), 3u);
  EXPECT_EQ(places[0]["student"], "carol");
  EXPECT_EQ(places[1]["student"], "erin");
  EXPECT_EQ(places[2]["student"], "alice");
  EXPECT_EQ(places[2]["rank"], 3);
  EXPECT_NE(markdown.find("## Leaderboard: 10_launch_overhead"), std::string::npos);
  EXPECT_TRUE(summary["regrades"].empty());

  // A regrade with one test changed: the earlier results.json is kept, the summary says what changed.
  keep_earlier_results(out / "frank");
  std::ofstream(out / "frank" / "results.json") << results_of(2, 3, 5).dump(2);
  write_class_reports(settings, roster);
  EXPECT_TRUE(fs::exists(out / "frank" / "history" / "1-results.json"));
  summary = json::parse(read_text(out / "summary.json"));
  ASSERT_EQ(summary["regrades"].size(), 1u);
  const json& change = summary["regrades"][0];
  EXPECT_EQ(change["student"], "frank");
  EXPECT_EQ(change["before"], 8);
  EXPECT_EQ(change["after"], 10);
  ASSERT_EQ(change["tests"].size(), 1u);
  EXPECT_EQ(change["tests"][0]["test"], "04_param_buffer: Layout.AlignUpRoundsUpToAMultiple");
  EXPECT_NE(read_text(out / "summary.md").find("- frank: 8 -> 10 (+2), on 04_param_buffer: Layout.AlignUpRoundsUpToAMultiple 0 -> 2"),
            std::string::npos);
}

TEST(ClassStaff, TheClassFileSaysWhereItIsWrong) {
  TempFolder temp("class-staff");
  const fs::path file = temp.path() / "class.toml";
  std::ofstream(file) << "[late]\ngrace_days = 1\npenalty_per_day = 10\n";
  try {
    read_class_file(file);
    ADD_FAILURE() << "a misspelt key was accepted";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("class.toml:3: unknown key 'penalty_per_day'"), std::string::npos) << error.what();
  }
  std::ofstream(file, std::ios::trunc) << "[labs.04_param_buffer]\ndue = 2026-03-01\n";
  EXPECT_THROW(read_class_file(file), std::runtime_error) << "a due date without a time and an offset";
  EXPECT_THROW(read_class_file(temp.path() / "missing.toml"), std::runtime_error);
}

TEST(ClassStaff, GradescopesAndIsoTimesAreReadWithTheirOffsets) {
  EXPECT_EQ(parse_submission_time("2026-03-01 16:00:00.000000000 -08:00"), parse_submission_time("2026-03-02T00:00:00Z"));
  EXPECT_EQ(parse_submission_time("1970-01-01T01:00:00+01:00"), 0);
  EXPECT_FALSE(parse_submission_time("yesterday"));
}

TEST(ClassStaff, ACutoffTakesEveryPointAndGraceDaysRunOutLabByLab) {
  ClassFile file;
  file.late = {.grace_days = 2, .penalty_percent_per_day = 25, .cutoff_days = 3};
  file.due = {{"a", 0}, {"b", 0}, {"c", 0}};
  const std::int64_t day = 24 * 3600;
  auto late = apply_late_policy(file, "anyone", 2 * day, {{"a", 8}, {"b", 8}, {"c", 8}});
  EXPECT_EQ(late["a"].grace_days_used, 2);
  EXPECT_EQ(late["a"].penalty, 0);
  EXPECT_EQ(late["b"].grace_days_used, 0) << "the grace days are spent";
  EXPECT_EQ(late["b"].penalty, 4);
  late = apply_late_policy(file, "anyone", 4 * day, {{"a", 8}});
  EXPECT_EQ(late["a"].penalty, 8) << "past the cutoff";
}

}  // namespace
