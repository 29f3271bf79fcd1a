// Canvas's and Gradescope's import files.
#include "launchlab/class/exports.h"

#include <algorithm>

namespace launchlab::classroom {

namespace {

const LmsIdentity* identity_of(const ClassFile& file, const std::string& student) {
  auto found = file.students.find(student);
  return found == file.students.end() ? nullptr : &found->second.identity;
}

}  // namespace

RosterMismatches roster_mismatches(const ClassFile& file, const std::vector<GradebookRow>& rows) {
  RosterMismatches mismatches;
  for (const auto& row : rows) {
    if (!file.students.contains(row.student)) mismatches.without_identity.push_back(row.student);
  }
  for (const auto& [student, entry] : file.students) {
    if (std::none_of(rows.begin(), rows.end(), [&](const GradebookRow& row) { return row.student == student; })) {
      mismatches.without_submission.push_back(student);
    }
  }
  return mismatches;
}

std::string canvas_csv(const ClassFile& file, const std::vector<std::string>& labs, const std::vector<GradebookRow>& rows) {
  std::vector<std::string> header = {"Student", "ID", "SIS User ID", "SIS Login ID", "Section"};
  for (const auto& slug : labs) {
    auto id = file.canvas_assignment.find(slug);
    header.push_back(file.assignment_prefix + " " + slug + (id == file.canvas_assignment.end() ? "" : " (" + id->second + ")"));
  }
  std::string csv = csv_line(header);
  for (const auto& row : rows) {
    const LmsIdentity* who = identity_of(file, row.student);
    if (!who) continue;
    std::vector<std::string> cells = {who->name.empty() ? row.name : who->name, who->canvas_id, who->sis_user_id,
                                      who->sis_login_id, who->section};
    for (const auto& slug : labs) {
      auto points = row.lab_points.find(slug);
      if (points == row.lab_points.end()) {
        cells.emplace_back();
        continue;
      }
      auto late = row.late.find(slug);
      cells.push_back(std::to_string(points->second - (late == row.late.end() ? 0 : late->second.penalty)));
    }
    csv += csv_line(cells);
  }
  return csv;
}

std::string gradescope_scores_csv(const ClassFile& file, const std::vector<GradebookRow>& rows) {
  std::string csv = csv_line({"Name", "SID", "Email", "Total Score"});
  for (const auto& row : rows) {
    const LmsIdentity* who = identity_of(file, row.student);
    const std::string name = who && !who->name.empty() ? who->name : row.name;
    const std::string sid = who ? who->sid : "";
    const std::string email = who && !who->email.empty() ? who->email : row.email;
    if (sid.empty() && email.empty()) continue;
    csv += csv_line({name, sid, email, std::to_string(row.final_points())});
  }
  return csv;
}

}  // namespace launchlab::classroom
