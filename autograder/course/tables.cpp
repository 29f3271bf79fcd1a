#include "launchlab/course/tables.h"

#include <algorithm>
#include <map>
#include <sstream>

namespace launchlab::course {

const ChapterTable& readme_table() {
  static const ChapterTable table{{"NN", "chapter", "lab", "GPU"}, ""};
  return table;
}

const ChapterTable& site_table() {
  static const ChapterTable table{{"NN", "chapter", "what you build", "GPU needed"}, "../chapters/"};
  return table;
}

namespace {

std::string escape_cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string trim(std::string_view text) {
  auto begin = text.find_first_not_of(" \t\r");
  if (begin == std::string_view::npos) return "";
  auto end = text.find_last_not_of(" \t\r");
  return std::string(text.substr(begin, end - begin + 1));
}

/// The cells of a Markdown table row ("| a | b |"), with "\|" kept as it is
/// written; nothing when the line is not a row.
std::vector<std::string> cells_of(std::string_view line) {
  std::string text = trim(line);
  if (text.size() < 2 || text.front() != '|') return {};
  std::vector<std::string> cells;
  std::string cell;
  for (std::size_t i = 1; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '|') {
      cell += "\\|";
      ++i;
    } else if (text[i] == '|') {
      cells.push_back(trim(cell));
      cell.clear();
    } else {
      cell += text[i];
    }
  }
  if (!trim(cell).empty()) cells.push_back(trim(cell));  // a row without its closing '|'
  return cells;
}

bool is_separator(const std::vector<std::string>& cells) {
  if (cells.empty()) return false;
  return std::all_of(cells.begin(), cells.end(), [](const std::string& cell) {
    return !cell.empty() && cell.find_first_not_of(":-") == std::string::npos && cell.find('-') != std::string::npos;
  });
}

std::string row_text(const std::vector<std::string>& cells) {
  std::string out = "|";
  for (const auto& cell : cells) out += " " + cell + " |";
  return out;
}

}  // namespace

std::vector<std::string> chapter_row(const Lab& lab, const ChapterTable& table) {
  std::string title = escape_cell(lab.title);
  if (!table.chapter_links.empty()) title = "[" + title + "](" + table.chapter_links + lab.slug + "/index.md)";
  return {lab.number(), title, escape_cell(lab.summary), std::string(to_string(lab.gpu_need()))};
}

std::string chapter_table_markdown(const std::vector<Lab>& labs, const ChapterTable& table) {
  std::string out = row_text(table.headers) + "\n|";
  for (std::size_t i = 0; i < table.headers.size(); ++i) out += "---|";
  out += "\n";
  for (const auto& lab : labs) out += row_text(chapter_row(lab, table)) + "\n";
  return out;
}

std::vector<std::string> check_chapter_table(std::string_view markdown, const std::string& file_name,
                                             const std::vector<Lab>& labs, const ChapterTable& table) {
  std::vector<std::string> problems;
  std::vector<std::string> lines;
  {
    std::istringstream in{std::string(markdown)};
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  auto header = std::find_if(lines.begin(), lines.end(), [&](const std::string& line) { return cells_of(line) == table.headers; });
  if (header == lines.end()) {
    problems.push_back(file_name + ": no chapter table (a Markdown table whose header is " + row_text(table.headers) + ")");
    return problems;
  }
  auto at = [&](std::size_t index) { return file_name + ":" + std::to_string(index + 1) + ": "; };
  std::size_t index = static_cast<std::size_t>(header - lines.begin()) + 1;
  if (index >= lines.size() || !is_separator(cells_of(lines[index]))) {
    problems.push_back(at(index) + "the chapter table's header is not followed by its |---| line");
    return problems;
  }

  std::map<std::string, const Lab*> by_number;
  for (const auto& lab : labs) by_number[lab.number()] = &lab;
  std::map<std::string, std::size_t> row_of;  // lab number -> line index
  std::string previous;
  for (++index; index < lines.size(); ++index) {
    std::vector<std::string> cells = cells_of(lines[index]);
    if (cells.empty()) break;
    if (cells.size() != table.headers.size()) {
      problems.push_back(at(index) + "a row of " + std::to_string(cells.size()) + " cells; the chapter table has " +
                         std::to_string(table.headers.size()));
      continue;
    }
    const std::string& number = cells[0];
    auto lab = by_number.find(number);
    if (lab == by_number.end()) {
      problems.push_back(at(index) + "row " + number + ": there is no lab " + number + " in labs/");
      continue;
    }
    if (row_of.count(number)) {
      problems.push_back(at(index) + "row " + number + " again (first on line " + std::to_string(row_of[number] + 1) + ")");
      continue;
    }
    row_of[number] = index;
    if (number < previous) problems.push_back(at(index) + "row " + number + " comes after row " + previous + ": the rows follow the labs' numbers");
    previous = std::max(previous, number);

    const Lab& expected = *lab->second;
    const std::string source = "labs/" + expected.slug + "/lab.toml";
    std::vector<std::string> wanted = chapter_row(expected, table);
    for (std::size_t column = 1; column < wanted.size(); ++column) {
      if (column == 2 && expected.summary.empty()) continue;  // the linter reports the missing summary
      if (cells[column] == wanted[column]) continue;
      std::string says = at(index) + "row " + number + ": the " + table.headers[column] + " column says '" + cells[column] + "' but ";
      if (column == 3) {
        auto on_gpu = std::count_if(expected.tests.begin(), expected.tests.end(), [](const LabTest& t) { return t.needs_gpu(); });
        problems.push_back(says + "the needs in " + source + " make it '" + wanted[column] + "' (" + std::to_string(on_gpu) +
                           " of " + std::to_string(expected.tests.size()) + " tests need a GPU)");
      } else {
        problems.push_back(says + "the " + (column == 1 ? "title" : "summary") + " in " + source + " is '" + wanted[column] + "'");
      }
    }
  }
  for (const auto& lab : labs) {
    if (!row_of.count(lab.number())) {
      problems.push_back(file_name + ": no row for lab " + lab.slug + "; it would read " + row_text(chapter_row(lab, table)));
    }
  }
  return problems;
}

}  // namespace launchlab::course
