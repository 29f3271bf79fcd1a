// A folder of a test's own in the temporary folder.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>

/// A new folder in the temporary folder, removed with all it holds when the
/// test ends, however it ends.
class TempFolder {
 public:
  explicit TempFolder(const std::string& tag) {
    std::string pattern = (std::filesystem::temp_directory_path() / ("launchlab-" + tag + "-XXXXXX")).string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed for " + pattern);
    path_ = pattern;
  }
  ~TempFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};
