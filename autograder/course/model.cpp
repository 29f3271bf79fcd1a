#include "launchlab/course/model.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <regex>
#include <sstream>

#include <toml++/toml.h>

namespace launchlab::course {
namespace fs = std::filesystem;

bool is_slug(std::string_view name) {
  static const std::regex slug("[0-9]{2}_[a-z0-9]+(_[a-z0-9]+)*");
  return std::regex_match(name.begin(), name.end(), slug);
}

bool LabTest::needs_gpu() const { return std::find(needs.begin(), needs.end(), "gpu") != needs.end(); }

std::string_view to_string(GpuNeed need) {
  switch (need) {
    case GpuNeed::none: return "no";
    case GpuNeed::partly: return "partly";
    case GpuNeed::all: return "yes";
  }
  return "?";
}

int Lab::max_points() const {
  int total = 0;
  for (const auto& test : tests) total += test.points;
  for (const auto& check : sanitizer_checks()) total += check.points;
  return total;
}

std::vector<SanitizerCheck> Lab::sanitizer_checks() const {
  std::vector<SanitizerCheck> checks;
  for (const auto& test : tests) {
    for (const auto& tool : test.sanitize) checks.push_back({test.name, tool, sanitize_points, test.is_private});
  }
  return checks;
}

const std::vector<std::string>& known_sanitizer_tools() {
  static const std::vector<std::string> tools = {"memcheck", "racecheck", "initcheck", "synccheck"};
  return tools;
}

GpuNeed Lab::gpu_need() const {
  auto on_gpu = std::count_if(tests.begin(), tests.end(), [](const LabTest& test) { return test.needs_gpu(); });
  if (on_gpu == 0) return GpuNeed::none;
  return on_gpu == static_cast<long>(tests.size()) ? GpuNeed::all : GpuNeed::partly;
}

std::string course_language(std::string_view locale) {
  if (locale.starts_with("pt")) return "pt_BR";
  if (locale.starts_with("zh")) return "zh_CN";
  return "";
}

LabText Lab::text_in(const std::string& language) const {
  LabText text{title, summary, hints};
  const auto translation = translations.find(language);
  if (translation == translations.end()) return text;
  const LabText& translated = translation->second;
  if (!translated.title.empty()) text.title = translated.title;
  if (!translated.summary.empty()) text.summary = translated.summary;
  if (translated.hints.size() == hints.size()) text.hints = translated.hints;
  return text;
}

std::optional<std::string> Lab::hint_for(const LabTest& test) const {
  if (test.hint < 1 || test.hint > static_cast<int>(hints.size())) return std::nullopt;
  return hints[static_cast<std::size_t>(test.hint - 1)];
}

std::vector<std::string> hint_problems(const Lab& lab) {
  std::vector<std::string> problems;
  if (lab.hints.empty()) return problems;  // a lab without hints is a problem of its own
  std::vector<bool> named(lab.hints.size(), false);
  for (const auto& test : lab.tests) {
    if (auto hint = lab.hint_for(test)) {
      named[static_cast<std::size_t>(test.hint - 1)] = true;
    } else if (!test.is_private) {
      problems.push_back("the test " + test.name + " names no hint: add hint = N (1 to " + std::to_string(lab.hints.size()) +
                         ") to its [[tests]] table");
    }
  }
  for (std::size_t i = 0; i < named.size(); ++i) {
    if (!named[i]) {
      problems.push_back("hint " + std::to_string(i + 1) + " is named by no test, so a failure never shows it (give hint = " +
                         std::to_string(i + 1) + " to the tests it helps with)");
    }
  }
  return problems;
}

std::vector<std::string> course_languages(const fs::path& root) {
  std::vector<std::string> languages;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(root / "docs" / "locale", error)) {
    if (entry.is_directory()) languages.push_back(entry.path().filename().string());
  }
  std::sort(languages.begin(), languages.end());
  return languages;
}

