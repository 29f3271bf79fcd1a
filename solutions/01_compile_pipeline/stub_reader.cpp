// Part C: reading the host stub that cicc writes (x.cudafe1.stub.c).
#include "pipeline.h"

#include <cctype>
#include <stdexcept>
#include <string>

namespace launchlab::pipeline {
namespace {

bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The stub file is C, but it is a compiler's output: no comments, no string
// literals in the code we read, and `# 1 "vadd.cu"` line markers between
// functions. Blanking the preprocessor lines (keeping their newlines, so that
// positions still map to the same line numbers) lets the rest of the reader
// look at plain code.
std::string without_directives(std::string_view text) {
  std::string code(text);
  std::size_t start = 0;
  while (start < code.size()) {
    std::size_t end = code.find('\n', start);
    if (end == std::string::npos) end = code.size();
    std::size_t first = code.find_first_not_of(" \t", start);
    if (first < end && code[first] == '#') {
      for (std::size_t i = start; i < end; ++i) code[i] = ' ';
    }
    start = end + 1;
  }
  return code;
}

std::size_t line_of(std::string_view text, std::size_t pos) {
  std::size_t line = 1;
  for (std::size_t i = 0; i < pos && i < text.size(); ++i) {
    if (text[i] == '\n') ++line;
  }
  return line;
}

[[noreturn]] void fail(std::string_view text, std::size_t pos, const std::string& what) {
  throw std::runtime_error("line " + std::to_string(line_of(text, pos)) + ": " + what);
}

std::size_t skip_blanks(std::string_view text, std::size_t pos) {
  while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
  return pos;
}

// text[open] is an opening bracket; returns the position of its partner.
std::size_t matching(std::string_view text, std::size_t open, char open_char, char close_char,
                     const std::string& what) {
  int depth = 0;
  for (std::size_t i = open; i < text.size(); ++i) {
    if (text[i] == open_char) ++depth;
    else if (text[i] == close_char && --depth == 0) return i;
  }
  fail(text, open, what + ": '" + open_char + "' is never closed");
}

std::string trim(std::string_view s) {
  std::size_t first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  std::size_t last = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(first, last - first + 1));
}

// The arguments of a call, split at the commas that are not nested inside
// parentheses: "((void ( *)(float *, float))scale<float, (int)2> )" is one
// argument, because the cast wraps the whole expression in parentheses.
std::vector<std::string> split_call_arguments(std::string_view inside) {
  std::vector<std::string> args;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < inside.size(); ++i) {
    if (inside[i] == '(') ++depth;
    else if (inside[i] == ')') --depth;
    else if (inside[i] == ',' && depth == 0) {
      args.push_back(trim(inside.substr(start, i - start)));
      start = i + 1;
    }
  }
  std::string last = trim(inside.substr(start));
  if (!last.empty() || !args.empty()) args.push_back(last);
  return args;
}

// Every call `name(...)` in text[begin, end), as (position, argument list).
// The name must be a whole identifier: "__cudaSetupArg" does not match inside
// "__cudaSetupArgSimple".
std::vector<std::pair<std::size_t, std::vector<std::string>>> find_calls(std::string_view text, std::size_t begin,
                                                                         std::size_t end, std::string_view name) {
  std::vector<std::pair<std::size_t, std::vector<std::string>>> calls;
  std::size_t pos = begin;
  while ((pos = text.find(name, pos)) != std::string_view::npos && pos < end) {
    std::size_t after = pos + name.size();
    bool whole = (pos == 0 || !is_identifier_char(text[pos - 1])) &&
                 (after >= text.size() || !is_identifier_char(text[after]));
    std::size_t open = skip_blanks(text, after);
    if (!whole || open >= end || text[open] != '(') {
      pos = after;
      continue;
    }
    std::size_t close = matching(text, open, '(', ')', std::string(name));
    calls.emplace_back(pos, split_call_arguments(text.substr(open + 1, close - open - 1)));
    pos = close + 1;
  }
  return calls;
}

// "24UL" -> 24. The stub writes offsets as unsigned long literals.
std::size_t parse_offset(std::string_view text, std::size_t pos, const std::string& literal) {
  std::size_t digits = 0;
  while (digits < literal.size() && std::isdigit(static_cast<unsigned char>(literal[digits]))) ++digits;
  bool suffix_ok = true;
  for (std::size_t i = digits; i < literal.size(); ++i) {
    char c = literal[i];
    if (c != 'u' && c != 'U' && c != 'l' && c != 'L') suffix_ok = false;
  }
  if (digits == 0 || !suffix_ok) fail(text, pos, "offset '" + literal + "' is not a number like 24UL");
  return std::stoul(literal.substr(0, digits));
}

