#include "course_context.h"

#include <cstdlib>

namespace launchlab::cli {

namespace fs = std::filesystem;
using grader::Lab;

Context course_context() {
  const char* root = std::getenv("LAUNCHLAB_ROOT");
  const char* build = std::getenv("LAUNCHLAB_BUILD_DIR");
  return {root && *root ? fs::path(root) : fs::path(LAUNCHLAB_SOURCE_DIR),
          build && *build ? fs::path(build) : fs::path(LAUNCHLAB_BINARY_DIR)};
}

const std::vector<Lab>& CourseLabs::labs() {
  if (!labs_) labs_ = grader::load_course(root_);
  return *labs_;
}

Lab CourseLabs::lab(const std::string& slug) { return *grader::find_lab(labs(), slug); }

CLI::Validator CourseLabs::lab_number(bool defer_broken_course) {
  return CLI::Validator(
      [this, defer_broken_course](std::string& which) -> std::string {
        try {
          if (auto found = grader::find_lab(labs(), which)) {
            which = found->slug;
            return "";
          }
        } catch (const std::exception& error) {
          if (defer_broken_course) return "";
          return error.what();
        }
        std::string known;
        for (const auto& lab : labs()) known += " " + lab.number();
        return "no lab '" + which + "'; the labs are" + known;
      },
      "");
}

}  // namespace launchlab::cli