std::vector<std::string> translation_problems(const Lab& lab, const std::vector<std::string>& languages) {
  std::vector<std::string> problems;
  for (const auto& language : languages) {
    const std::string table = "[translations." + language + "]";
    const auto translation = lab.translations.find(language);
    if (translation == lab.translations.end()) {
      problems.push_back("lab.toml has no " + table + ": the title, summary and hints in " + language +
                         ", a language of the course (docs/locale/" + language + ")");
      continue;
    }
    const LabText& text = translation->second;
    if (text.title.empty()) problems.push_back(table + " has no title");
    if (!lab.summary.empty() && text.summary.empty()) problems.push_back(table + " has no summary");
    if (text.hints.size() != lab.hints.size()) {
      problems.push_back(table + " has " + std::to_string(text.hints.size()) + " hints, but the lab has " +
                         std::to_string(lab.hints.size()) + ": each hint needs its translation, in the same order");
    }
    for (std::size_t i = 0; i < text.hints.size(); ++i) {
      if (text.hints[i].empty()) problems.push_back(table + " leaves hint " + std::to_string(i + 1) + " empty");
    }
  }
  return problems;
}

const std::vector<std::string>& known_needs() {
  // open-gpu-doc: a checkout of NVIDIA/open-gpu-doc named by LAUNCHLAB_OPEN_GPU_DOC (lab 07 reads NVIDIA's headers).
  static const std::vector<std::string> needs = {"gpu", "cuobjdump", "nvdisasm", "ncu", "compute-sanitizer", "open-gpu-doc"};
  return needs;
}

namespace {

// The largest number of points, or of seconds, a file may give: anything
// larger is a typo, and it keeps sums far from overflowing.
constexpr std::int64_t kLargestCount = 100000;

std::string a_type(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a floating-point number";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::array: return "an array";
    case toml::node_type::table: return "a table";
    default: return "a date or a time";
  }
}

std::string quoted_list(const std::vector<std::string_view>& words) {
  std::string out;
  for (auto word : words) out += (out.empty() ? "" : ", ") + std::string(word);
  return out;
}

/// Reads one file: every message names it and, where it can, the line.
class FileReader {
 public:
  explicit FileReader(fs::path path) : path_(std::move(path)) {}

  toml::table parse() const {
    std::error_code error;
    if (!fs::is_regular_file(path_, error)) fail(0, "no such file");
    try {
      return toml::parse_file(path_.string());
    } catch (const toml::parse_error& parse_error) {
      fail(parse_error.source().begin.line, std::string(parse_error.description()));
    }
  }

  [[noreturn]] void fail(toml::source_index line, const std::string& what) const {
    throw CourseError(path_.string() + (line > 0 ? ":" + std::to_string(line) : "") + ": " + what);
  }
  [[noreturn]] void fail(const toml::node& where, const std::string& what) const { fail(where.source().begin.line, what); }

  /// Refuses any key but those allowed: a misspelt optional key must not be
  /// silently ignored.
  void only_keys(const toml::table& table, const std::vector<std::string_view>& allowed, const std::string& where) const {
    for (auto&& [key, node] : table) {
      if (std::find(allowed.begin(), allowed.end(), key.str()) != allowed.end()) continue;
      if (key.str() == "chapter") {
        fail(node, "'chapter' is no longer a key: the slug gives the chapter's number (remove the line)");
      }
      fail(node, "unknown key '" + std::string(key.str()) + "' " + where + " (the keys are " + quoted_list(allowed) + ")");
    }
  }

  /// The line to blame for a key missing from table: the table's header, or
  /// none for the top of the file.
  toml::source_index line_of(const toml::table& table, bool top) const { return top ? 0 : table.source().begin.line; }

  const toml::node& required(const toml::table& table, std::string_view key, bool top, const std::string& where) const {
    const toml::node* node = table.get(key);
    if (!node) fail(line_of(table, top), "missing key '" + std::string(key) + "' " + where);
    return *node;
  }

  std::string string(const toml::node& node, const std::string& what) const {
    const auto* value = node.as_string();
    if (!value) fail(node, what + " must be a string, not " + a_type(node));
    return value->get();
  }

  /// A string the chapter tables and `launchlab list` show on one line.
  std::string one_line(const toml::node& node, const std::string& what) const {
    std::string text = string(node, what);
    if (text.find('\n') != std::string::npos) fail(node, what + " must be one line: the chapter tables show it");
    return text;
  }

