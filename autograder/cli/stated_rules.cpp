#include "launchlab/cli/stated_rules.h"

#include <cctype>
#include <sstream>
#include <utility>

namespace launchlab::cli {

namespace {

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

/// The type name that starts text ("std::runtime_error(\"line N\")" gives
/// "std::runtime_error"): word characters and `::`.
std::string leading_type(std::string_view text) {
  std::size_t end = 0;
  while (end < text.size() && (is_word_char(text[end]) || text[end] == ':')) ++end;
  return std::string(text.substr(0, end));
}

/// The name a declaration declares: the word before its first `(`, or the
/// class a `struct`/`class` line opens.
std::string declared_name(std::string_view declaration) {
  declaration = trimmed(declaration);
  for (std::string_view keyword : {"struct ", "class "}) {
    if (declaration.starts_with(keyword)) return leading_type(trimmed(declaration.substr(keyword.size())));
  }
  const std::size_t open = declaration.find('(');
  if (open == std::string_view::npos) return "";
  std::size_t end = open;
  while (end > 0 && std::isspace(static_cast<unsigned char>(declaration[end - 1]))) --end;
  std::size_t begin = end;
  while (begin > 0 && is_word_char(declaration[begin - 1])) --begin;
  return std::string(declaration.substr(begin, end - begin));
}

/// The text inside the parentheses that open at `open`, or npos when they never close.
std::size_t closing_parenthesis(std::string_view text, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < text.size(); ++i) {
    if (text[i] == '(') ++depth;
    if (text[i] == ')' && --depth == 0) return i;
  }
  return std::string_view::npos;
}

/// The last comma of text outside every bracket, or npos.
std::size_t last_top_level_comma(std::string_view text) {
  int depth = 0;
  std::size_t found = std::string_view::npos;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '(' || c == '[' || c == '{' || c == '<') ++depth;
    if (c == ')' || c == ']' || c == '}' || c == '>') --depth;
    if (c == ',' && depth == 0) found = i;
  }
  return found;
}

/// Whether code calls `name`: the word followed by `(`, `{` or a template's
/// `<`, or, for a constructor, by a variable it makes (`Ring ring(0)`).
bool calls(std::string_view code, const std::string& name) {
  auto skip_blanks = [&](std::size_t at) {
    while (at < code.size() && std::isspace(static_cast<unsigned char>(code[at]))) ++at;
    return at;
  };
  auto opens = [&](std::size_t at) { return at < code.size() && (code[at] == '(' || code[at] == '{' || code[at] == '<'); };
  for (std::size_t at = code.find(name); at != std::string_view::npos; at = code.find(name, at + 1)) {
    std::size_t after = at + name.size();
    if ((at > 0 && is_word_char(code[at - 1])) || (after < code.size() && is_word_char(code[after]))) continue;
    after = skip_blanks(after);
    if (opens(after)) return true;
    std::size_t variable_end = after;
    while (variable_end < code.size() && is_word_char(code[variable_end])) ++variable_end;
    if (variable_end > after && opens(skip_blanks(variable_end))) return true;
  }
  return false;
}

/// Whether two spellings name the same exception type: equal once the
/// namespaces one of them writes and the other leaves out are dropped (a
/// header inside `launchlab::qmd` writes `QmdError`, a test outside it
/// `qmd::QmdError`).
bool same_type(std::string_view a, std::string_view b) {
  if (a.size() < b.size()) std::swap(a, b);
  return a == b || (a.ends_with(b) && a.substr(0, a.size() - b.size()).ends_with("::"));
}

}  // namespace

