#include "launchlab/cli/given_code.h"

#include <algorithm>
#include <cctype>

namespace launchlab::cli {
namespace {

struct CodeLine {
  std::string text;     // with white space folded to single spaces
  std::size_t number;   // 1-based, in the file
};

// Folds runs of white space into one space and trims both ends.
std::string folded(std::string_view line) {
  std::string out;
  for (char c : line) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// A line without a letter, a digit or an underscore: braces, semicolons,
// parentheses. Shared by every pair of C++ files, so never evidence.
bool punctuation_only(std::string_view line) {
  return std::none_of(line.begin(), line.end(),
                      [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// The code lines of a C++ or CUDA source. Block comments are followed across
// lines; a line that holds code and a trailing comment keeps its code.
std::vector<CodeLine> code_lines(std::string_view text) {
  std::vector<CodeLine> lines;
  bool in_block_comment = false;
  std::size_t number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view raw = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++number;

    std::string code;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (in_block_comment) {
        if (raw.compare(i, 2, "*/") == 0) {
          in_block_comment = false;
          ++i;
        }
        continue;
      }
      if (raw.compare(i, 2, "/*") == 0) {
        in_block_comment = true;
        ++i;
        continue;
      }
      if (raw.compare(i, 2, "//") == 0) break;
      code += raw[i];
    }
    std::string line = folded(code);
    if (line.empty() || line[0] == '#' || punctuation_only(line)) continue;
    lines.push_back({std::move(line), number});
  }
  return lines;
}

}  // namespace

std::vector<SharedRun> shared_code_runs(std::string_view starter, std::string_view solution, std::size_t most) {
  const std::vector<CodeLine> a = code_lines(starter);
  const std::vector<CodeLine> b = code_lines(solution);
  // ending[i][j]: how many code lines end together at a[i - 1] and b[j - 1].
  std::vector<std::vector<std::size_t>> ending(a.size() + 1, std::vector<std::size_t>(b.size() + 1, 0));
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      if (a[i - 1].text == b[j - 1].text) ending[i][j] = ending[i - 1][j - 1] + 1;
    }
  }
  // A run is kept where it ends: at a file's last code line, or where the
  // next pair of lines differs.
  std::vector<SharedRun> runs;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t length = ending[i][j];
      const bool goes_on = i < a.size() && j < b.size() && ending[i + 1][j + 1] > 0;
      if (length > most && !goes_on) {
        runs.push_back({{a[i - length].number, a[i - 1].number}, {b[j - length].number, b[j - 1].number}, length});
      }
    }
  }
  std::sort(runs.begin(), runs.end(),
            [](const SharedRun& x, const SharedRun& y) { return x.starter.first < y.starter.first; });
  return runs;
}

std::string describe_shared_run(const std::string& file, const SharedRun& run) {
  auto lines = [](const LineRange& range) {
    return "lines " + std::to_string(range.first) + "-" + std::to_string(range.last);
  };
  return "the starter " + file + " (" + lines(run.starter) + ") and its solution (" + lines(run.solution) + ") share " + std::to_string(run.code_lines) +
         " lines of code: a student file holds only what the learner writes, so move code both hold to a given "
         "file of the lab";
}

}  // namespace launchlab::cli