  /// The [translations.LANGUAGE] tables: each holds title, summary and
  /// hints, all optional here (the linter asks for what is missing).
  std::map<std::string, LabText> translations(const toml::node& node) const {
    const auto* languages = node.as_table();
    if (!languages) fail(node, "translations must be [translations.LANGUAGE] tables, not " + a_type(node));
    static const std::regex language_name("[a-z]{2,3}(_[A-Z]{2})?");
    std::map<std::string, LabText> out;
    for (auto&& [language, table_node] : *languages) {
      const std::string name(language.str());
      const std::string where = "[translations." + name + "]";
      if (!std::regex_match(name, language_name)) {
        fail(table_node, where + ": '" + name + "' is not a language as docs/locale names them (pt_BR, zh_CN)");
      }
      const auto* table = table_node.as_table();
      if (!table) fail(table_node, where + " must be a table, not " + a_type(table_node));
      only_keys(*table, {"title", "summary", "hints"}, "in " + where);
      LabText text;
      if (const toml::node* title = table->get("title")) text.title = one_line(*title, "the title of " + where);
      if (const toml::node* summary = table->get("summary")) text.summary = one_line(*summary, "the summary of " + where);
      if (const toml::node* hints = table->get("hints")) text.hints = strings(*hints, "the hints of " + where);
      out.emplace(name, std::move(text));
    }
    return out;
  }

  int count(const toml::node& node, const std::string& what) const {
    const auto* value = node.as_integer();
    if (!value) fail(node, what + " must be a positive integer, not " + a_type(node));
    if (value->get() <= 0 || value->get() > kLargestCount) {
      fail(node, what + " must be a positive integer no larger than " + std::to_string(kLargestCount) + ", not " +
                     std::to_string(value->get()));
    }
    return static_cast<int>(value->get());
  }

  std::vector<std::string> strings(const toml::node& node, const std::string& what) const {
    const auto* array = node.as_array();
    if (!array) fail(node, what + " must be an array of strings, not " + a_type(node));
    std::vector<std::string> out;
    for (const auto& item : *array) out.push_back(string(item, "each item of " + what));
    return out;
  }

  /// A sanitize array: compute-sanitizer tools, each once.
  std::vector<std::string> sanitizer_tools(const toml::node& node, const std::string& what) const {
    std::vector<std::string> tools = strings(node, what);
    for (std::size_t i = 0; i < tools.size(); ++i) {
      const toml::node& where = *node.as_array()->get(i);
      const auto& known = known_sanitizer_tools();
      if (std::find(known.begin(), known.end(), tools[i]) == known.end()) {
        fail(where, what + ": unknown compute-sanitizer tool '" + tools[i] +
                        "' (the tools are memcheck, racecheck, initcheck and synccheck)");
      }
      if (std::count(tools.begin(), tools.end(), tools[i]) > 1) fail(where, what + " lists '" + tools[i] + "' twice");
    }
    return tools;
  }

  /// A test's `leaderboard = { name, record, order }`: allowed only on a
  /// test that measures.
  LeaderboardFigure leaderboard_figure(const toml::node& node, const LabTest& test) const {
    const std::string what = "the leaderboard of " + test.name;
    const auto* table = node.as_table();
    if (!table) fail(node, what + " must be a table { name, record, order }, not " + a_type(node));
    only_keys(*table, {"name", "record", "order"}, "in " + what);
    // A figure that differs from run to run is what a leaderboard ranks; a
    // test that does not measure has its reference kept, not run beside it.
    if (!test.measures) fail(node, "test " + test.name + " has a leaderboard but does not measure (add measures = true)");
    // What it ranks is a figure, and a fair one is measured alone.
    if (!test.runs_alone()) fail(node, "test " + test.name + " has a leaderboard, so it measures alone: drop alone = false");
    LeaderboardFigure figure;
    figure.name = one_line(required(*table, "name", false, "in " + what), "the name of " + what);
    figure.record = string(required(*table, "record", false, "in " + what), "the record of " + what);
    if (figure.name.empty() || figure.record.empty()) fail(node, what + " needs a name and a record that are not empty");
    if (const toml::node* order = table->get("order")) {
      const std::string word = string(*order, "the order of " + what);
      if (word != "asc" && word != "desc") fail(*order, "the order of " + what + " is \"asc\" (lower is better) or \"desc\", not \"" + word + "\"");
      figure.ascending = word == "asc";
    }
    return figure;
  }