void read_setup_args(std::string_view code, std::size_t begin, std::size_t end, StubKernel& kernel) {
  // Both kinds of call, merged in the order they appear.
  auto simple = find_calls(code, begin, end, "__cudaSetupArgSimple");
  auto by_reference = find_calls(code, begin, end, "__cudaSetupArg");
  std::size_t i = 0, j = 0;
  while (i < simple.size() || j < by_reference.size()) {
    bool take_simple = j >= by_reference.size() || (i < simple.size() && simple[i].first < by_reference[j].first);
    const auto& [pos, args] = take_simple ? simple[i++] : by_reference[j++];
    if (args.size() != 2) fail(code, pos, "a __cudaSetupArg call needs two arguments");
    kernel.arguments.push_back({args[0], parse_offset(code, pos, args[1]), !take_simple});
  }
}

}  // namespace

StubFile read_stub(std::string_view text) {
  StubFile stub;

  // #include "vadd.fatbin.c": the stub pulls in the fat binary as a C array,
  // so the one host object carries both the stub and the device code.
  std::size_t start = 0;
  while (start < text.size() && stub.fatbin_include.empty()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string line = trim(text.substr(start, end - start));
    start = end + 1;
    if (line.rfind("#include", 0) != 0) continue;
    std::size_t open = line.find('"');
    std::size_t close = line.rfind('"');
    if (open == std::string::npos || close <= open) continue;
    std::string name = line.substr(open + 1, close - open - 1);
    if (name.size() >= 9 && name.compare(name.size() - 9, 9, ".fatbin.c") == 0) stub.fatbin_include = name;
  }

  const std::string code = without_directives(text);
  const std::string_view view(code);

  // Every `__device_stub_<name>` identifier is a declaration, a call or a
  // definition; a definition is the one whose parameter list is followed by
  // a body in braces.
  constexpr std::string_view kPrefix = "__device_stub_";
  std::size_t pos = 0;
  while ((pos = view.find(kPrefix, pos)) != std::string_view::npos) {
    if (pos > 0 && is_identifier_char(view[pos - 1])) {  // e.g. __wrapper__device_stub_scale
      pos += kPrefix.size();
      continue;
    }
    std::size_t name_end = pos;
    while (name_end < view.size() && is_identifier_char(view[name_end])) ++name_end;
    std::string name(view.substr(pos, name_end - pos));
    std::size_t open = skip_blanks(view, name_end);
    if (open >= view.size() || view[open] != '(') {
      pos = name_end;
      continue;
    }
    std::size_t close = matching(view, open, '(', ')', name);
    std::size_t body = skip_blanks(view, close + 1);
    if (body >= view.size() || view[body] != '{') {
      pos = close + 1;  // a declaration or a call
      continue;
    }
    std::size_t body_end = matching(view, body, '{', '}', name);

    StubKernel kernel;
    kernel.stub_name = name;
    kernel.mangled_name = name.substr(kPrefix.size());
    read_setup_args(view, body, body_end, kernel);
    stub.kernels.push_back(std::move(kernel));
    pos = body_end + 1;
  }

  // __cudaRegisterEntry(handle, host function, device symbol, max threads):
  // the table the runtime consults when the host function is launched.
  for (const auto& [call_pos, args] : find_calls(view, 0, view.size(), "__cudaRegisterEntry")) {
    if (args.size() != 4) fail(view, call_pos, "__cudaRegisterEntry needs four arguments");
    RegisteredEntry entry;
    entry.symbol = args[2];
    std::string limit = args[3];
    // "(-1)" or "128"
    while (limit.size() >= 2 && limit.front() == '(' && limit.back() == ')') limit = trim(limit.substr(1, limit.size() - 2));
    try {
      std::size_t used = 0;
      entry.max_threads = std::stoi(limit, &used);
      if (used != limit.size()) throw std::invalid_argument(limit);
    } catch (const std::logic_error&) {
      fail(view, call_pos, "__cudaRegisterEntry's thread limit '" + args[3] + "' is not a number");
    }
    stub.entries.push_back(std::move(entry));
  }
  return stub;
}

}  // namespace launchlab::pipeline
