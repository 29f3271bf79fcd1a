/// @file
/// The grades in the forms the LMS and Gradescope import, from the gradebook
/// and the class file's identities. A student is matched by their key (the
/// submission's folder, or Gradescope's sid); a name that matches nothing is
/// listed, never guessed.
#pragma once

#include <string>
#include <vector>

#include "launchlab/class/gradebook.h"
#include "launchlab/class/policies.h"

namespace launchlab::classroom {

/// Where the class file and the submissions do not meet.
struct RosterMismatches {
  std::vector<std::string> without_identity;    ///< graded students the class file does not name
  std::vector<std::string> without_submission;  ///< students of the class file with no submission
};

/// Compares the class file's students with the gradebook's.
RosterMismatches roster_mismatches(const ClassFile& file, const std::vector<GradebookRow>& rows);

/// Canvas's gradebook import: the header Student, ID, SIS User ID, SIS Login
/// ID, Section, then one column per lab named "<prefix> <slug> (<assignment
/// id>)" ("<prefix> <slug>" where the class file gives no id: Canvas then
/// makes a new assignment); one line per student the class file names, each
/// lab's points less its late penalty, empty where the lab was not graded.
std::string canvas_csv(const ClassFile& file, const std::vector<std::string>& labs, const std::vector<GradebookRow>& rows);

/// Gradescope's score upload (an assignment's "Upload Scores"): Name, SID,
/// Email, Total Score, one line per student that has an SID or an email to
/// be matched by; the score is the final points (raw less the late penalty)
/// of the labs graded here, so that a course graded on Gradescope without a
/// GPU takes its GPU part from the GPU host's grading.
std::string gradescope_scores_csv(const ClassFile& file, const std::vector<GradebookRow>& rows);

}  // namespace launchlab::classroom