  /// The [[tests]] tables; names must be new to already. A GPU test without
  /// a sanitize of its own takes lab_sanitize. hints is the number of the
  /// lab's hints a test may name, or nothing where a test names none (a
  /// private tests.toml has no hints).
  std::vector<LabTest> tests(const toml::node& node, const std::vector<LabTest>& already,
                             const std::vector<std::string>& lab_sanitize, std::optional<std::size_t> hints) const {
    const auto* tables = node.as_array();
    if (tables && tables->empty()) fail(node, "there must be at least one [[tests]] table");
    if (!tables || !tables->is_array_of_tables()) fail(node, "tests must be [[tests]] tables, not " + a_type(node));
    static const std::regex gtest_name("[A-Za-z_][A-Za-z0-9_]*\\.[A-Za-z_][A-Za-z0-9_/]*");
    std::map<std::string, toml::source_index> first_line;
    std::vector<LabTest> out;
    for (const auto& item : *tables) {
      const toml::table& table = *item.as_table();
      if (hints) {
        only_keys(table, {"name", "points", "needs", "sanitize", "hint", "measures", "alone", "leaderboard"},
                  "in a [[tests]] table");
      } else {
        only_keys(table, {"name", "points", "needs", "sanitize", "measures", "alone"}, "in a private [[tests]] table");
      }
      LabTest test;
      const toml::node& name = required(table, "name", false, "in this [[tests]] table");
      test.name = string(name, "a test's name");
      if (!std::regex_match(test.name, gtest_name)) {
        fail(name, "'" + test.name + "' is not a GoogleTest name of the form Suite.Name");
      }
      if (auto earlier = first_line.find(test.name); earlier != first_line.end()) {
        fail(name, "test " + test.name + " is listed twice (first on line " + std::to_string(earlier->second) + ")");
      }
      if (std::any_of(already.begin(), already.end(), [&](const LabTest& other) { return other.name == test.name; })) {
        fail(name, "test " + test.name + " is already one of the lab's tests");
      }
      first_line[test.name] = name.source().begin.line;
      test.points = count(required(table, "points", false, "in the [[tests]] table of " + test.name),
                          "the points of " + test.name);
      if (const toml::node* needs = table.get("needs")) {
        test.needs = strings(*needs, "the needs of " + test.name);
        for (std::size_t i = 0; i < test.needs.size(); ++i) {
          const std::string& need = test.needs[i];
          const toml::node& where = *needs->as_array()->get(i);
          if (std::find(known_needs().begin(), known_needs().end(), need) == known_needs().end()) {
            fail(where, "test " + test.name + ": unknown need '" + need +
                            "' (a test may need gpu, cuobjdump, nvdisasm, ncu, compute-sanitizer or open-gpu-doc)");
          }
          if (std::count(test.needs.begin(), test.needs.end(), need) > 1) {
            fail(where, "test " + test.name + " lists the need '" + need + "' twice");
          }
        }
      }
      if (const toml::node* sanitize = table.get("sanitize")) {
        test.sanitize = sanitizer_tools(*sanitize, "the sanitize of " + test.name);
        // compute-sanitizer checks what runs on the device: a CPU test has nothing for it.
        if (!test.sanitize.empty() && !test.needs_gpu()) {
          fail(*sanitize, "test " + test.name + " lists sanitize but does not need a GPU (add needs = [\"gpu\"])");
        }
      } else if (test.needs_gpu()) {
        test.sanitize = lab_sanitize;
      }
      if (const toml::node* measures = table.get("measures")) {
        const auto* flag = measures->as_boolean();
        if (!flag) fail(*measures, "measures of " + test.name + " must be true or false, not " + a_type(*measures));
        test.measures = flag->get();
      }
      if (const toml::node* alone = table.get("alone")) {
        const auto* flag = alone->as_boolean();
        if (!flag) fail(*alone, "alone of " + test.name + " must be true or false, not " + a_type(*alone));
        if (flag->get() == test.measures) {
          fail(*alone, "test " + test.name +
                           (test.measures ? " measures, so it runs alone already: drop alone"
                                          : " measures nothing, so it shares the GPU already: drop alone"));
        }
        test.alone = flag->get();
      }
      if (const toml::node* board = table.get("leaderboard")) test.leaderboard = leaderboard_figure(*board, test);
      if (const toml::node* hint = table.get("hint")) {
        const auto* number = hint->as_integer();
        if (!number) fail(*hint, "the hint of " + test.name + " must be a hint's number, not " + a_type(*hint));
        if (number->get() < 1 || number->get() > static_cast<std::int64_t>(*hints)) {
          fail(*hint, "the hint of " + test.name + " is " + std::to_string(number->get()) + ", but the lab has " +
                          (*hints == 0 ? std::string("no hints") : "hints 1 to " + std::to_string(*hints)) +
                          " (hint = N names the Nth of hints)");
        }
        test.hint = static_cast<int>(number->get());
      }
      out.push_back(std::move(test));
    }
    return out;
  }