std::vector<StatedThrow> stated_throws(std::string_view header) {
  std::vector<std::string> lines;
  std::istringstream in{std::string(header)};
  for (std::string line; std::getline(in, line);) lines.push_back(line);

  std::vector<StatedThrow> found;
  std::vector<StatedThrow> pending;  // of the comment block being read
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = trimmed(lines[i]);
    if (line.starts_with("///")) {
      std::string_view text = trimmed(line.substr(3));
      for (std::string_view word : {"@throws ", "Throws "}) {
        for (std::size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
          // "Throws" counts where it starts a sentence, not inside one.
          if (word == "Throws " && !trimmed(text.substr(0, at)).empty() && !trimmed(text.substr(0, at)).ends_with('.')) {
            continue;
          }
          const std::string type = leading_type(trimmed(text.substr(at + word.size())));
          if (!type.empty()) pending.push_back({i + 1, "", type});
        }
      }
      continue;
    }
    if (pending.empty() || line.empty() || line.starts_with("//")) continue;
    // The declaration the block documents, up to its `;` or `{`.
    std::string declaration;
    for (std::size_t j = i; j < lines.size() && j < i + 8; ++j) {
      declaration += lines[j] + " ";
      if (lines[j].find_first_of(";{") != std::string::npos) break;
    }
    // A template's own line is not the declaration.
    if (line.starts_with("template")) {
      const std::size_t close = declaration.find('>');
      if (close != std::string::npos) declaration.erase(0, close + 1);
    }
    const std::string name = declared_name(declaration);
    for (auto& stated : pending) {
      stated.function = name;
      found.push_back(stated);
    }
    pending.clear();
  }
  return found;
}

std::vector<TestedThrow> tested_throws(std::string_view source) {
  std::vector<TestedThrow> found;
  std::string test;
  for (std::size_t at = 0; at < source.size(); ++at) {
    for (std::string_view macro : {"TEST(", "TEST_F(", "TEST_P("}) {
      if (source.compare(at, macro.size(), macro) != 0 || (at > 0 && is_word_char(source[at - 1]))) continue;
      const std::size_t close = closing_parenthesis(source, at + macro.size() - 1);
      if (close == std::string_view::npos) continue;
      std::string_view arguments = source.substr(at + macro.size(), close - at - macro.size());
      const std::size_t comma = arguments.find(',');
      if (comma != std::string_view::npos) {
        test = std::string(trimmed(arguments.substr(0, comma))) + "." + std::string(trimmed(arguments.substr(comma + 1)));
      }
    }
    for (std::string_view macro : {"RECORD_THROWS(", "RECORD_THROWS_WITHOUT_A_GPU(", "RECORD_THROWS_IN_A_FORKED_CHILD("}) {
      if (source.compare(at, macro.size(), macro) != 0 || (at > 0 && is_word_char(source[at - 1]))) continue;
      const std::size_t close = closing_parenthesis(source, at + macro.size() - 1);
      if (close == std::string_view::npos) continue;
      std::string_view arguments = source.substr(at + macro.size(), close - at - macro.size());
      const std::size_t comma = last_top_level_comma(arguments);
      if (comma == std::string_view::npos) continue;
      found.push_back({test, std::string(arguments.substr(0, comma)), std::string(trimmed(arguments.substr(comma + 1)))});
    }
    if (source.compare(at, 15, "message_thrown<") == 0) {
      const std::size_t type_end = source.find('>', at);
      const std::size_t open = type_end == std::string_view::npos ? type_end : source.find('(', type_end);
      if (open == std::string_view::npos) continue;
      const std::size_t close = closing_parenthesis(source, open);
      if (close == std::string_view::npos) continue;
      found.push_back({test, std::string(source.substr(open + 1, close - open - 1)),
                       std::string(trimmed(source.substr(at + 15, type_end - at - 15)))});
    }
  }
  return found;
}

std::optional<std::string> test_of(const StatedThrow& stated, const std::vector<TestedThrow>& tested) {
  if (stated.function.empty()) return std::nullopt;
  for (const auto& check : tested) {
    if (same_type(check.exception, stated.exception) && calls(check.statement, stated.function)) return check.test;
  }
  return std::nullopt;
}

}  // namespace launchlab::cli
