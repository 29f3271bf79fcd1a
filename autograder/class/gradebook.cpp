// Gradebook rows, the gradebook's CSV and its summary.
#include "launchlab/class/gradebook.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace launchlab::classroom {
using nlohmann::json;

// ------------------------------------------------------------ rows

namespace {

int int_of(const json& object, const char* key) {
  auto found = object.find(key);
  if (found == object.end() || !found->is_number()) return 0;
  return static_cast<int>(std::lround(found->get<double>()));
}

std::string string_of(const json& object, const char* key) {
  auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : "";
}

void flag(GradebookRow& row, const std::string& name) {
  if (std::find(row.flags.begin(), row.flags.end(), name) == row.flags.end()) row.flags.push_back(name);
}

/// Whether a value of extra_data asks for a regrade: true, or a non-empty
/// string or list (the reasons).
bool asks_regrade(const json& extra) {
  auto found = extra.find("regrade");
  if (found == extra.end()) return false;
  if (found->is_boolean()) return found->get<bool>();
  if (found->is_string() || found->is_array() || found->is_object()) return !found->empty();
  return false;
}

}  // namespace

GradebookRow row_from_results(const json& results) {
  GradebookRow row;
  if (!results.is_object()) {
    flag(row, "grader-error");
    return row;
  }
  row.total = int_of(results, "score");
  const json extra = results.value("extra_data", json::object());
  if (extra.is_object()) {
    row.graded_max = int_of(extra, "gradable_max_score");
    row.not_graded = int_of(extra, "not_gradable_points");
    if (asks_regrade(extra)) flag(row, "regrade");
  }
  const json tests = results.value("tests", json::array());
  if (tests.is_array()) {
    for (const auto& test : tests) {
      if (!test.is_object()) continue;
      const json test_extra = test.value("extra_data", json::object());
      std::string lab = test_extra.is_object() ? string_of(test_extra, "lab") : "";
      if (lab.empty()) {
        // A results.json of another grader: the lab is the test name's prefix.
        std::string name = string_of(test, "name");
        lab = name.substr(0, name.find(':'));
      }
      row.lab_points[lab] += int_of(test, "score");
      const std::string outcome = test_extra.is_object() ? string_of(test_extra, "outcome") : "";
      row.lab_max[lab] += test_extra.is_object() && test_extra.contains("points_if_graded")
                              ? int_of(test_extra, "points_if_graded")
                              : int_of(test, "max_score");
      if (outcome == "regrade" || (test_extra.is_object() && asks_regrade(test_extra))) flag(row, "regrade");
      if (outcome == "not graded") flag(row, "course-problem");
    }
  }
  if (string_of(results, "output").starts_with("The grader could not grade")) flag(row, "grader-error");
  for (const auto& figure : results.value("leaderboard", json::array())) {
    if (figure.is_object() && figure.contains("value") && figure["value"].is_number()) {
      row.leaderboard.push_back({string_of(figure, "name"), figure["value"].get<double>(), string_of(figure, "order") == "asc"});
    }
  }
  return row;
}

namespace {

int sum_late(const GradebookRow& row, int LateLab::*field) {
  int sum = 0;
  for (const auto& [slug, lab] : row.late) sum += lab.*field;
  return sum;
}

}  // namespace

int GradebookRow::late_days() const { return sum_late(*this, &LateLab::late_days); }
int GradebookRow::grace_days_used() const { return sum_late(*this, &LateLab::grace_days_used); }
int GradebookRow::penalty() const { return sum_late(*this, &LateLab::penalty); }

// ------------------------------------------------------------ CSV

