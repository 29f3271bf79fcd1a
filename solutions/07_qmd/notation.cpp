// Part B: the MW(...) defines of a class header's text.
#include <algorithm>
#include <string>
#include <vector>

#include "qmd.h"

namespace launchlab::qmd {
namespace {

bool is_name_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/// A cursor over one line; every error names the line.
class Line {
 public:
  Line(std::string_view text, std::size_t number) : text_(text), number_(number) {}

  void skip_blanks() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }
  bool at_end() const { return pos_ >= text_.size(); }
  bool take(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  void expect(std::string_view word, const char* what) {
    skip_blanks();
    if (!take(word)) fail(std::string("expected ") + what);
  }
  std::string name() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && is_name_char(text_[pos_])) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }
  unsigned number(const char* what) {
    skip_blanks();
    std::uint64_t value = 0;
    const std::size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      value = value * 10 + static_cast<unsigned>(text_[pos_] - '0');
      if (value > 0xffffffffull) fail(std::string(what) + " is above 2^32 - 1");
      ++pos_;
    }
    if (pos_ == start) fail(std::string("expected ") + what + ", a decimal number");
    if (pos_ < text_.size() && is_name_char(text_[pos_])) fail(std::string(what) + " is not a decimal number");
    return static_cast<unsigned>(value);
  }
  /// A bound: a number, or (base+(p)*step+...) in an indexed define; the
  /// steps come back one per parameter, in the parameters' order.
  std::pair<unsigned, std::vector<unsigned>> bound(const std::vector<std::string>& parameters, const char* what) {
    std::vector<unsigned> steps(parameters.size(), 0);
    skip_blanks();
    if (!take("(")) return {number(what), steps};
    if (parameters.empty()) fail(std::string(what) + " is a formula, but the define has no parameters");
    const unsigned base = number(what);
    std::vector<bool> seen(parameters.size(), false);
    do {
      expect("+", "+ in a formula");
      expect("(", "( before a parameter");
      skip_blanks();
      const std::string used = name();
      const auto found = std::find(parameters.begin(), parameters.end(), used);
      if (found == parameters.end()) fail("the formula uses '" + used + "', which is not a parameter of the define");
      const std::size_t k = static_cast<std::size_t>(found - parameters.begin());
      if (seen[k]) fail("the formula uses '" + used + "' twice");
      seen[k] = true;
      expect(")", ") after a parameter");
      expect("*", "* in a formula");
      steps[k] = number(what);
      skip_blanks();
    } while (!take(")"));
    return {base, steps};
  }
  std::string_view rest() const { return text_.substr(pos_); }
  [[noreturn]] void fail(const std::string& why) const {
    throw QmdError("line " + std::to_string(number_) + ": " + why + ": " + std::string(text_));
  }

 private:
  std::string_view text_;
  std::size_t number_;
  std::size_t pos_ = 0;
};

/// Only blanks or a comment after the define's value.
bool only_a_comment(std::string_view rest) {
  const std::size_t first = rest.find_first_not_of(" \t");
  if (first == std::string_view::npos) return true;
  rest.remove_prefix(first);
  if (rest.starts_with("//")) return true;
  if (rest.starts_with("/*")) {
    const std::size_t end = rest.find("*/", 2);
    return end != std::string_view::npos && only_a_comment(rest.substr(end + 2));
  }
  return false;
}

}  // namespace

std::vector<MwDefine> parse_mw_defines(std::string_view header_text) {
  std::vector<MwDefine> defines;
  std::size_t number = 0;
  while (!header_text.empty()) {
    ++number;
    std::size_t end = header_text.find('\n');
    std::string_view text = header_text.substr(0, end);
    header_text.remove_prefix(end == std::string_view::npos ? header_text.size() : end + 1);
    if (text.ends_with('\r')) text.remove_suffix(1);

    Line line(text, number);
    line.skip_blanks();
    if (!line.take("#")) continue;
    line.skip_blanks();
    if (!line.take("define")) continue;
    line.skip_blanks();
    MwDefine define;
    define.name = line.name();
    if (define.name.empty()) continue;
    if (line.take("(")) {
      do {
        line.skip_blanks();
        define.parameters.push_back(line.name());
        if (define.parameters.back().empty()) break;  // not a list of names: not an MW define
        line.skip_blanks();
      } while (line.take(","));
      if (define.parameters.back().empty() || !line.take(")")) continue;
    }
    line.skip_blanks();
    if (!line.take("MW(")) continue;  // a define of a value, not of a range

    auto [hi_base, hi_steps] = line.bound(define.parameters, "hi");
    line.expect(":", ": between hi and lo");
    auto [lo_base, lo_steps] = line.bound(define.parameters, "lo");
    line.expect(")", ") closing MW(");
    if (!only_a_comment(line.rest())) line.fail("unexpected text after MW(...)");
    if (hi_base < lo_base) line.fail("hi is below lo");
    define.hi_base = hi_base;
    define.lo_base = lo_base;
    define.hi_steps = std::move(hi_steps);
    define.lo_steps = std::move(lo_steps);
    defines.push_back(std::move(define));
  }
  return defines;
}

}  // namespace launchlab::qmd
