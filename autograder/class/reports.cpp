// The reports of a graded class, made from OUT/<student>/results.json alone,
// so that both engines (and a Slurm collector job) write the same ones.
#include "launchlab/class/reports.h"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "launchlab/class/exports.h"
#include "launchlab/class/history.h"
#include "launchlab/class/leaderboard.h"
#include "launchlab/class/policies.h"
#include "launchlab/class/similarity.h"
#include "launchlab/grader/grading.h"

namespace launchlab::classroom {
namespace fs = std::filesystem;
using nlohmann::json;
using grader::write_file_atomically;

namespace {

/// When the submission was made, in seconds since the epoch.
std::int64_t submitted_at(const ClassSubmission& submission) {
  if (auto created = parse_submission_time(submission.submitted_at)) return *created;
  return newest_change(submission.folder) / 1'000'000'000;
}

json similarity_json(const SimilarityReport& report) {
  json pairs = json::array();
  for (const auto& pair : report.pairs) {
    json regions = json::array();
    for (const auto& region : pair.regions) {
      regions.push_back({{"first", region.first_file}, {"second", region.second_file}, {"tokens", region.tokens}});
    }
    pairs.push_back({{"lab", pair.lab}, {"first", pair.first}, {"second", pair.second}, {"percent", pair.percent},
                     {"regions", regions}});
  }
  return {{"checked", report.checked}, {"why_not", report.why_not},
          {"threshold_percent", report.threshold_percent}, {"pairs", pairs}};
}

json leaderboards_json(const std::vector<Leaderboard>& boards) {
  json out = json::array();
  for (const auto& board : boards) {
    json places = json::array();
    for (const auto& place : board.places) {
      places.push_back({{"student", place.student}, {"value", place.value}, {"rank", place.rank}});
    }
    out.push_back({{"name", board.name}, {"ascending", board.ascending}, {"places", places}});
  }
  return out;
}

json regrades_json(const std::vector<ScoreChange>& changes) {
  json out = json::array();
  for (const auto& change : changes) {
    json tests = json::array();
    for (const auto& test : change.tests) tests.push_back({{"test", test.test}, {"before", test.before}, {"after", test.after}});
    out.push_back({{"student", change.student}, {"before", change.before}, {"after", change.after}, {"tests", tests}});
  }
  return out;
}

std::string number(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

}  // namespace

std::optional<json> read_json(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  json value = json::parse(in, nullptr, false);
  if (value.is_discarded()) return std::nullopt;
  return value;
}

GradebookRow gradebook_row(const fs::path& out, const ClassSubmission& submission) {
  const fs::path dir = out / submission.student;
  auto results = read_json(dir / "results.json");
  GradebookRow row;
  if (results) {
    row = row_from_results(*results);
  } else {
    row.flags.push_back("no-results");
  }
  row.student = submission.student;
  for (const auto& person : submission.submitters) {
    row.name += (row.name.empty() ? "" : "; ") + person.name;
    row.email += (row.email.empty() ? "" : "; ") + person.email;
  }
  row.seed = "none";
  if (auto record = read_json(dir / "grading.json"); record && record->is_object()) {
    row.seed = record->value("seed", "none");
    if (record->contains("seconds") && (*record)["seconds"].is_number()) row.seconds = (*record)["seconds"].get<double>();
  }
  return row;
}

std::vector<GradebookRow> write_class_reports(const ClassReportSettings& settings,
                                              const std::vector<ClassSubmission>& roster) {
  const std::optional<ClassFile> class_file =
      settings.class_file ? std::optional(read_class_file(*settings.class_file)) : std::nullopt;
  std::vector<GradebookRow> rows;
  std::vector<std::string> students;
  for (const auto& submission : roster) {
    GradebookRow row = gradebook_row(settings.out, submission);
    if (class_file && !row.lab_points.empty()) {
      row.late = apply_late_policy(*class_file, row.student, submitted_at(submission), row.lab_points);
    }
    students.push_back(row.student);
    rows.push_back(std::move(row));
  }
  std::vector<std::string> labs = settings.labs;
  for (const auto& row : rows) {
    for (const auto& [slug, points] : row.lab_points) {
      if (std::find(labs.begin(), labs.end(), slug) == labs.end()) labs.push_back(slug);
    }
  }
  write_file_atomically(settings.out / "gradebook.csv", gradebook_csv(labs, rows));

  json summary = summary_json(labs, rows);
  if (class_file) {
    write_file_atomically(settings.out / "canvas.csv", canvas_csv(*class_file, labs, rows));
    write_file_atomically(settings.out / "gradescope_scores.csv", gradescope_scores_csv(*class_file, rows));
    const RosterMismatches mismatches = roster_mismatches(*class_file, rows);
    summary["roster_mismatches"] = {{"without_identity", mismatches.without_identity},
                                    {"without_submission", mismatches.without_submission}};
    json late = json::object();
    for (const auto& row : rows) {
      if (row.late_days() > 0) {
        late[row.student] = {{"late_days", row.late_days()}, {"grace_days_used", row.grace_days_used()},
                             {"penalty", row.penalty()}, {"final", row.final_points()}};
      }
    }
    summary["late"] = late;
  }
  if (settings.similarity) {
    summary["similarity"] = similarity_json(compare_submissions(settings.course_root, labs, roster,
                                                                settings.similarity_threshold_percent,
                                                                settings.out / ".launchlab" / "similarity"));
  }
  summary["leaderboards"] = leaderboards_json(class_leaderboards(rows));
  summary["regrades"] = regrades_json(regrade_changes(settings.out, students));
  write_file_atomically(settings.out / "summary.json", summary.dump(2) + "\n");
  write_file_atomically(settings.out / "summary.md", summary_markdown(summary) + staff_summary_markdown(summary));
  return rows;
}

std::string staff_summary_markdown(const json& summary) {
  std::ostringstream out;
  if (summary.contains("late")) {
    out << "\n## Late submissions\n\n";
    if (summary["late"].empty()) out << "None.\n";
    for (const auto& [student, late] : summary["late"].items()) {
      out << "- " << student << ": " << late.value("late_days", 0) << " late day(s), " << late.value("grace_days_used", 0)
          << " covered by grace days, " << late.value("penalty", 0) << " point(s) off, " << late.value("final", 0)
          << " final\n";
    }
  }
  if (summary.contains("roster_mismatches")) {
    const json& mismatches = summary["roster_mismatches"];
    for (const auto& [key, what] : {std::pair{"without_identity", "graded, but not in the class file (left out of canvas.csv)"},
                                    {"without_submission", "in the class file, with no submission"}}) {
      if (mismatches.value(key, json::array()).empty()) continue;
      out << "\nStudents " << what << ":";
      for (const auto& student : mismatches[key]) out << " " << student.get<std::string>();
      out << "\n";
    }
  }
  if (summary.contains("similarity")) {
    const json& similarity = summary["similarity"];
    out << "\n## Similar submissions\n\n";
    if (!similarity.value("checked", false)) {
      out << "Not compared: " << similarity.value("why_not", "") << ".\n";
    } else if (similarity["pairs"].empty()) {
      out << "No pair shares more than " << similarity.value("threshold_percent", 0) << "% of its code.\n";
    } else {
      out << "Pairs sharing more than " << similarity.value("threshold_percent", 0)
          << "% of their code, the starter left out (sim_c++). A flag to look at, never a score:\n\n"
          << "| lab | students | shared | regions (file:lines) |\n|---|---|---|---|\n";
      for (const auto& pair : similarity["pairs"]) {
        std::string regions;
        for (const auto& region : pair["regions"]) {
          regions += (regions.empty() ? "" : "; ") + region["first"].get<std::string>() + " ~ " +
                     region["second"].get<std::string>();
        }
        out << "| " << pair["lab"].get<std::string>() << " | " << pair["first"].get<std::string>() << ", "
            << pair["second"].get<std::string>() << " | " << pair["percent"].get<int>() << "% | " << regions << " |\n";
      }
    }
  }
  for (const auto& board : summary.value("leaderboards", json::array())) {
    out << "\n## Leaderboard: " << board["name"].get<std::string>() << " ("
        << (board["ascending"].get<bool>() ? "lower" : "higher") << " is better; no points)\n\n"
        << "| rank | student | figure |\n|---|---|---|\n";
    for (const auto& place : board["places"]) {
      out << "| " << place["rank"].get<int>() << " | " << place["student"].get<std::string>() << " | "
          << number(place["value"].get<double>()) << " |\n";
    }
  }
  const json regrades = summary.value("regrades", json::array());
  if (!regrades.empty()) {
    out << "\n## Regrades\n\nScores a regrade changed (every earlier results.json is kept in OUT/<student>/history/):\n\n";
    for (const auto& change : regrades) {
      const double before = change["before"].get<double>(), after = change["after"].get<double>();
      out << "- " << change["student"].get<std::string>() << ": " << number(before) << " -> " << number(after) << " ("
          << (after >= before ? "+" : "") << number(after - before) << ")";
      std::string tests;
      for (const auto& test : change["tests"]) {
        tests += (tests.empty() ? "" : "; ") + test["test"].get<std::string>() + " " +
                 number(test["before"].get<double>()) + " -> " + number(test["after"].get<double>());
      }
      out << (tests.empty() ? "" : ", on " + tests) << "\n";
    }
  }
  return out.str();
}

}  // namespace launchlab::classroom