std::string csv_cell(std::string_view text) {
  std::string cell(text);
  if (!cell.empty() && (cell.front() == '=' || cell.front() == '+' || cell.front() == '-' || cell.front() == '@')) {
    // A number stays a number; anything else a spreadsheet could run is made text.
    const bool number = cell.size() > 1 && cell.front() == '-' &&
                        cell.find_first_not_of("0123456789.", 1) == std::string::npos;
    if (!number) cell = "'" + cell;
  }
  if (cell.find_first_of(",\"\r\n") == std::string::npos) return cell;
  std::string quoted = "\"";
  for (char c : cell) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string csv_line(const std::vector<std::string>& cells) {
  std::string line;
  for (std::size_t i = 0; i < cells.size(); ++i) line += (i ? "," : "") + csv_cell(cells[i]);
  return line + "\r\n";
}

std::string gradebook_csv(const std::vector<std::string>& labs, const std::vector<GradebookRow>& rows) {
  std::ostringstream out;
  auto line = [&](const std::vector<std::string>& cells) { out << csv_line(cells); };
  std::vector<std::string> header = {"student", "name", "email"};
  header.insert(header.end(), labs.begin(), labs.end());
  header.insert(header.end(),
                {"total", "late_days", "grace_days_used", "penalty", "final", "graded_max", "not_graded", "flags", "seed"});
  line(header);
  for (const auto& row : rows) {
    std::vector<std::string> cells = {row.student, row.name, row.email};
    for (const auto& lab : labs) {
      auto found = row.lab_points.find(lab);
      cells.push_back(found == row.lab_points.end() ? "" : std::to_string(found->second));
    }
    std::string flags;
    for (const auto& name : row.flags) flags += (flags.empty() ? "" : " ") + name;
    cells.insert(cells.end(), {std::to_string(row.total), std::to_string(row.late_days()),
                               std::to_string(row.grace_days_used()), std::to_string(row.penalty()),
                               std::to_string(row.final_points()), std::to_string(row.graded_max),
                               std::to_string(row.not_graded), flags, row.seed});
    line(cells);
  }
  return out.str();
}

// ------------------------------------------------------------ summary

json summary_json(const std::vector<std::string>& labs, const std::vector<GradebookRow>& rows) {
  json summary;
  json lab_list = json::array();
  auto column = [&](const std::string& name, auto points_of, auto max_of) {
    json points = json::array();
    int most = 0;
    for (const auto& row : rows) {
      if (std::find(row.flags.begin(), row.flags.end(), "no-results") != row.flags.end()) continue;
      if (auto value = points_of(row)) points.push_back(*value);
      most = std::max(most, max_of(row));
    }
    return json{{"name", name}, {"max_points", most}, {"points", points}};
  };
  for (const auto& lab : labs) {
    lab_list.push_back(column(
        lab,
        [&](const GradebookRow& row) -> std::optional<int> {
          auto found = row.lab_points.find(lab);
          return found == row.lab_points.end() ? std::nullopt : std::optional<int>(found->second);
        },
        [&](const GradebookRow& row) {
          auto found = row.lab_max.find(lab);
          return found == row.lab_max.end() ? 0 : found->second;
        }));
  }
  summary["labs"] = lab_list;
  summary["total"] = column(
      "total", [](const GradebookRow& row) -> std::optional<int> { return row.total; },
      [](const GradebookRow& row) { return row.graded_max + row.not_graded; });
  json flagged = json::object();
  json seconds = json::array();
  for (const auto& row : rows) {
    if (!row.flags.empty()) flagged[row.student] = row.flags;
    if (row.seconds) seconds.push_back(*row.seconds);
  }
  summary["students"] = rows.size();
  summary["flagged"] = flagged;
  summary["seconds_per_grading"] = seconds;
  return summary;
}

namespace {

std::string figures(const json& points) {
  std::vector<double> values;
  for (const auto& value : points) values.push_back(value.get<double>());
  if (values.empty()) return "| 0 | | | | |";
  std::sort(values.begin(), values.end());
  double mean = 0;
  for (double value : values) mean += value;
  mean /= static_cast<double>(values.size());
  const std::size_t middle = values.size() / 2;
  const double median = values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
  std::ostringstream row;
  row << std::fixed << std::setprecision(1) << "| " << values.size() << " | " << mean << " | " << median << " | "
      << std::setprecision(0) << values.front() << " | " << values.back() << " |";
  return row.str();
}

}  // namespace

std::string summary_markdown(const json& summary) {
  std::ostringstream out;
  out << "# Class grading\n\n" << summary.value("students", 0) << " students.\n\n";
  out << "| | max | graded | mean | median | lowest | highest |\n|---|---|---|---|---|---|---|\n";
  auto line = [&](const json& column) {
    out << "| " << column.value("name", "") << " | " << column.value("max_points", 0) << " "
        << figures(column.value("points", json::array())) << "\n";
  };
  for (const auto& lab : summary.value("labs", json::array())) line(lab);
  line(summary.value("total", json::object()));
  const json seconds = summary.value("seconds_per_grading", json::array());
  if (!seconds.empty()) {
    double total = 0;
    for (const auto& value : seconds) total += value.get<double>();
    out << "\nA grading took " << std::fixed << std::setprecision(1) << total / static_cast<double>(seconds.size())
        << " s on average (" << seconds.size() << " gradings of this run and earlier ones).\n";
  }
  const json flagged = summary.value("flagged", json::object());
  if (flagged.empty()) {
    out << "\nNo student is flagged.\n";
  } else {
    out << "\nFlagged:\n\n";
    for (const auto& [student, flags] : flagged.items()) {
      std::string words;
      for (const auto& name : flags) words += (words.empty() ? "" : ", ") + name.get<std::string>();
      out << "- " << student << ": " << words << "\n";
    }
    out << "\n`regrade`: a timing test ran while the GPU was throttled or shared, grade again with --regrade; "
           "`no-results`: the grading left no results.json; `grader-error`: the grader could not grade the "
           "submission (results.json says why); `course-problem`: a test could not be graded because of the course; "
           "`--regrade-failed` grades all of these again.\n";
  }
  return out.str();
}

}  // namespace launchlab::classroom
