// Pairs of similar submissions through sim_c++ (Debian's similarity-tester):
// it compares token streams, so renamed identifiers and reordered functions
// do not hide a copy.
#include "launchlab/class/similarity.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "launchlab/grader/course.h"
#include "launchlab/grader/process.h"
#include "launchlab/grader/stages.h"

namespace launchlab::classroom {
namespace fs = std::filesystem;

namespace {

std::optional<fs::path> on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::istringstream folders(path ? path : "");
  for (std::string folder; std::getline(folders, folder, ':');) {
    std::error_code error;
    if (!folder.empty() && fs::is_regular_file(fs::path(folder) / program, error)) return fs::path(folder) / program;
  }
  return std::nullopt;
}

std::string trimmed(const std::string& line) {
  const auto first = line.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return line.substr(first, line.find_last_not_of(" \t\r") - first + 1);
}

/// The lines of text, those the starter holds blanked out, so that line
/// numbers stay the submission's.
std::string without_starter_lines(const fs::path& file, const std::set<std::string>& starter) {
  std::ifstream in(file, std::ios::binary);
  std::string kept, line;
  while (std::getline(in, line)) kept += (starter.contains(trimmed(line)) ? "" : line) + "\n";
  return kept;
}

std::set<std::string> lines_of(const fs::path& file) {
  std::set<std::string> lines;
  std::ifstream in(file, std::ios::binary);
  for (std::string line; std::getline(in, line);) lines.insert(trimmed(line));
  lines.erase("");
  return lines;
}

/// "STUDENT/FILE" of a copy's path below the lab's folder.
std::pair<std::string, std::string> student_and_file(const fs::path& copy, const fs::path& lab_dir) {
  const fs::path relative = copy.lexically_relative(lab_dir);
  const std::string student = relative.begin()->string();
  return {student, relative.lexically_relative(student).string()};
}

/// For each line of text that pattern matches, the match's groups (0: the whole).
std::vector<std::vector<std::string>> matching_lines(const std::string& text, const std::regex& pattern) {
  std::vector<std::vector<std::string>> matches;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::smatch match;
    if (!std::regex_search(line, match, pattern)) continue;
    matches.emplace_back(match.begin(), match.end());
  }
  return matches;
}

std::string run_sim(const fs::path& sim, std::vector<std::string> options, const std::vector<std::string>& files,
                    const fs::path& cwd) {
  grader::RunLimits limits;
  limits.timeout = std::chrono::minutes(10);
  limits.output_limit = 64u << 20;
  limits.output_kept = 64u << 20;
  options.insert(options.begin(), sim.string());
  options.insert(options.end(), files.begin(), files.end());
  grader::RunOutcome outcome = grader::run_limited(options, cwd, {}, limits);
  if (!outcome.exited_cleanly()) throw std::runtime_error("sim_c++ " + outcome.describe(limits) + ": " + outcome.output);
  return outcome.output;
}

}  // namespace

SimilarityReport compare_submissions(const fs::path& course_root, const std::vector<std::string>& labs,
                                     const std::vector<ClassSubmission>& submissions, int threshold_percent,
                                     const fs::path& work) {
  SimilarityReport report;
  report.threshold_percent = threshold_percent;
  const auto sim = on_path("sim_c++");
  if (!sim) {
    report.why_not = "sim_c++ is not installed (Debian's similarity-tester)";
    return report;
  }
  const auto course = grader::load_course(course_root);
  std::error_code ignored;
  fs::remove_all(work, ignored);
  try {
    for (const auto& slug : labs) {
      auto lab = std::find_if(course.begin(), course.end(), [&](const auto& candidate) { return candidate.slug == slug; });
      if (lab == course.end()) continue;
      const fs::path lab_dir = work / slug;
      std::vector<std::string> copies;
      for (const auto& submission : submissions) {
        const auto found = grader::find_submission_files(submission.folder, {*lab}, course).files;
        const auto files = found.find(slug);
        if (files == found.end()) continue;
        for (const auto& [name, path] : files->second) {
          const fs::path copy = lab_dir / submission.student / name;
          fs::create_directories(copy.parent_path());
          std::ofstream(copy, std::ios::binary)
              << without_starter_lines(path, lines_of(course_root / "labs" / slug / name));
          copies.push_back(copy.lexically_relative(work).string());
        }
      }
      if (copies.size() < 2) continue;
      // Each pair of files: "A consists for N % of B material".
      std::map<std::pair<std::string, std::string>, SimilarPair> pairs;
      static const std::regex share(R"(^(\S+) consists for (\d+) % of (\S+) material)");
      for (const auto& match : matching_lines(run_sim(*sim, {"-p", "-e", "-s"}, copies, work), share)) {
        auto [a, a_file] = student_and_file(work / match[1], lab_dir);
        auto [b, b_file] = student_and_file(work / match[3], lab_dir);
        if (a == b) continue;
        if (b < a) std::swap(a, b);
        SimilarPair& pair = pairs[{a, b}];
        pair.lab = slug;
        pair.first = a;
        pair.second = b;
        pair.percent = std::max(pair.percent, std::stoi(match[2]));
      }
      // Where: "A: line 9-67|B: line 9-67[662]".
      static const std::regex run(R"(^(\S+): line (\d+)-(\d+)\|(\S+): line (\d+)-(\d+)\s*\[(\d+)\])");
      for (const auto& match : matching_lines(run_sim(*sim, {"-e", "-s", "-n"}, copies, work), run)) {
        auto [a, a_file] = student_and_file(work / match[1], lab_dir);
        auto [b, b_file] = student_and_file(work / match[4], lab_dir);
        SharedRegion region{a_file + ":" + match[2] + "-" + match[3],
                            b_file + ":" + match[5] + "-" + match[6], std::stoi(match[7])};
        if (b < a) {
          std::swap(a, b);
          std::swap(region.first_file, region.second_file);
        }
        auto pair = pairs.find({a, b});
        if (a != b && pair != pairs.end()) pair->second.regions.push_back(std::move(region));
      }
      std::vector<SimilarPair> flagged;
      for (auto& [students, pair] : pairs) {
        if (pair.percent > threshold_percent) flagged.push_back(std::move(pair));
      }
      std::stable_sort(flagged.begin(), flagged.end(), [](const auto& x, const auto& y) { return x.percent > y.percent; });
      report.pairs.insert(report.pairs.end(), flagged.begin(), flagged.end());
    }
  } catch (const std::exception& error) {
    report.pairs.clear();
    report.why_not = error.what();
    return report;
  }
  report.checked = true;
  return report;
}

}  // namespace launchlab::classroom