 private:
  fs::path path_;
};

}  // namespace

Lab load_lab(const fs::path& lab_dir) {
  Lab lab;
  lab.slug = lab_dir.filename().string();
  FileReader reader(lab_dir / "lab.toml");
  if (!is_slug(lab.slug)) {
    throw CourseError((lab_dir / "lab.toml").string() + ": the folder's name '" + lab.slug +
                      "' is not a slug: two digits, an underscore and lowercase words joined by underscores "
                      "(04_param_buffer)");
  }
  lab.chapter = (lab.slug[0] - '0') * 10 + (lab.slug[1] - '0');

  const toml::table doc = reader.parse();
  const std::string at_top = "at the top of lab.toml";
  reader.only_keys(doc,
                   {"title", "summary", "student_files", "timeout_seconds", "test_timeout_seconds", "timing_attempts", "sanitize",
                    "sanitize_points", "hints", "tests", "translations"},
                   at_top);
  const toml::node& title = reader.required(doc, "title", true, at_top);
  lab.title = reader.string(title, "title");
  if (lab.title.empty()) reader.fail(title, "title is empty");
  if (const toml::node* summary = doc.get("summary")) lab.summary = reader.one_line(*summary, "summary");

  const toml::node& files = reader.required(doc, "student_files", true, at_top);
  lab.student_files = reader.strings(files, "student_files");
  if (lab.student_files.empty()) reader.fail(files, "student_files is empty: a lab has at least one file to write");
  for (const auto& file : lab.student_files) {
    // A student file is a plain name inside the lab folder: the grader
    // copies exactly these, so nothing may point elsewhere.
    static const std::regex plain_name("[A-Za-z0-9_][A-Za-z0-9_.-]*");
    if (!std::regex_match(file, plain_name) || file.find("..") != std::string::npos) {
      reader.fail(files, "student file '" + file + "' is not a plain file name (letters, digits, '_', '.' and '-')");
    }
    if (std::count(lab.student_files.begin(), lab.student_files.end(), file) > 1) {
      reader.fail(files, "student file '" + file + "' is listed twice");
    }
  }
  lab.hints = reader.strings(reader.required(doc, "hints", true, at_top), "hints");
  if (const toml::node* timeout = doc.get("timeout_seconds")) lab.timeout_seconds = reader.count(*timeout, "timeout_seconds");
  if (const toml::node* attempts = doc.get("timing_attempts")) lab.timing_attempts = reader.count(*attempts, "timing_attempts");
  if (const toml::node* timeout = doc.get("test_timeout_seconds")) {
    lab.test_timeout_seconds = reader.count(*timeout, "test_timeout_seconds");
  }
  if (const toml::node* sanitize = doc.get("sanitize")) lab.sanitize = reader.sanitizer_tools(*sanitize, "sanitize");
  if (const toml::node* points = doc.get("sanitize_points")) {
    lab.sanitize_points = reader.count(*points, "sanitize_points");
    if (lab.sanitize.empty()) reader.fail(*points, "sanitize_points is set but the lab names no sanitize tools");
  }
  lab.tests = reader.tests(reader.required(doc, "tests", true, at_top), {}, lab.sanitize, lab.hints.size());
  if (const toml::node* translations = doc.get("translations")) lab.translations = reader.translations(*translations);
  if (!lab.sanitize.empty() && lab.gpu_need() == GpuNeed::none) {
    reader.fail(*doc.get("sanitize"), "sanitize names tools, but no test of this lab needs a GPU for them to check");
  }
  return lab;
}

