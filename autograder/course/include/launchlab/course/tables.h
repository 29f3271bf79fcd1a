/// @file
/// The chapter tables (README.md's, and the course site's home page) made
/// from the labs' lab.toml, so that they cannot drift from it: the site's is
/// generated when the docs are built, and README.md points at it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "launchlab/course/model.h"

namespace launchlab::course {

/// One layout of the table: a row per lab, in slug order, with the lab's
/// number, title, summary and how much of it needs a GPU.
struct ChapterTable {
  std::vector<std::string> headers;  ///< the four column headers
  std::string chapter_links;         ///< when set, a title links to <chapter_links><slug>/index.md
};

/// README.md's table: | NN | chapter | lab | GPU |.
const ChapterTable& readme_table();
/// The site's home page (docs/index.md), whose titles link to the chapters.
const ChapterTable& site_table();

/// The cells of a lab's row, as Markdown.
std::vector<std::string> chapter_row(const Lab& lab, const ChapterTable& table);

/// The whole table in Markdown, header included.
std::string chapter_table_markdown(const std::vector<Lab>& labs, const ChapterTable& table);

/// Finds the table with table's header in markdown (the text of file_name)
/// and compares it with the labs, row by row. One message per difference,
/// "FILE:LINE: ..." naming the row; empty when the table agrees.
std::vector<std::string> check_chapter_table(std::string_view markdown, const std::string& file_name,
                                             const std::vector<Lab>& labs, const ChapterTable& table);

}  // namespace launchlab::course
