// A class's submissions: plain folders, or Gradescope's export, whose
// metadata is YAML read through yaml-cpp.
#include "launchlab/class/roster.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#if LAUNCHLAB_HAVE_YAML_CPP
#include <yaml-cpp/yaml.h>
#endif

namespace launchlab::classroom {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

#if LAUNCHLAB_HAVE_YAML_CPP
json node_as_json(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Sequence: {
      json items = json::array();
      for (const auto& item : node) items.push_back(node_as_json(item));
      return items;
    }
    case YAML::NodeType::Map: {
      json members = json::object();
      for (const auto& member : node) members[member.first.as<std::string>()] = node_as_json(member.second);
      return members;
    }
    case YAML::NodeType::Scalar:
      return node.as<std::string>();
    default:
      return nullptr;
  }
}
#endif

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// A field of a Psych-written mapping: ":name", or "name" where the export
/// was rewritten by another tool.
std::string field(const json& object, const std::string& name) {
  for (const std::string& key : {":" + name, name}) {
    auto found = object.find(key);
    if (found != object.end() && found->is_string()) return found->get<std::string>();
  }
  return "";
}

/// Gives each submission a key of its own: a second one with the same key
/// takes its folder's name after it.
void keep_keys_apart(std::vector<ClassSubmission>& submissions) {
  std::stable_sort(submissions.begin(), submissions.end(),
            [](const ClassSubmission& a, const ClassSubmission& b) { return a.student < b.student; });
  std::set<std::string> taken;
  for (auto& submission : submissions) {
    if (!taken.insert(submission.student).second) {
      submission.student = student_key(submission.student + "-" + submission.folder.filename().string());
      taken.insert(submission.student);
    }
  }
  std::stable_sort(submissions.begin(), submissions.end(),
            [](const ClassSubmission& a, const ClassSubmission& b) { return a.student < b.student; });
}

}  // namespace

std::int64_t modified_at(const fs::path& path) {
  struct stat info {};
  if (lstat(path.c_str(), &info) != 0) return 0;
  return static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec;
}

std::int64_t newest_change(const fs::path& folder) {
  std::int64_t newest = modified_at(folder);
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(folder, fs::directory_options::skip_permission_denied, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    newest = std::max(newest, modified_at(it->path()));
  }
  return newest;
}

json yaml_as_json(std::string_view text) {
#if LAUNCHLAB_HAVE_YAML_CPP
  try {
    return node_as_json(YAML::Load(std::string(text)));
  } catch (const YAML::Exception& error) {
    throw std::runtime_error("line " + std::to_string(error.mark.line + 1) + ": " + error.msg);
  }
#else
  (void)text;
  throw std::runtime_error("this launchlab was built without yaml-cpp (Debian's libyaml-cpp-dev), which reads YAML");
#endif
}

std::string student_key(std::string_view raw) {
  std::string key;
  for (char c : trim(raw)) {
    const bool kept = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == '@';
    key += kept ? c : '_';
  }
  // Nor hidden, nor a way out of OUT (OUT/.launchlab is grade-class's own).
  if (key.empty() || key.front() == '.') key = "_" + key;
  return key;
}

std::vector<ClassSubmission> read_gradescope_metadata(std::string_view yaml_text, const fs::path& export_dir) {
  json metadata;
  try {
    metadata = yaml_as_json(yaml_text);
  } catch (const std::exception& error) {
    throw std::runtime_error("submission_metadata.yml: " + std::string(error.what()));
  }
  if (!metadata.is_object()) throw std::runtime_error("submission_metadata.yml holds no submissions");
  std::vector<ClassSubmission> submissions;
  for (const auto& [folder, entry] : metadata.items()) {
    ClassSubmission submission;
    submission.folder = export_dir / folder;
    if (folder.find('/') != std::string::npos || folder == "." || folder == ".." ||
        !fs::is_directory(fs::symlink_status(submission.folder))) {
      throw std::runtime_error("submission_metadata.yml names '" + folder + "', which is not a folder of " +
                               export_dir.string());
    }
    const json* submitters = nullptr;
    if (entry.is_object()) {
      for (const char* key : {":submitters", "submitters"}) {
        if (auto found = entry.find(key); found != entry.end() && found->is_array()) submitters = &*found;
      }
    }
    if (submitters) {
      for (const auto& person : *submitters) {
        if (person.is_object()) submission.submitters.push_back({field(person, "name"), field(person, "sid"), field(person, "email")});
      }
    }
    if (entry.is_object()) submission.submitted_at = field(entry, "created_at");
    std::string key = folder;
    if (!submission.submitters.empty()) {
      const Submitter& first = submission.submitters.front();
      key = !first.sid.empty() ? first.sid : !first.email.empty() ? first.email : !first.name.empty() ? first.name : folder;
    }
    submission.student = student_key(key);
    submissions.push_back(std::move(submission));
  }
  keep_keys_apart(submissions);
  return submissions;
}

std::vector<ClassSubmission> find_class_submissions(const fs::path& dir) {
  if (!fs::is_directory(dir)) throw std::runtime_error("no submissions folder " + dir.string());
  if (fs::exists(dir / "submission_metadata.yml")) {
    return read_gradescope_metadata(read_text(dir / "submission_metadata.yml"), dir);
  }
  if (fs::is_directory(dir / "labs")) {
    throw std::runtime_error(dir.string() + " holds labs/, so it looks like one submission: give the folder that "
                             "holds one folder per student");
  }
  std::vector<ClassSubmission> submissions;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(".") || entry.is_symlink() || !entry.is_directory()) continue;
    submissions.push_back({student_key(name), entry.path(), {}, {}});
  }
  keep_keys_apart(submissions);
  return submissions;
}

}  // namespace launchlab::classroom
