/// @file
/// A class's submissions as grade-class finds them: a folder per student, or
/// the export Gradescope makes of an assignment (submission_metadata.yml and a
/// folder per submission).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace launchlab::classroom {

/// One person a submission belongs to (Gradescope's :submitters).
struct Submitter {
  std::string name;
  std::string sid;
  std::string email;
};

/// One submission of a class.
struct ClassSubmission {
  /// The student's key: OUT/<student>/, the gradebook's first column and
  /// what the student's seed is derived from. Made of letters, digits and
  /// ". _ - @" only.
  std::string student;
  std::filesystem::path folder;          ///< the student files, in any layout `launchlab grade` reads
  std::vector<Submitter> submitters;     ///< from Gradescope's metadata; empty for a plain folder
  std::string submitted_at;              ///< Gradescope's created_at as written; empty for a plain folder
};

/// The submissions in dir, ordered by student. With a submission_metadata.yml
/// at the top, each of its entries names a folder of dir and its submitters:
/// the student is the first submitter's sid, else their email, else their
/// name, else the folder's name. Otherwise every folder of dir that is not
/// hidden and not a link is one student, named by the folder. Two
/// submissions that come to one key keep it apart with the folder's name.
/// Throws std::runtime_error when the metadata cannot be read or names a
/// folder that is not there.
std::vector<ClassSubmission> find_class_submissions(const std::filesystem::path& dir);

/// The submissions of a Gradescope export's metadata (the text of
/// submission_metadata.yml), their folders below export_dir. Throws
/// std::runtime_error saying what is wrong.
std::vector<ClassSubmission> read_gradescope_metadata(std::string_view yaml_text,
                                                      const std::filesystem::path& export_dir);

/// When path was last modified (the link itself for a link), in nanoseconds
/// since the epoch; 0 when that cannot be read.
std::int64_t modified_at(const std::filesystem::path& path);

/// The newest modification of folder and everything below it: when a
/// submission's files last changed.
std::int64_t newest_change(const std::filesystem::path& folder);

/// A student key made of raw: every character outside letters, digits and
/// ". _ - @" becomes '_', and a key that would be empty or start with '.'
/// (hidden, "..") gets a leading '_'.
std::string student_key(std::string_view raw);

/// A YAML document (Gradescope's export is written by Ruby's Psych) as JSON,
/// read by yaml-cpp: mappings, sequences, anchors and aliases resolved.
/// Scalars stay strings; "~", "null" and nothing are null. Throws
/// std::runtime_error naming the line it cannot read, or saying that this
/// build has no yaml-cpp (a GPU host without Debian's libyaml-cpp-dev).
nlohmann::json yaml_as_json(std::string_view text);

}  // namespace launchlab::classroom
