// The files lab 07 embeds (labs/07_qmd/CMakeLists.txt, EMBED), read from the
// source tree: run.sh builds the lab's sources without CMake, so the
// generated embedded_files.cpp is not there.
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>

namespace launchlab::lab_files {

std::string_view lab_07_qmd(std::string_view path) {
  static std::map<std::string, std::string, std::less<>> files;
  auto found = files.find(path);
  if (found == files.end()) {
    std::ifstream in(std::string(LAUNCHLAB_LAB_07_DIR) + "/" + std::string(path), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    found = files.emplace(std::string(path), text.str()).first;
  }
  return found->second;
}

}  // namespace launchlab::lab_files
