// Earlier results.json files, kept numbered in each student's history/.
#include "launchlab/class/history.h"

#include <map>

#include "launchlab/class/reports.h"

namespace launchlab::classroom {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// The number of an earlier results.json ("3-results.json"), or 0.
int kept_number(const fs::path& file) {
  const std::string name = file.filename().string();
  if (!name.ends_with("-results.json")) return 0;
  try {
    return std::stoi(name.substr(0, name.find('-')));
  } catch (const std::exception&) {
    return 0;
  }
}

int last_kept(const fs::path& history) {
  int last = 0;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(history, error)) last = std::max(last, kept_number(entry.path()));
  return last;
}

std::optional<json> read_results(const fs::path& path) {
  auto results = read_json(path);
  if (!results || !results->is_object()) return std::nullopt;
  return results;
}

std::map<std::string, double> points_by_test(const json& results) {
  std::map<std::string, double> points;
  for (const auto& test : results.value("tests", json::array())) {
    if (test.is_object() && test.contains("name") && test["name"].is_string()) {
      points[test["name"].get<std::string>()] = test.value("score", 0.0);
    }
  }
  return points;
}

}  // namespace

void keep_earlier_results(const fs::path& student_dir) {
  const fs::path results = student_dir / "results.json";
  if (!fs::exists(results)) return;
  const fs::path history = student_dir / "history";
  fs::create_directories(history);
  fs::rename(results, history / (std::to_string(last_kept(history) + 1) + "-results.json"));
}

std::vector<ScoreChange> regrade_changes(const fs::path& out, const std::vector<std::string>& students) {
  std::vector<ScoreChange> changes;
  for (const auto& student : students) {
    const fs::path history = out / student / "history";
    const int last = last_kept(history);
    if (last == 0) continue;
    auto before = read_results(history / (std::to_string(last) + "-results.json"));
    auto after = read_results(out / student / "results.json");
    if (!before || !after) continue;
    ScoreChange change{student, before->value("score", 0.0), after->value("score", 0.0), {}};
    auto earlier = points_by_test(*before);
    for (const auto& [test, points] : points_by_test(*after)) {
      auto found = earlier.find(test);
      const double was = found == earlier.end() ? 0 : found->second;
      if (found == earlier.end() || was != points) change.tests.push_back({test, was, points});
      if (found != earlier.end()) earlier.erase(found);
    }
    for (const auto& [test, points] : earlier) change.tests.push_back({test, points, 0});
    if (change.before != change.after || !change.tests.empty()) changes.push_back(std::move(change));
  }
  return changes;
}

}  // namespace launchlab::classroom
