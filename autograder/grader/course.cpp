#include "launchlab/grader/course.h"

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "launchlab/grader/value.h"

namespace launchlab::grader {
namespace fs = std::filesystem;

bool LabTest::needs_gpu() const { return std::find(needs.begin(), needs.end(), "gpu") != needs.end(); }

int Lab::max_points() const {
  int total = 0;
  for (const auto& test : tests) total += test.points;
  return total;
}

const std::vector<std::string>& known_needs() {
  static const std::vector<std::string> needs = {"gpu", "cuobjdump", "nvdisasm"};
  return needs;
}

namespace {

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> string_list(const Value& value, const std::string& what) {
  std::vector<std::string> out;
  if (!value.is_array()) throw std::runtime_error(what + " must be an array of strings");
  for (const auto& item : value.as_array()) {
    if (!item.is_string()) throw std::runtime_error(what + " must be an array of strings");
    out.push_back(item.as_string());
  }
  return out;
}

const Value& required(const Value& table, const std::string& key) {
  const Value* value = table.find(key);
  if (!value) throw std::runtime_error("missing key '" + key + "'");
  return *value;
}

}  // namespace

std::vector<LabTest> read_tests(const Value& tables, const std::vector<LabTest>& already) {
  if (!tables.is_array() || tables.as_array().empty()) throw std::runtime_error("there must be at least one [[tests]] table");
  std::set<std::string> seen;
  for (const auto& test : already) seen.insert(test.name);
  std::vector<LabTest> tests;
  for (const auto& table : tables.as_array()) {
    LabTest test;
    const Value& name = required(table, "name");
    if (!name.is_string() || !std::regex_match(name.as_string(), std::regex("[A-Za-z_][A-Za-z0-9_]*\\.[A-Za-z_][A-Za-z0-9_/]*"))) {
      throw std::runtime_error("a test name must be GoogleTest's Suite.Name");
    }
    test.name = name.as_string();
    if (!seen.insert(test.name).second) throw std::runtime_error("test " + test.name + " is listed twice");
    const Value& points = required(table, "points");
    if (!points.is_int() || points.as_int() <= 0) throw std::runtime_error("test " + test.name + ": points must be a positive integer");
    test.points = static_cast<int>(points.as_int());
    if (const Value* needs = table.find("needs")) {
      test.needs = string_list(*needs, "test " + test.name + ": needs");
      for (const auto& need : test.needs) {
        if (std::find(known_needs().begin(), known_needs().end(), need) == known_needs().end()) {
          throw std::runtime_error("test " + test.name + ": unknown need '" + need + "'");
        }
      }
    }
    tests.push_back(std::move(test));
  }
  return tests;
}

std::vector<LabTest> read_private_tests(const fs::path& tests_toml, const std::vector<LabTest>& already) {
  try {
    Value doc = parse_toml(read_text(tests_toml));
    std::vector<LabTest> tests = read_tests(required(doc, "tests"), already);
    for (auto& test : tests) test.is_private = true;
    return tests;
  } catch (const std::exception& error) {
    throw std::runtime_error(tests_toml.string() + ": " + error.what());
  }
}

Lab load_lab(const fs::path& lab_dir) {
  fs::path toml_path = lab_dir / "lab.toml";
  Lab lab;
  lab.slug = lab_dir.filename().string();
  try {
    if (!std::regex_match(lab.slug, std::regex("[0-9][0-9]_[a-z0-9_]+"))) {
      throw std::runtime_error("the folder name is not a slug of the form NN_words");
    }
    Value doc = parse_toml(read_text(toml_path));
    const Value& title = required(doc, "title");
    if (!title.is_string() || title.as_string().empty()) throw std::runtime_error("title must be a non-empty string");
    lab.title = title.as_string();
    const Value& chapter = required(doc, "chapter");
    if (!chapter.is_int()) throw std::runtime_error("chapter must be an integer");
    lab.chapter = static_cast<int>(chapter.as_int());
    lab.student_files = string_list(required(doc, "student_files"), "student_files");
    if (lab.student_files.empty()) throw std::runtime_error("student_files is empty");
    for (const auto& file : lab.student_files) {
      // A student file is a plain name inside the lab folder: the grader
      // copies exactly these, so nothing may point elsewhere.
      if (file.empty() || file.find('/') != std::string::npos || file.find("..") != std::string::npos ||
          file.front() == '.') {
        throw std::runtime_error("student file '" + file + "' is not a plain file name");
      }
    }
    lab.hints = string_list(required(doc, "hints"), "hints");
    if (const Value* timeout = doc.find("timeout_seconds")) {
      if (!timeout->is_int() || timeout->as_int() <= 0) throw std::runtime_error("timeout_seconds must be a positive integer");
      lab.timeout_seconds = static_cast<int>(timeout->as_int());
    }
    if (const Value* timeout = doc.find("test_timeout_seconds")) {
      if (!timeout->is_int() || timeout->as_int() <= 0) throw std::runtime_error("test_timeout_seconds must be a positive integer");
      lab.test_timeout_seconds = static_cast<int>(timeout->as_int());
    }
    lab.tests = read_tests(required(doc, "tests"), {});
  } catch (const std::exception& error) {
    throw std::runtime_error(toml_path.string() + ": " + error.what());
  }
  return lab;
}

std::vector<Lab> load_course(const fs::path& root) {
  std::vector<fs::path> dirs;
  fs::path labs_dir = root / "labs";
  if (!fs::is_directory(labs_dir)) throw std::runtime_error("no labs/ folder in " + root.string());
  for (const auto& entry : fs::directory_iterator(labs_dir)) {
    std::string name = entry.path().filename().string();
    if (entry.is_directory() && name.size() > 3 && std::isdigit(static_cast<unsigned char>(name[0])) &&
        std::isdigit(static_cast<unsigned char>(name[1])) && name[2] == '_') {
      dirs.push_back(entry.path());
    }
  }
  std::sort(dirs.begin(), dirs.end());
  std::vector<Lab> labs;
  for (const auto& dir : dirs) labs.push_back(load_lab(dir));
  return labs;
}

std::optional<Lab> find_lab(const std::vector<Lab>& labs, const std::string& which) {
  for (const auto& lab : labs) {
    if (lab.slug == which || lab.number() == which) return lab;
    if (!which.empty() && which.size() <= 3 && std::all_of(which.begin(), which.end(), ::isdigit) && std::stoi(which) == lab.chapter) return lab;
  }
  return std::nullopt;
}

}  // namespace launchlab::grader
