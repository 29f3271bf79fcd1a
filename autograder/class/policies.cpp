// The class file through toml++ (the course model's reader), and the late
// policy it sets.
#include "launchlab/class/policies.h"

#include <cmath>
#include <ctime>
#include <regex>
#include <stdexcept>

#include <toml++/toml.h>

namespace launchlab::classroom {
namespace fs = std::filesystem;

namespace {

constexpr std::int64_t kDay = 24 * 3600;

std::int64_t seconds_since_epoch(int year, int month, int day, int hour, int minute, int second, int offset_minutes) {
  std::tm parts{};
  parts.tm_year = year - 1900;
  parts.tm_mon = month - 1;
  parts.tm_mday = day;
  parts.tm_hour = hour;
  parts.tm_min = minute;
  parts.tm_sec = second;
  return static_cast<std::int64_t>(timegm(&parts)) - offset_minutes * 60;
}

class ClassFileReader {
 public:
  explicit ClassFileReader(fs::path path) : path_(std::move(path)) {}

  ClassFile read() const {
    toml::table top;
    try {
      top = toml::parse_file(path_.string());
    } catch (const toml::parse_error& error) {
      fail(error.source().begin.line, std::string(error.description()));
    }
    ClassFile file;
    allow(top, {"prefix", "late", "labs", "students"});
    file.assignment_prefix = text(top, "prefix").value_or(file.assignment_prefix);
    if (const toml::table* late = table(top, "late")) {
      allow(*late, {"grace_days", "penalty_percent_per_day", "cutoff_days"});
      file.late.grace_days = days(*late, "grace_days").value_or(0);
      file.late.cutoff_days = days(*late, "cutoff_days");
      if (const toml::node* percent = late->get("penalty_percent_per_day")) {
        auto value = percent->value<double>();
        if (!value || *value < 0 || *value > 100) fail(*percent, "penalty_percent_per_day must be a number from 0 to 100");
        file.late.penalty_percent_per_day = *value;
      }
    }
    if (const toml::table* labs = table(top, "labs")) {
      for (auto&& [slug, node] : *labs) {
        const toml::table* lab = node.as_table();
        if (!lab) fail(node, "labs." + std::string(slug.str()) + " must be a table");
        allow(*lab, {"due", "canvas_assignment"});
        if (const toml::node* due = lab->get("due")) {
          const std::optional<toml::date_time> when = due->value_exact<toml::date_time>();
          if (!when || !when->offset) fail(*due, "due must be a date and time with its offset (2026-03-01T23:59:00Z)");
          file.due[std::string(slug.str())] =
              seconds_since_epoch(when->date.year, when->date.month, when->date.day, when->time.hour,
                                  when->time.minute, when->time.second, when->offset->minutes);
        }
        if (auto id = text(*lab, "canvas_assignment")) file.canvas_assignment[std::string(slug.str())] = *id;
      }
    }
    if (const toml::table* students = table(top, "students")) {
      for (auto&& [key, node] : *students) {
        const toml::table* entry = node.as_table();
        if (!entry) fail(node, "students." + std::string(key.str()) + " must be a table");
        allow(*entry, {"name", "canvas_id", "sis_user_id", "sis_login_id", "section", "sid", "email", "grace_days",
                       "extension_days"});
        ClassStudent student;
        LmsIdentity& who = student.identity;
        for (auto [name, field] : {std::pair{"name", &who.name}, {"canvas_id", &who.canvas_id},
                                   {"sis_user_id", &who.sis_user_id}, {"sis_login_id", &who.sis_login_id},
                                   {"section", &who.section}, {"sid", &who.sid}, {"email", &who.email}}) {
          *field = text(*entry, name).value_or("");
        }
        student.grace_days = days(*entry, "grace_days");
        if (const toml::table* extensions = table(*entry, "extension_days")) {
          for (auto&& [slug, days_node] : *extensions) {
            auto extra = days_node.value<std::int64_t>();
            if (!extra || *extra < 0) fail(days_node, "an extension is a whole number of days, 0 or more");
            student.extension_days[std::string(slug.str())] = static_cast<int>(*extra);
          }
        }
        file.students[std::string(key.str())] = std::move(student);
      }
    }
    return file;
  }

