// A class's submissions: plain folders, or Gradescope's export read through a
// small reader of the block YAML its metadata is written in.
#include "launchlab/class/roster.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

namespace launchlab::classroom {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string_view trim_left(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  return text;
}

std::string_view trim(std::string_view text) {
  text = trim_left(text);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

/// The UTF-8 of a code point, through the JSON reader's own decoding of
/// \u escapes (a surrogate pair above U+FFFF); U+FFFD where it is none.
void append_code_point(std::string& out, std::uint32_t code) {
  char escaped[32];
  if (code > 0x10ffff) {
    out += "\xef\xbf\xbd";
    return;
  }
  if (code < 0x10000) {
    std::snprintf(escaped, sizeof escaped, "\"\\u%04x\"", static_cast<unsigned>(code));
  } else {
    const std::uint32_t above = code - 0x10000;
    std::snprintf(escaped, sizeof escaped, "\"\\u%04x\\u%04x\"", static_cast<unsigned>(0xd800 + (above >> 10)),
                  static_cast<unsigned>(0xdc00 + (above & 0x3ff)));
  }
  try {
    out += json::parse(escaped).get<std::string>();
  } catch (const json::exception&) {
    out += "\xef\xbf\xbd";
  }
}

/// One line of the document that holds something: its number, how far it is
/// indented, and the rest.
struct YamlLine {
  int number = 0;
  int indent = 0;
  std::string text;
};

class BlockYamlReader {
 public:
  explicit BlockYamlReader(std::string_view document) {
    std::istringstream in{std::string(document)};
    std::string raw;
    for (int number = 1; std::getline(in, raw); ++number) {
      if (!raw.empty() && raw.back() == '\r') raw.pop_back();
      if (raw.find('\t') < raw.find_first_not_of(" \t")) fail(number, "a tab in the indentation");
      std::string_view content = trim(raw);
      if (content.empty() || content.front() == '#' || content.front() == '%' || content == "...") continue;
      std::size_t indent = raw.find_first_not_of(' ');
      if (indent == 0 && content.starts_with("---")) {
        // A document start; a tag after it (--- !ruby/hash) says nothing we need.
        content = trim(content.substr(3));
        if (content.empty() || content.front() == '!') continue;
      }
      lines_.push_back({number, static_cast<int>(indent), std::string(content)});
    }
  }

  json read() {
    if (lines_.empty()) return json();
    json root = node(lines_.front().indent);
    if (at_ < lines_.size()) fail(lines_[at_].number, "unexpected indentation");
    return root;
  }

 private:
  [[noreturn]] static void fail(int number, const std::string& what) {
    throw std::runtime_error("line " + std::to_string(number) + ": " + what);
  }

  static bool is_item(std::string_view text) { return text == "-" || text.starts_with("- "); }

  /// Where a quoted scalar that starts text ends (the index past its closing
  /// quote), or npos when it does not close on this line.
  static std::size_t quoted_end(std::string_view text) {
    const char quote = text.front();
    for (std::size_t i = 1; i < text.size(); ++i) {
      if (quote == '"' && text[i] == '\\') {
        ++i;
      } else if (text[i] == quote) {
        if (quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
          ++i;
        } else {
          return i + 1;
        }
      }
    }
    return std::string_view::npos;
  }

  /// Splits "key: value" (or "key:") into its key and value; nothing when
  /// the text is not a mapping entry.
  static std::optional<std::pair<std::string, std::string>> split_key(std::string_view text) {
    if (text.empty() || is_item(text)) return std::nullopt;
    std::size_t colon;
    std::string key;
    if (text.front() == '"' || text.front() == '\'') {
      std::size_t end = quoted_end(text);
      if (end == std::string_view::npos || end >= text.size() || text[end] != ':') return std::nullopt;
      key = scalar_text(text.substr(0, end));
      colon = end;
    } else {
      colon = text.find(": ");
      if (colon == std::string_view::npos) {
        if (text.back() != ':') return std::nullopt;
        colon = text.size() - 1;
      }
      key = std::string(trim(text.substr(0, colon)));
    }
    if (colon + 1 < text.size() && text[colon + 1] != ' ') return std::nullopt;
    return std::pair{key, std::string(trim(text.substr(colon + 1)))};
  }

  /// The string a quoted or plain scalar stands for.
  static std::string scalar_text(std::string_view text) {
    std::string out;
    if (text.front() == '\'') {
      for (std::size_t i = 1; i < text.size(); ++i) {
        if (text[i] == '\'') {
          if (i + 1 < text.size() && text[i + 1] == '\'') {
            out += '\'';
            ++i;
            continue;
          }
          break;
        }
        out += text[i];
      }
      return out;
    }
    if (text.front() == '"') {
      for (std::size_t i = 1; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] != '\\' || i + 1 >= text.size()) {
          out += text[i];
          continue;
        }
        const char escape = text[++i];
        auto hex = [&](std::size_t digits) {
          std::uint32_t code = 0;
          for (std::size_t d = 0; d < digits && i + 1 < text.size(); ++d) {
            const char c = text[++i];
            code = code * 16 + static_cast<std::uint32_t>(std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                                                                                                     : (c | 0x20) - 'a' + 10);
          }
          append_code_point(out, code);
        };
        switch (escape) {
          case 'n': out += '\n'; break;
          case 't': out += '\t'; break;
          case 'r': out += '\r'; break;
          case '0': out += '\0'; break;
          case 'x': hex(2); break;
          case 'u': hex(4); break;
          case 'U': hex(8); break;
          default: out += escape; break;  // \" \\ \/ and the like
        }
      }
      return out;
    }
    // A plain scalar ends where a comment starts.
    std::size_t comment = text.find(" #");
    return std::string(trim(text.substr(0, comment)));
  }

