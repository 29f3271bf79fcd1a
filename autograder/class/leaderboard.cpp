// Ranking the figures the gradings measured.
#include "launchlab/class/leaderboard.h"

#include <algorithm>
#include <map>

namespace launchlab::classroom {

std::vector<Leaderboard> class_leaderboards(const std::vector<GradebookRow>& rows) {
  std::map<std::string, Leaderboard> boards;
  for (const auto& row : rows) {
    for (const auto& figure : row.leaderboard) {
      Leaderboard& board = boards[figure.name];
      board.name = figure.name;
      board.ascending = figure.ascending;
      board.places.push_back({row.student, figure.value, 0});
    }
  }
  std::vector<Leaderboard> ranked;
  for (auto& [name, board] : boards) {
    const bool ascending = board.ascending;
    std::stable_sort(board.places.begin(), board.places.end(), [&](const auto& a, const auto& b) {
      return ascending ? a.value < b.value : a.value > b.value;
    });
    for (std::size_t i = 0; i < board.places.size(); ++i) {
      const bool tied = i > 0 && board.places[i].value == board.places[i - 1].value;
      board.places[i].rank = tied ? board.places[i - 1].rank : static_cast<int>(i) + 1;
    }
    ranked.push_back(std::move(board));
  }
  return ranked;
}

}  // namespace launchlab::classroom
