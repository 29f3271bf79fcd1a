// The assemble stage: what the graded tree is made of, and where each piece
// comes from.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "launchlab/grader/stages.h"

namespace launchlab::grader {
namespace fs = std::filesystem;

namespace {

constexpr std::uintmax_t kStudentFileLimit = 1u << 20;

std::string trim(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

/// Runs a command of the grader's own (git, tar) and returns its output;
/// throws with what it said when it fails.
std::string run_or_throw(const std::vector<std::string>& argv, const fs::path& cwd, const std::string& what) {
  RunLimits limits;
  limits.timeout = std::chrono::minutes(5);
  RunOutcome outcome = run_limited(argv, cwd, {}, limits);
  if (!outcome.exited_cleanly()) {
    throw std::runtime_error(what + " failed (" + outcome.describe(limits) + "): " + outcome.output);
  }
  return outcome.output;
}

void copy_tree(const fs::path& from, const fs::path& to) {
  fs::create_directories(to);
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing | fs::copy_options::skip_symlinks);
}

/// Lets the sandbox read a tree made for it: folders 0755, files 0644 (0755
/// when executable). The copies keep the course's modes otherwise, and an
/// installed course is root's alone (0700 in the grader's image), which left
/// the sandbox user unable to read the learner's sources and the tests' data.
void open_to_the_sandbox(const fs::path& root) {
  using fs::perms;
  const perms folder = perms::owner_all | perms::group_read | perms::group_exec | perms::others_read | perms::others_exec;
  const perms file = perms::owner_read | perms::owner_write | perms::group_read | perms::others_read;
  const perms exec = perms::owner_exec | perms::group_exec | perms::others_exec;
  std::error_code ignored;
  fs::permissions(root, folder, ignored);
  for (auto it = fs::recursive_directory_iterator(root, ignored); it != fs::recursive_directory_iterator(); it.increment(ignored)) {
    const fs::file_status status = it->symlink_status(ignored);
    if (fs::is_directory(status)) {
      fs::permissions(it->path(), folder, ignored);
    } else if (fs::is_regular_file(status)) {
      const bool executable = (status.permissions() & perms::owner_exec) != perms::none;
      fs::permissions(it->path(), executable ? file | exec : file, ignored);
    }
  }
}

/// Makes `into` hold exactly the files of `from`, rewriting only those whose
/// content (or kind, or mode) differs, so that an unchanged file keeps its
/// time and a changed one is newer than anything built from it.
void update_changed_files(const fs::path& from, const fs::path& into) {
  std::error_code ignored;
  fs::create_directories(into);
  std::vector<fs::path> stale;
  for (auto it = fs::recursive_directory_iterator(into); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path counterpart = from / it->path().lexically_relative(into);
    const auto have = it->symlink_status().type();
    if (fs::symlink_status(counterpart, ignored).type() != have) {
      stale.push_back(it->path());
      if (have == fs::file_type::directory) it.disable_recursion_pending();
    }
  }
  for (const auto& path : stale) fs::remove_all(path, ignored);
  for (const auto& entry : fs::recursive_directory_iterator(from)) {
    const fs::path target = into / entry.path().lexically_relative(from);
    const auto kind = entry.symlink_status().type();
    if (kind == fs::file_type::directory) {
      fs::create_directories(target);
    } else if (kind == fs::file_type::symlink) {
      if (!fs::is_symlink(fs::symlink_status(target, ignored)) || fs::read_symlink(target) != fs::read_symlink(entry.path())) {
        fs::remove(target, ignored);
        fs::copy_symlink(entry.path(), target);
      }
    } else if (kind == fs::file_type::regular) {
      const auto mode = entry.symlink_status().permissions();
      if (fs::is_regular_file(fs::symlink_status(target, ignored)) && fs::status(target).permissions() == mode &&
          read_text(target) == read_text(entry.path())) {
        continue;
      }
      fs::remove(target, ignored);
      fs::copy_file(entry.path(), target);
      fs::permissions(target, mode);
    }
  }
}

bool is_test_source(const fs::path& path) {
  static const std::set<std::string> kSources = {".cpp", ".cc", ".cu", ".h", ".hpp", ".cuh", ".inc"};
  return kSources.count(path.extension().string()) > 0;
}

}  // namespace

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

namespace {

/// The private tests' sources, by lab, and a digest of what they hold.
std::map<fs::path, fs::path> private_sources(const fs::path& private_tests, std::string& digest) {
  std::map<fs::path, fs::path> sources;
  if (private_tests.empty() || !fs::is_directory(private_tests)) return sources;
  std::size_t hash = 0;
  for (const auto& lab : fs::directory_iterator(private_tests)) {
    if (!lab.is_directory()) continue;
    for (const auto& entry : fs::directory_iterator(lab.path())) {
      const auto extension = entry.path().extension();
      if (!entry.is_regular_file() || (extension != ".cpp" && extension != ".cu")) continue;
      fs::path to = fs::path("autograder") / "tests" / lab.path().filename() / ("private_" + entry.path().filename().string());
      sources[to] = entry.path();
      hash = hash * 1000003u ^ std::hash<std::string>{}(to.string() + "\n" + read_text(entry.path()));
    }
  }
  digest = sources.empty() ? "" : "private tests " + std::to_string(hash);
  return sources;
}

}  // namespace

CommittedCourse export_committed_course(const fs::path& course_root, const fs::path& into,
                                        const fs::path& private_tests) {
  std::string revision;
  const bool clone = fs::exists(course_root / ".git");
  if (clone) {
    revision = trim(run_or_throw({"git", "-C", course_root.string(), "rev-parse", "HEAD"}, {}, "git rev-parse HEAD"));
  } else if (fs::exists(course_root / ".launchlab-release")) {
    revision = trim(read_text(course_root / ".launchlab-release"));
  } else {
    throw std::runtime_error(course_root.string() +
                             " is neither a git clone nor a release export (no .launchlab-release): the grader grades "
                             "against the committed course only, never a working tree");
  }
  std::string digest;
  auto privates = private_sources(private_tests, digest);
  const std::string key = revision + "\n" + digest;
  const fs::path marker = into / ".launchlab-export";
  if (fs::exists(marker) && read_text(marker) == key) return {into, revision};

  // The new revision is staged beside the export, then only what differs
  // is written into it: the trusted build beside it decides what to rebuild
  // by file times, and git archive dates every file by its commit, which may
  // be older than the last build (an older tag checked out, a rebase).
  std::error_code ignored;
  const fs::path staged = into.parent_path() / (into.filename().string() + ".staged");
  fs::remove_all(staged, ignored);
  fs::create_directories(staged);
  if (clone) {
    const fs::path tarball = into.parent_path() / (into.filename().string() + ".tar");
    run_or_throw({"git", "-C", course_root.string(), "archive", "--format=tar", "-o", tarball.string(), "HEAD"}, {},
                 "git archive HEAD");
    run_or_throw({"tar", "-xf", tarball.string(), "-C", staged.string()}, {}, "unpacking the course");
    fs::remove(tarball, ignored);
  } else {
    copy_tree(course_root, staged);
  }
  for (const auto& [relative, from] : privates) {
    fs::create_directories((staged / relative).parent_path());
    fs::copy_file(from, staged / relative, fs::copy_options::overwrite_existing);
  }
  fs::remove(marker, ignored);
  update_changed_files(staged, into);
  fs::remove_all(staged, ignored);
  std::ofstream(marker) << key;
  return {into, revision};
}

std::vector<std::string> labs_built_on(const fs::path& course_root, const std::string& slug) {
  static const std::regex kUses(R"(USES_LABS([^)]*))");
  static const std::regex kSlug(R"([0-9]{2}_[a-z0-9_]+)");
  std::vector<std::string> labs = {slug};
  for (std::size_t next = 0; next < labs.size(); ++next) {
    const std::string cmake = read_text(course_root / "labs" / labs[next] / "CMakeLists.txt");
    std::smatch uses;
    if (!std::regex_search(cmake, uses, kUses)) continue;
    const std::string listed = uses[1].str();
    for (std::sregex_iterator it(listed.begin(), listed.end(), kSlug), end; it != end; ++it) {
      if (std::find(labs.begin(), labs.end(), it->str()) == labs.end()) labs.push_back(it->str());
    }
  }
  return labs;
}

SubmissionFiles find_submission_files(const fs::path& submission, const std::vector<Lab>& labs,
                                      const std::vector<Lab>& all_labs) {
  // Which labs use each file name, for a flat submission (files at the top).
  std::map<std::string, std::vector<std::string>> owners;
  for (const auto& lab : all_labs) {
    for (const auto& file : lab.student_files) owners[file].push_back(lab.slug);
  }
  SubmissionFiles found;
  for (const auto& lab : labs) {
    std::string& note = found.notes[lab.slug];
    for (const auto& file : lab.student_files) {
      std::vector<fs::path> candidates = {submission / "labs" / lab.slug / file, submission / lab.slug / file};
      const bool shared_name = owners[file].size() > 1;
      candidates.push_back(submission / file);
      bool taken = false;
      for (std::size_t i = 0; i < candidates.size() && !taken; ++i) {
        const fs::path& candidate = candidates[i];
        struct stat info {};
        if (lstat(candidate.c_str(), &info) != 0) continue;
        const bool flat = i == 2;
        if (flat && shared_name) {
          std::string labs_list;
          for (const auto& slug : owners[file]) labs_list += (labs_list.empty() ? "" : ", ") + slug;
          note += file + " is at the top of the submission, but labs " + labs_list +
                  " all have a file of that name: put it in " + lab.slug + "/" + file +
                  " (or labs/" + lab.slug + "/" + file + "); the starter's " + file + " was used.\n";
          taken = true;
          break;
        }
        // Every folder on the way must be a real folder: a link to a folder
        // elsewhere is not followed.
        bool linked_folder = false;
        for (fs::path dir = candidate.parent_path(); dir != submission && dir.has_relative_path(); dir = dir.parent_path()) {
          struct stat dir_info {};
          if (lstat(dir.c_str(), &dir_info) == 0 && S_ISLNK(dir_info.st_mode)) linked_folder = true;
        }
        if (linked_folder || S_ISLNK(info.st_mode)) {
          note += file + " is a symbolic link (or lies in a linked folder); links are refused, so the starter's " + file +
                  " was used.\n";
        } else if (!S_ISREG(info.st_mode)) {
          note += file + " is not a regular file; the starter's " + file + " was used.\n";
        } else if (static_cast<std::uintmax_t>(info.st_size) > kStudentFileLimit) {
          note += file + " is larger than 1 MiB; the starter's " + file + " was used.\n";
        } else if (int fd = open(candidate.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC); fd < 0) {
          note += file + " cannot be read; the starter's " + file + " was used.\n";
        } else {
          close(fd);
          found.files[lab.slug][file] = candidate;
        }
        taken = true;
      }
      if (!taken) note += file + " is not in the submission; the starter's " + file + " was used.\n";
    }
  }
  return found;
}

void assemble_learner_sources(const CommittedCourse& course, const SubmissionFiles& submission, const fs::path& into) {
  std::error_code ignored;
  fs::remove_all(into, ignored);
  fs::create_directories(into / "autograder" / "support");
  fs::copy_file(course.root / "CMakeLists.txt", into / "CMakeLists.txt");
  fs::copy_file(course.root / "autograder" / "CMakeLists.txt", into / "autograder" / "CMakeLists.txt");
  copy_tree(course.root / "cmake", into / "cmake");
  copy_tree(course.root / "labs", into / "labs");
  copy_tree(course.root / "autograder" / "support" / "include", into / "autograder" / "support" / "include");
  for (const auto& [slug, files] : submission.files) {
    for (const auto& [file, from] : files) {
      fs::path to = into / "labs" / slug / file;
      fs::remove(to, ignored);
      fs::copy_file(from, to);
    }
  }
  open_to_the_sandbox(into);
}

void assemble_test_data(const CommittedCourse& course, const std::vector<Lab>& labs, const fs::path& into) {
  std::error_code ignored;
  fs::remove_all(into, ignored);
  for (const auto& lab : labs) {
    const fs::path tests = course.root / "autograder" / "tests" / lab.slug;
    fs::create_directories(into / lab.slug);
    if (!fs::is_directory(tests)) continue;
    for (const auto& entry : fs::directory_iterator(tests)) {
      const std::string name = entry.path().filename().string();
      if (entry.is_directory()) {
        copy_tree(entry.path(), into / lab.slug / name);
      } else if (entry.is_regular_file() && !is_test_source(entry.path()) && !name.starts_with("private_")) {
        fs::copy_file(entry.path(), into / lab.slug / name);
      }
    }
  }
  // Every lab's material, not only the graded labs': a lab's tests may read
  // an earlier lab's fixtures (02's listings of 03's cubins).
  for (const auto& lab_dir : fs::directory_iterator(course.root / "labs")) {
    if (!fs::is_regular_file(lab_dir.path() / "lab.toml")) continue;  // labs/include is no lab
    for (const auto& entry : fs::directory_iterator(lab_dir.path())) {
      if (entry.is_directory()) copy_tree(entry.path(), into / "labs" / lab_dir.path().filename() / entry.path().filename());
    }
  }
  open_to_the_sandbox(into);
}

void add_private_tests(const fs::path& private_tests, std::vector<Lab>& labs) {
  for (auto& lab : labs) {
    const fs::path toml = private_tests / lab.slug / "tests.toml";
    if (!fs::exists(toml)) continue;
    for (auto& test : read_private_tests(toml, lab.tests, lab.sanitize)) lab.tests.push_back(std::move(test));
  }
}

}  // namespace launchlab::grader
