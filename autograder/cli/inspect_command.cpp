// `launchlab inspect`: the tools the learner's labs become, built with the
// build's progress shown, and never run on a lab that is still its starter
// (help, a tool's or the list's, is always given, at once, from help.json).
#include "inspect_command.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "launchlab/cli/progress.h"
#include "launchlab/grader/grading.h"
#include "launchlab/grader/stages.h"
#include "launchlab/cli/versions.h"
#include "learner.h"

namespace launchlab::cli {
namespace fs = std::filesystem;
using namespace launchlab::grader;

namespace {

/// Whether every student file of the lab is still the course's starter
/// (find_starters: not the learner's last commit, which may hold their
/// work); false when that cannot be told.
bool still_the_starter(const Context& ctx, const Lab& lab) {
  try {
    const Starters starters = find_starters(ctx, lab);
    for (const auto& [path, text] : starters.files) {
      if (read_text(path) != text) return false;
    }
    return !starters.files.empty();
  } catch (const std::exception&) {
    return false;
  }
}

/// Whether the arguments ask a tool (or the tools' list) for help, which
/// answers the same whatever state the labs are in.
bool asks_for_help(const std::vector<std::string>& args) {
  return args.empty() || args.front() == "help" ||
         std::any_of(args.begin(), args.end(), [](const std::string& arg) { return arg == "--help" || arg == "-h"; });
}

/// autograder/inspect/help.json (help.py keeps it equal to what the tools
/// print): the tools' listing and each tool's --help.
struct KeptHelp {
  std::string listing;
  std::map<std::string, std::string> tools;
};

/// The kept help; nothing when the file is missing or not of that shape.
std::optional<KeptHelp> read_kept_help(const fs::path& root) {
  const nlohmann::json kept = nlohmann::json::parse(read_text(root / "autograder" / "inspect" / "help.json"), nullptr, false);
  if (!kept.is_object() || !kept.contains("list") || !kept["list"].is_string() || !kept.contains("tools") ||
      !kept["tools"].is_object()) {
    return std::nullopt;
  }
  KeptHelp help{kept["list"].get<std::string>(), {}};
  for (const auto& [tool, text] : kept["tools"].items()) {
    if (text.is_string()) help.tools[tool] = text.get<std::string>();
  }
  return help;
}

/// What the tools would print for a request for help, and their exit
/// status: nothing when the kept help does not hold the answer.
std::optional<std::pair<std::string, int>> kept_answer(const KeptHelp& kept, const std::vector<std::string>& args) {
  if (args.empty()) return std::pair{kept.listing, 2};
  const std::string& first = args.front();
  if ((first == "help" && args.size() == 1) || first == "--help" || first == "-h") return std::pair{kept.listing, 0};
  if (auto tool = kept.tools.find(first); tool != kept.tools.end()) return std::pair{tool->second, 0};
  return std::nullopt;
}

/// The lab whose code a tool runs, "07_qmd", as a listing of the tools
/// (`launchlab inspect help`) names it: "  qmd  ... (lab 07_qmd)"; "" when
/// it names no such tool.
std::string lab_of_tool(const std::string& listing, const std::string& tool) {
  std::istringstream lines(listing);
  std::string line;
  const std::regex kLab(R"(\(lab ([0-9]{2}_[a-z0-9_]+)\))");
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string first;
    std::smatch lab;
    if (words >> first && first == tool && std::regex_search(line, lab, kLab)) return lab[1].str();
  }
  return "";
}

}  // namespace

InspectStep prepare_inspect(const fs::path& root, const fs::path& build, const std::vector<std::string>& args) {
  const std::optional<KeptHelp> kept = read_kept_help(root);
  // Help is the same whatever state the labs are in: it answers at once.
  if (kept && asks_for_help(args)) {
    if (auto answer = kept_answer(*kept, args)) {
      std::cout << answer->first << std::flush;
      return {answer->second, {}};
    }
  }
  // A tool the kept listing names is built alone, from its lab and those
  // that lab builds on; any other request builds every tool.
  const std::string tool_lab = args.empty() || !kept ? "" : lab_of_tool(kept->listing, args.front());
  const fs::path folder = build / "autograder" / "inspect";
  const fs::path program = folder / (tool_lab.empty() ? "launchlab-inspect" : "launchlab-inspect-" + tool_lab);
  const std::string target = tool_lab.empty() ? "launchlab_inspect" : "launchlab_inspect_" + tool_lab;
  const std::string doing = tool_lab.empty() ? "building the inspect tools from your labs"
                                             : "building inspect " + args.front() + " from your lab " + tool_lab;
  RunOutcome built = build_for_learner(Context{root, build}, {target}, doing,
                                       fs::exists(program) ? "" : tool_lab.empty() ? "about 5 minutes on 2 cores"
                                                                                   : "minutes on 2 cores, for the labs it runs");
  if (!built.exited_cleanly()) {
    std::cerr << "\nThe inspect tools are built from your labs, and " << (tool_lab.empty() ? "one of them" : "lab " + tool_lab + " or a lab it builds on")
              << " does not compile (the messages above say where).\n";
    return {1, {}};
  }
  const bool reference_build = read_text(build / "CMakeCache.txt").find("LAUNCHLAB_LEARNER_TREE:STRING=solutions") != std::string::npos;
  if (!asks_for_help(args) && !reference_build) {
    const std::string slug = tool_lab.empty() ? lab_of_tool(output_of({program.string(), "help"}), args.front()) : tool_lab;
    if (!slug.empty()) {
      const std::vector<Lab> labs = load_course(root);
      for (const auto& used : labs_built_on(root, slug)) {
        const auto lab = find_lab(labs, used);
        if (!lab) continue;
        if (still_the_starter(Context{root, build}, *lab)) {
          std::cout << "launchlab inspect " << args.front() << " runs your lab " << lab->number() << " (" << lab->slug
                    << "), which is still its starter: what it printed would be the starter's zeros and placeholders.\n"
                    << "Solve lab " << lab->number() << " first (`launchlab test " << lab->number() << "`).\n";
          return {1, {}};
        }
        const auto progress_of = read_progress(progress_folder(root), lab->slug);
        if (progress_of.last && progress_of.last->points < progress_of.last->gradable) {
          std::cerr << "launchlab inspect: your lab " << lab->number() << " did not pass every test in its last run ("
                    << describe(*progress_of.last) << "): what the tool prints may be wrong.\n";
        }
      }
    }
  }
  return {std::nullopt, program};
}

}  // namespace launchlab::cli