std::vector<LabTest> read_private_tests(const fs::path& tests_toml, const std::vector<LabTest>& already,
                                        const std::vector<std::string>& lab_sanitize) {
  FileReader reader(tests_toml);
  const toml::table doc = reader.parse();
  const std::string at_top = "in a private tests.toml, which holds [[tests]] tables only";
  reader.only_keys(doc, {"tests"}, at_top);
  std::vector<LabTest> tests = reader.tests(reader.required(doc, "tests", true, at_top), already, lab_sanitize, std::nullopt);
  for (auto& test : tests) test.is_private = true;
  return tests;
}

Course read_course(const fs::path& root) {
  Course course;
  const fs::path labs_dir = root / "labs";
  std::error_code error;
  if (!fs::is_directory(labs_dir, error)) {
    course.problems.push_back(root.string() + ": no labs/ folder");
    return course;
  }
  std::vector<fs::path> dirs;
  for (const auto& entry : fs::directory_iterator(labs_dir)) {
    if (!entry.is_directory()) continue;
    const std::string name = entry.path().filename().string();
    const bool looks_like_a_lab = name.size() > 2 && std::isdigit(static_cast<unsigned char>(name[0])) &&
                                  std::isdigit(static_cast<unsigned char>(name[1]));
    if (fs::exists(entry.path() / "lab.toml")) {
      dirs.push_back(entry.path());
    } else if (looks_like_a_lab) {
      course.problems.push_back(entry.path().string() + ": no lab.toml (a folder named like a lab is one)");
    }
  }
  std::sort(dirs.begin(), dirs.end());
  for (const auto& dir : dirs) {
    try {
      course.labs.push_back(load_lab(dir));
    } catch (const CourseError& problem) {
      course.problems.push_back(problem.what());
    }
  }
  if (course.labs.empty() && course.problems.empty()) course.problems.push_back(labs_dir.string() + ": no labs");
  return course;
}

std::vector<Lab> load_course(const fs::path& root) {
  Course course = read_course(root);
  if (!course.problems.empty()) {
    std::string all;
    for (const auto& problem : course.problems) all += (all.empty() ? "" : "\n") + problem;
    throw CourseError(all);
  }
  return std::move(course.labs);
}

std::optional<Lab> find_lab(const std::vector<Lab>& labs, std::string_view which) {
  // "4" means lab 04: a number of one or two digits.
  int number = -1;
  if (!which.empty() && which.size() <= 2) {
    auto [end, error] = std::from_chars(which.data(), which.data() + which.size(), number);
    if (error != std::errc() || end != which.data() + which.size()) number = -1;
  }
  for (const auto& lab : labs) {
    if (lab.slug == which || lab.chapter == number) return lab;
  }
  return std::nullopt;
}

std::string facts_json(const std::vector<Lab>& labs) {
  toml::array slugs;
  toml::table by_slug;
  for (const auto& lab : labs) {
    slugs.push_back(lab.slug);
    toml::array files;
    for (const auto& file : lab.student_files) files.push_back(file);
    toml::array tests;
    for (const auto& test : lab.tests) {
      toml::array needs;
      for (const auto& need : test.needs) needs.push_back(need);
      tests.push_back(toml::table{
          {"name", test.name}, {"points", test.points}, {"needs", std::move(needs)}, {"measures", test.measures}});
    }
    by_slug.insert(lab.slug, toml::table{{"number", lab.number()},
                                         {"title", lab.title},
                                         {"summary", lab.summary},
                                         {"gpu", std::string(to_string(lab.gpu_need()))},
                                         {"student_files", std::move(files)},
                                         {"tests", std::move(tests)},
                                         {"timeout_seconds", lab.timeout_seconds},
                                         {"test_timeout_seconds", lab.test_timeout_seconds}});
  }
  std::ostringstream out;
  out << toml::json_formatter{toml::table{{"slugs", std::move(slugs)}, {"labs", std::move(by_slug)}}} << "\n";
  return out.str();
}

}  // namespace launchlab::course
