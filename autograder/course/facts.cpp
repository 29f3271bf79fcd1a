// launchlab-course-facts ROOT OUT_DIR: what the build needs from the course
// model, written when the course is configured (cmake/LaunchlabLab.cmake
// builds this program from the model's sources and runs it):
//
//   OUT_DIR/course.json        facts_json(): the labs, their student files and tests
//   OUT_DIR/chapter-table.md   the chapter table of the site's home page
//
// A file whose content did not change is left as it is, so that nothing
// built from it is built again. When a lab.toml breaks a rule, each problem
// goes to stderr and the exit status is 1.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "launchlab/course/model.h"
#include "launchlab/course/tables.h"

namespace fs = std::filesystem;
using namespace launchlab::course;

namespace {

void write_if_changed(const fs::path& path, const std::string& text) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream old;
  old << in.rdbuf();
  if (in && old.str() == text) return;
  in.close();
  fs::path next = path;
  next += ".new";
  std::ofstream(next, std::ios::binary) << text;
  fs::rename(next, path);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: launchlab-course-facts ROOT OUT_DIR\n";
    return 2;
  }
  Course course = read_course(argv[1]);
  for (const auto& problem : course.problems) std::cerr << problem << "\n";
  if (!course.problems.empty()) return 1;
  try {
    fs::create_directories(argv[2]);
    write_if_changed(fs::path(argv[2]) / "course.json", facts_json(course.labs));
    write_if_changed(fs::path(argv[2]) / "chapter-table.md", chapter_table_markdown(course.labs, site_table()));
  } catch (const std::exception& error) {
    std::cerr << error.what() << "\n";
    return 1;
  }
  return 0;
}