  static json scalar(std::string_view text) {
    if (text.empty()) return json();
    if (text == "[]") return json::array();
    if (text == "{}") return json::object();
    if (text.front() != '"' && text.front() != '\'') {
      std::string plain = scalar_text(text);
      if (plain.empty() || plain == "~" || plain == "null" || plain == "Null" || plain == "NULL") return json();
      return plain;
    }
    return scalar_text(text);
  }

  /// The node whose first line is the current one, indented by indent.
  json node(int indent) {
    const std::string& text = lines_[at_].text;
    if (is_item(text)) return sequence(indent);
    if (split_key(text)) return mapping(indent);
    std::string rest = text;
    ++at_;
    return value_from(rest, indent - 1, lines_[at_ - 1].number);
  }

  json sequence(int indent) {
    json items = json::array();
    while (at_ < lines_.size() && lines_[at_].indent == indent && is_item(lines_[at_].text)) {
      YamlLine& line = lines_[at_];
      std::string_view rest = trim_left(std::string_view(line.text).substr(1));
      std::string anchor = take_anchor(rest);
      const int content_indent = indent + static_cast<int>(line.text.size() - rest.size());
      json item;
      if (split_key(rest) || is_item(rest)) {
        // "- key: value" opens a mapping (or "- - x" a sequence) whose
        // first line is the rest of this one.
        line.text = std::string(rest);
        line.indent = content_indent;
        item = node(content_indent);
      } else {
        std::string value(rest);
        const int number = line.number;
        ++at_;
        item = value_from(value, indent, number);
      }
      if (!anchor.empty()) anchors_[anchor] = item;
      items.push_back(std::move(item));
    }
    return items;
  }

  json mapping(int indent) {
    json object = json::object();
    while (at_ < lines_.size() && lines_[at_].indent == indent && !is_item(lines_[at_].text)) {
      const YamlLine& line = lines_[at_];
      auto entry = split_key(line.text);
      if (!entry) fail(line.number, "expected 'key: value', found '" + line.text + "'");
      const int number = line.number;
      ++at_;
      std::string_view rest = entry->second;
      std::string anchor = take_anchor(rest);
      json value;
      if (rest.empty() && at_ < lines_.size() && lines_[at_].indent == indent && is_item(lines_[at_].text)) {
        value = sequence(indent);  // a sequence may sit at its key's indentation
      } else {
        value = value_from(std::string(rest), indent, number);
      }
      if (!anchor.empty()) anchors_[anchor] = value;
      object[entry->first] = std::move(value);
    }
    if (at_ < lines_.size() && lines_[at_].indent > indent) fail(lines_[at_].number, "unexpected indentation");
    return object;
  }

  /// "&name" and "!tag" before a value: the anchor's name (empty when none),
  /// rest left at the value.
  static std::string take_anchor(std::string_view& rest) {
    std::string anchor;
    while (!rest.empty() && (rest.front() == '&' || rest.front() == '!')) {
      std::size_t end = rest.find(' ');
      std::string_view word = rest.substr(0, end);
      if (word.front() == '&') anchor = std::string(word.substr(1));
      rest = end == std::string_view::npos ? std::string_view() : trim_left(rest.substr(end));
    }
    return anchor;
  }

  /// The value after "key:" or "- " on a line of the given indentation: on
  /// that line, or on the more indented lines below it.
  json value_from(std::string rest, int indent, int number) {
    if (rest.empty()) {
      if (at_ < lines_.size() && lines_[at_].indent > indent) return node(lines_[at_].indent);
      return json();
    }
    if (rest.front() == '*') {
      auto found = anchors_.find(rest.substr(1));
      if (found == anchors_.end()) fail(number, "the alias " + rest + " names no anchor");
      return found->second;
    }
    if (rest.front() == '|' || rest.front() == '>') {
      std::string block;
      while (at_ < lines_.size() && lines_[at_].indent > indent) {
        if (!block.empty()) block += rest.front() == '|' ? '\n' : ' ';
        block += lines_[at_++].text;
      }
      if (rest.find('-') == std::string::npos) block += '\n';
      return block;
    }
    // A quoted scalar may go on over the next lines; a plain one too, folded.
    const bool quoted = rest.front() == '"' || rest.front() == '\'';
    while (at_ < lines_.size() && lines_[at_].indent > indent &&
           (quoted ? quoted_end(rest) == std::string::npos : !split_key(lines_[at_].text))) {
      if (quoted && rest.front() == '"' && rest.back() == '\\') {
        rest.pop_back();
      } else {
        rest += ' ';
      }
      rest += lines_[at_++].text;
    }
    if (quoted && quoted_end(rest) == std::string::npos) fail(number, "a quoted scalar that never closes");
    return scalar(rest);
  }

