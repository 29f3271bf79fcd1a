#include "launchlab/cli/progress.h"

#include <chrono>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>

#include "launchlab/grader/grading.h"

namespace launchlab::cli {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path record_path(const fs::path& folder, const std::string& slug) { return folder / (slug + ".json"); }

json read_record(const fs::path& folder, const std::string& slug) {
  std::ifstream in(record_path(folder, slug));
  if (!in) return json::object();
  json record = json::parse(in, nullptr, false);
  return record.is_object() ? record : json::object();
}

void write_record(const fs::path& folder, const std::string& slug, const json& record) {
  // An interrupted run never leaves half a file.
  launchlab::grader::write_file_atomically(record_path(folder, slug), record.dump(2) + "\n");
}

std::optional<LabScore> score_from(const json& record, const char* key) {
  auto found = record.find(key);
  if (found == record.end() || !found->is_object()) return std::nullopt;
  LabScore score;
  score.points = found->value("points", 0);
  score.gradable = found->value("gradable", 0);
  score.not_gradable = found->value("not_gradable", 0);
  score.when = found->value("when", "");
  score.needs = found->value("needs", std::vector<std::string>{});
  return score;
}

json to_json(const LabScore& score) {
  return {{"points", score.points}, {"gradable", score.gradable}, {"not_gradable", score.not_gradable}, {"when", score.when},
          {"needs", score.needs}};
}

std::string now_utc() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace

fs::path progress_folder(const fs::path& course_root) { return course_root / ".launchlab-progress"; }

LabProgress read_progress(const fs::path& folder, const std::string& slug) {
  LabProgress progress;
  try {
    json record = read_record(folder, slug);
    progress.best = score_from(record, "best");
    progress.last = score_from(record, "last");
    for (int number : record.value("hints_shown", std::vector<int>{})) {
      if (number > 0) progress.hints_shown.insert(number);
    }
  } catch (const json::exception&) {
    return {};
  }
  return progress;
}

void record_run(const fs::path& folder, const std::string& slug, LabScore run) {
  if (run.when.empty()) run.when = now_utc();
  json record = read_record(folder, slug);
  std::optional<LabScore> best;
  try {
    best = score_from(record, "best");
  } catch (const json::exception&) {
  }
  record["last"] = to_json(run);
  if (!best || run.points > best->points) record["best"] = to_json(run);
  write_record(folder, slug, record);
}

void record_hint_shown(const fs::path& folder, const std::string& slug, int number) {
  std::set<int> shown = read_progress(folder, slug).hints_shown;
  shown.insert(number);
  json record = read_record(folder, slug);
  record["hints_shown"] = shown;
  write_record(folder, slug, record);
}

void forget_runs(const fs::path& folder, const std::string& slug) {
  json record = read_record(folder, slug);
  record.erase("best");
  record.erase("last");
  write_record(folder, slug, record);
}

std::string describe(const LabScore& score) {
  std::string text = std::to_string(score.points) + "/" + std::to_string(score.gradable) + " points";
  if (score.not_gradable == 0) return text;
  std::string needs;
  for (const auto& need : score.needs) needs += (needs.empty() ? "" : ", ") + need;
  text += " (+" + std::to_string(score.not_gradable) + (needs.empty() ? " not gradable here)" : " need " + needs + ")");
  return text;
}

}  // namespace launchlab::cli
