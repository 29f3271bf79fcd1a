// A student edition's expectations: read by `launchlab test` and `grade` in a
// tree without solutions (expectations.h; written by `launchlab export-student`).
#include "launchlab/grader/expectations.h"

#include "launchlab/grader/stages.h"

namespace launchlab::grader {
namespace fs = std::filesystem;

std::string Expectations::made_on_gpu() const {
  const auto made_on = manifest.value("made_on", nlohmann::json::object());
  return made_on.is_object() && made_on.contains("gpu") && made_on["gpu"].is_string() ? made_on["gpu"].get<std::string>()
                                                                                       : std::string();
}

std::map<std::string, std::string> Expectations::judged_by_grader(const Lab& lab, const Capabilities& here) const {
  std::map<std::string, std::string> elsewhere;
  const nlohmann::json labs = manifest.value("labs", nlohmann::json::object());
  if (labs.is_object() && labs.contains(lab.slug)) {
    const nlohmann::json listed = labs[lab.slug].value("judged_by_grader", nlohmann::json::object());
    for (const auto& [name, why] : listed.items()) elsewhere[name] = why.is_string() ? why.get<std::string>() : "";
  }
  // A GPU's figures are that GPU's: expectations made on another one judge
  // nothing here.
  const std::string made_on = made_on_gpu();
  if (here.gpu && !made_on.empty() && made_on != here.gpu_detail) {
    for (const auto& test : lab.tests) {
      if (test.needs_gpu() && !elsewhere.count(test.name)) {
        elsewhere[test.name] = "its expectations were made on " + made_on + ", and this GPU is " + here.gpu_detail;
      }
    }
  }
  return elsewhere;
}

std::optional<Expectations> find_expectations(const fs::path& course_root) {
  const fs::path folder = course_root / kExpectationsFolder;
  const fs::path manifest = folder / "expectations.json";
  if (!fs::is_regular_file(manifest)) return std::nullopt;
  nlohmann::json parsed = nlohmann::json::parse(read_text(manifest), nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    throw std::runtime_error(manifest.string() + " is not a JSON object: export the student edition again");
  }
  return Expectations{folder, std::move(parsed)};
}

void use_expectations(const Expectations& expectations, const Lab& lab, const Capabilities& here, RunSettings& settings) {
  settings.expectations = expectations.transcript(lab);
  settings.judged_by_grader = expectations.judged_by_grader(lab, here);
}

}  // namespace launchlab::grader