  std::vector<YamlLine> lines_;
  std::size_t at_ = 0;
  std::map<std::string, json> anchors_;
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// A field of a Psych-written mapping: ":name", or "name" where the export
/// was rewritten by another tool.
std::string field(const json& object, const std::string& name) {
  for (const std::string& key : {":" + name, name}) {
    auto found = object.find(key);
    if (found != object.end() && found->is_string()) return found->get<std::string>();
  }
  return "";
}

/// Gives each submission a key of its own: a second one with the same key
/// takes its folder's name after it.
void keep_keys_apart(std::vector<ClassSubmission>& submissions) {
  std::stable_sort(submissions.begin(), submissions.end(),
            [](const ClassSubmission& a, const ClassSubmission& b) { return a.student < b.student; });
  std::set<std::string> taken;
  for (auto& submission : submissions) {
    if (!taken.insert(submission.student).second) {
      submission.student = student_key(submission.student + "-" + submission.folder.filename().string());
      taken.insert(submission.student);
    }
  }
  std::stable_sort(submissions.begin(), submissions.end(),
            [](const ClassSubmission& a, const ClassSubmission& b) { return a.student < b.student; });
}

}  // namespace

json read_block_yaml(std::string_view text) { return BlockYamlReader(text).read(); }

std::string student_key(std::string_view raw) {
  std::string key;
  for (char c : trim(raw)) {
    const bool kept = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == '@';
    key += kept ? c : '_';
  }
  // Nor hidden, nor a way out of OUT (OUT/.launchlab is grade-class's own).
  if (key.empty() || key.front() == '.') key = "_" + key;
  return key;
}

std::vector<ClassSubmission> read_gradescope_metadata(std::string_view yaml_text, const fs::path& export_dir) {
  json metadata;
  try {
    metadata = read_block_yaml(yaml_text);
  } catch (const std::exception& error) {
    throw std::runtime_error("submission_metadata.yml: " + std::string(error.what()));
  }
  if (!metadata.is_object()) throw std::runtime_error("submission_metadata.yml holds no submissions");
  std::vector<ClassSubmission> submissions;
  for (const auto& [folder, entry] : metadata.items()) {
    ClassSubmission submission;
    submission.folder = export_dir / folder;
    if (folder.find('/') != std::string::npos || folder == "." || folder == ".." ||
        !fs::is_directory(fs::symlink_status(submission.folder))) {
      throw std::runtime_error("submission_metadata.yml names '" + folder + "', which is not a folder of " +
                               export_dir.string());
    }
    const json* submitters = nullptr;
    if (entry.is_object()) {
      for (const char* key : {":submitters", "submitters"}) {
        if (auto found = entry.find(key); found != entry.end() && found->is_array()) submitters = &*found;
      }
    }
    if (submitters) {
      for (const auto& person : *submitters) {
        if (person.is_object()) submission.submitters.push_back({field(person, "name"), field(person, "sid"), field(person, "email")});
      }
    }
    std::string key = folder;
    if (!submission.submitters.empty()) {
      const Submitter& first = submission.submitters.front();
      key = !first.sid.empty() ? first.sid : !first.email.empty() ? first.email : !first.name.empty() ? first.name : folder;
    }
    submission.student = student_key(key);
    submissions.push_back(std::move(submission));
  }
  keep_keys_apart(submissions);
  return submissions;
}

std::vector<ClassSubmission> find_class_submissions(const fs::path& dir) {
  if (!fs::is_directory(dir)) throw std::runtime_error("no submissions folder " + dir.string());
  if (fs::exists(dir / "submission_metadata.yml")) {
    return read_gradescope_metadata(read_text(dir / "submission_metadata.yml"), dir);
  }
  if (fs::is_directory(dir / "labs")) {
    throw std::runtime_error(dir.string() + " holds labs/, so it looks like one submission: give the folder that "
                             "holds one folder per student");
  }
  std::vector<ClassSubmission> submissions;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(".") || entry.is_symlink() || !entry.is_directory()) continue;
    submissions.push_back({student_key(name), entry.path(), {}});
  }
  keep_keys_apart(submissions);
  return submissions;
}

}  // namespace launchlab::classroom
