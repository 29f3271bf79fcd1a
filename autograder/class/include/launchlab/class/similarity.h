/// @file
/// grade-class --similarity: every pair of submissions compared lab by lab
/// with Debian's similarity-tester (sim_c++), the lines of the lab's starter
/// (the given code among them) left out. It flags; it never changes a score.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "launchlab/class/roster.h"

namespace launchlab::classroom {

/// A run of code two submissions share.
struct SharedRegion {
  std::string first_file;   ///< "vadd.cu:12-40": the student file and its lines
  std::string second_file;
  int tokens = 0;
};

/// Two submissions of one lab that share more than the threshold.
struct SimilarPair {
  std::string lab;
  std::string first, second;   ///< the students, in order
  int percent = 0;             ///< the larger share, in percent of the smaller submission's code
  std::vector<SharedRegion> regions;
};

/// What the comparison found, or why it did not run.
struct SimilarityReport {
  bool checked = false;
  std::string why_not;         ///< when not checked: sim_c++ is not installed, say
  int threshold_percent = 0;
  std::vector<SimilarPair> pairs;  ///< above the threshold, by lab then by share, largest first
};

/// Compares, for each lab of `labs` (slugs), the student files of every
/// pair of submissions, each file's lines that the course's starter of it
/// holds blanked out, in work (emptied first); lists the pairs whose share is
/// above threshold_percent. Without sim_c++ on PATH it says so and compares
/// nothing; it never throws for a submission's sake.
SimilarityReport compare_submissions(const std::filesystem::path& course_root, const std::vector<std::string>& labs,
                                     const std::vector<ClassSubmission>& submissions, int threshold_percent,
                                     const std::filesystem::path& work);

}  // namespace launchlab::classroom