 private:
  [[noreturn]] void fail(toml::source_index line, const std::string& what) const {
    throw std::runtime_error(path_.string() + (line > 0 ? ":" + std::to_string(line) : "") + ": " + what);
  }
  [[noreturn]] void fail(const toml::node& where, const std::string& what) const { fail(where.source().begin.line, what); }

  void allow(const toml::table& table, std::initializer_list<std::string_view> keys) const {
    for (auto&& [key, node] : table) {
      if (std::find(keys.begin(), keys.end(), key.str()) == keys.end()) fail(node, "unknown key '" + std::string(key.str()) + "'");
    }
  }

  const toml::table* table(const toml::table& in, std::string_view key) const {
    const toml::node* node = in.get(key);
    if (!node) return nullptr;
    if (!node->is_table()) fail(*node, std::string(key) + " must be a table");
    return node->as_table();
  }

  // Ids may be written as numbers (canvas_id = 101) or as text.
  std::optional<std::string> text(const toml::table& in, std::string_view key) const {
    const toml::node* node = in.get(key);
    if (!node) return std::nullopt;
    if (auto number = node->value_exact<std::int64_t>()) return std::to_string(*number);
    if (auto words = node->value_exact<std::string>()) return *words;
    fail(*node, std::string(key) + " must be text");
  }

  std::optional<int> days(const toml::table& in, std::string_view key) const {
    const toml::node* node = in.get(key);
    if (!node) return std::nullopt;
    auto value = node->value_exact<std::int64_t>();
    if (!value || *value < 0 || *value > 3650) fail(*node, std::string(key) + " must be a whole number of days, 0 or more");
    return static_cast<int>(*value);
  }

  fs::path path_;
};

}  // namespace

ClassFile read_class_file(const fs::path& path) { return ClassFileReader(path).read(); }

std::optional<std::int64_t> parse_submission_time(std::string_view text) {
  // Gradescope: "2025-10-01 13:00:00.000000000 -07:00"; ISO 8601: "2025-10-01T20:00:00Z" or "+02:00".
  static const std::regex pattern(
      R"(^\s*(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?\s*(Z|([+-])(\d{2}):?(\d{2}))\s*$)");
  std::match_results<std::string_view::const_iterator> parts;
  if (!std::regex_match(text.begin(), text.end(), parts, pattern)) return std::nullopt;
  auto number = [&](int index) { return std::stoi(parts[index].str()); };
  int offset = 0;
  if (parts[7] != "Z") offset = (parts[8] == "-" ? -1 : 1) * (number(9) * 60 + number(10));
  return seconds_since_epoch(number(1), number(2), number(3), number(4), number(5), number(6), offset);
}

std::map<std::string, LateLab> apply_late_policy(const ClassFile& file, const std::string& student,
                                                 std::int64_t submitted, const std::map<std::string, int>& lab_points) {
  const auto entry = file.students.find(student);
  const ClassStudent* who = entry == file.students.end() ? nullptr : &entry->second;
  int grace_left = who && who->grace_days ? *who->grace_days : file.late.grace_days;
  std::map<std::string, LateLab> outcome;
  for (const auto& [slug, points] : lab_points) {
    LateLab& lab = outcome[slug];
    const auto due = file.due.find(slug);
    if (due == file.due.end()) continue;
    std::int64_t deadline = due->second;
    if (who) {
      if (auto extension = who->extension_days.find(slug); extension != who->extension_days.end()) {
        deadline += extension->second * kDay;
      }
    }
    if (submitted <= deadline) continue;
    lab.late_days = static_cast<int>((submitted - deadline + kDay - 1) / kDay);
    lab.grace_days_used = std::min(grace_left, lab.late_days);
    grace_left -= lab.grace_days_used;
    const int charged = lab.late_days - lab.grace_days_used;
    if (file.late.cutoff_days && lab.late_days > *file.late.cutoff_days) {
      lab.penalty = points;
    } else {
      lab.penalty = std::min(points, static_cast<int>(std::lround(points * file.late.penalty_percent_per_day * charged / 100.0)));
    }
  }
  return outcome;
}

}  // namespace launchlab::classroom
