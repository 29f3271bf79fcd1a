/// @file
/// The class's leaderboards: for each figure results.json's `leaderboard`
/// names (a lab's speed relative to the reference measured in the same
/// grading), the students ranked. It ranks; it never gives points.
#pragma once

#include <string>
#include <vector>

#include "launchlab/class/gradebook.h"

namespace launchlab::classroom {

/// One student's place on a leaderboard.
struct LeaderboardPlace {
  std::string student;
  double value = 0;
  int rank = 0;  ///< 1 for the best; equal values share a rank
};

/// One figure, every student who has it ranked.
struct Leaderboard {
  std::string name;
  bool ascending = false;  ///< a smaller value ranks higher
  std::vector<LeaderboardPlace> places;  ///< best first
};

/// The leaderboards of the rows' figures, by figure name.
std::vector<Leaderboard> class_leaderboards(const std::vector<GradebookRow>& rows);

}  // namespace launchlab::classroom
