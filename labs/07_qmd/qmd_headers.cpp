// Given code: where the codec's headers come from (the course's, compiled
// into the lab, or NVIDIA's in an open-gpu-doc checkout), and decode,
// encode_into and encode by version over your layout_from_header.
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>

#include "qmd.h"

namespace launchlab::lab_files {
std::string_view lab_07_qmd(std::string_view path);  // the files labs/07_qmd/CMakeLists.txt embeds
}

namespace launchlab::qmd {

std::string_view course_header(QmdVersion version) {
  const std::string path = "headers/qmd_v0" + std::to_string(static_cast<unsigned>(version)) + "_00.h";
  const std::string_view text = lab_files::lab_07_qmd(path);
  if (text.empty()) throw QmdError("the course has no header " + path + " for QMD version " + to_string(version));
  return text;
}

std::filesystem::path open_gpu_doc_header(const std::filesystem::path& checkout, QmdVersion version) {
  const char* name = nullptr;
  switch (version) {
    case QmdVersion::V03_00: name = "clc6c0qmd.h"; break;  // AMPERE_COMPUTE_A
    case QmdVersion::V04_00: name = "clcbc0qmd.h"; break;  // HOPPER_COMPUTE_A
    case QmdVersion::V05_00: name = "clcdc0qmd.h"; break;  // BLACKWELL_COMPUTE_A
  }
  if (!name) throw QmdError("unknown QMD version " + std::to_string(static_cast<unsigned>(version)));
  return checkout / "classes" / "compute" / name;
}

std::string header_text(QmdVersion version) {
  const char* checkout = std::getenv("LAUNCHLAB_OPEN_GPU_DOC");
  if (!checkout || !*checkout) return std::string(course_header(version));
  const std::filesystem::path path = open_gpu_doc_header(checkout, version);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw QmdError("LAUNCHLAB_OPEN_GPU_DOC is " + std::string(checkout) + ", but " + path.string() +
                   " cannot be read: point it at a checkout of NVIDIA/open-gpu-doc, or unset it to use the "
                   "course's headers");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

const Layout& layout(QmdVersion version) {
  // Parsed once per version: decode and encode_into run for every QMD a
  // pushbuffer carries.
  static std::mutex guard;
  static std::map<QmdVersion, Layout> layouts;
  std::lock_guard lock(guard);
  auto found = layouts.find(version);
  if (found == layouts.end()) found = layouts.emplace(version, layout_from_header(header_text(version), version)).first;
  return found->second;
}

Qmd decode(std::span<const std::uint32_t> words, QmdVersion version) { return decode(words, layout(version)); }

void encode_into(const Qmd& qmd, std::span<std::uint32_t> words) { encode_into(qmd, layout(qmd.version), words); }

std::vector<std::uint32_t> encode(const Qmd& qmd) {
  std::vector<std::uint32_t> words(qmd_words(qmd.version), 0);
  encode_into(qmd, words);
  return words;
}

}  // namespace launchlab::qmd
