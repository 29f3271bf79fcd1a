// Part D: reading the PTX that cicc writes.
#include "pipeline.h"

#include <array>
#include <cctype>
#include <stdexcept>
#include <string>

namespace launchlab::pipeline {
namespace {

struct Token {
  std::string text;
  std::size_t line;
};

[[noreturn]] void fail(std::size_t line, const std::string& what) {
  throw std::runtime_error("line " + std::to_string(line) + ": " + what);
}

// Comments become blanks (newlines kept, so line numbers stay right). PTX has
// C++-style comments and cicc writes plenty of them ("// .globl vadd",
// "{ // callseq 0, 0"): a brace or a .param inside one must not count.
std::string without_comments(std::string_view text) {
  std::string out(text);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] == '/' && i + 1 < out.size() && out[i + 1] == '/') {
      while (i < out.size() && out[i] != '\n') out[i++] = ' ';
    } else if (out[i] == '/' && i + 1 < out.size() && out[i + 1] == '*') {
      while (i < out.size() && !(out[i] == '*' && i + 1 < out.size() && out[i + 1] == '/')) {
        if (out[i] != '\n') out[i] = ' ';
        ++i;
      }
      if (i < out.size()) out[i] = ' ';
      if (i + 1 < out.size()) out[i + 1] = ' ';
      ++i;
    }
  }
  return out;
}

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%' || c == '.';
}

// Words (directives like ".param", types like ".u64", names, numbers,
// registers like "%r") and single punctuation characters.
std::vector<Token> tokenize(std::string_view code) {
  std::vector<Token> tokens;
  std::size_t line = 1;
  for (std::size_t i = 0; i < code.size();) {
    char c = code[i];
    if (c == '\n') { ++line; ++i; continue; }
    if (std::isspace(static_cast<unsigned char>(c))) { ++i; continue; }
    if (is_word_char(c)) {
      std::size_t start = i;
      while (i < code.size() && is_word_char(code[i])) ++i;
      tokens.push_back({std::string(code.substr(start, i - start)), line});
    } else {
      tokens.push_back({std::string(1, c), line});
      ++i;
    }
  }
  return tokens;
}

std::size_t to_number(const Token& token, const std::string& what) {
  if (token.text.empty()) fail(token.line, what + " expected");
  for (char c : token.text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) fail(token.line, what + " expected, got '" + token.text + "'");
  }
  return std::stoul(token.text);
}

// One `.param ...` declaration of an entry's parameter list, as the tokens
// between two commas: .param [.align N] [.ptr [.space] [.align N]] .type name [ '[' N ']' ]
PtxParam read_param(const std::vector<Token>& tokens, std::size_t begin, std::size_t end, std::size_t line) {
  if (begin >= end || tokens[begin].text != ".param") fail(line, "a parameter must start with .param");
  PtxParam param;
  std::optional<std::size_t> align;
  std::size_t i = begin + 1;
  bool pointer = false;
  for (; i < end && tokens[i].text.size() > 1 && tokens[i].text[0] == '.'; ++i) {
    const std::string& word = tokens[i].text;
    if (word == ".align") {
      if (i + 1 >= end) fail(tokens[i].line, ".align needs a number");
      std::size_t value = to_number(tokens[i + 1], "an alignment");
      // After .ptr the alignment is the pointee's, not the parameter's.
      if (!pointer) align = value;
      ++i;
    } else if (word == ".ptr") {
      pointer = true;
    } else if (word == ".global" || word == ".shared" || word == ".const" || word == ".local") {
      // the state space a .ptr parameter points into
    } else if (ptx_type_size(word)) {
      param.type = word;
    } else {
      fail(tokens[i].line, "unknown parameter type or qualifier '" + word + "'");
    }
  }
  if (param.type.empty()) fail(line, "a parameter without a type");
  if (i >= end) fail(line, "a parameter without a name");
  param.name = tokens[i].text;
  ++i;
  std::size_t element = *ptx_type_size(param.type);
  param.size = element;
  if (i < end && tokens[i].text == "[") {
    if (i + 2 >= end || tokens[i + 2].text != "]") fail(tokens[i].line, "array parameter without ']'");
    param.array_length = to_number(tokens[i + 1], "an array length");
    param.size = element * *param.array_length;
    i += 3;
  }
  if (i != end) fail(tokens[i].line, "unexpected '" + tokens[i].text + "' after parameter " + param.name);
  // Without .align a parameter is aligned to its element, as in C.
  param.align = align.value_or(element);
  return param;
}

// `.reg .b32 %r<6>;`, `.reg .b32 temp_param_reg;`, `.reg .b32 a, b;`
// tokens[i] is ".reg"; returns the position after the ';'.
std::size_t read_reg(const std::vector<Token>& tokens, std::size_t i, std::size_t end, PtxEntry& entry) {
  std::size_t line = tokens[i].line;
  ++i;
  std::string type;
  while (i < end && tokens[i].text.size() > 1 && tokens[i].text[0] == '.') {
    if (!type.empty()) type += ' ';  // a vector register: ".v4 .b32"
    type += tokens[i++].text;
  }
  if (type.empty()) fail(line, ".reg without a type");
  while (true) {
    if (i >= end || tokens[i].text == "}") fail(line, ".reg declaration without ';'");
    PtxRegister reg;
    reg.type = type;
    reg.prefix = tokens[i++].text;
    reg.count = 1;
    reg.parameterized = false;
    if (i < end && tokens[i].text == "<") {
      if (i + 2 >= end || tokens[i + 2].text != ">") fail(line, "'<' without '>' in .reg");
      // %r<6> declares six registers, %r0 to %r5.
      reg.count = to_number(tokens[i + 1], "a register count");
      reg.parameterized = true;
      i += 3;
    }
    entry.registers.push_back(std::move(reg));
    if (i >= end) fail(line, ".reg declaration without ';'");
    if (tokens[i].text == ";") return i + 1;
    if (tokens[i].text != ",") fail(line, ".reg declaration without ';' (found '" + tokens[i].text + "')");
    ++i;
  }
}

std::string trim(std::string_view s) {
  std::size_t first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  std::size_t last = s.find_last_not_of(" \t\r");
  return std::string(s.substr(first, last - first + 1));
}

}  // namespace

std::optional<std::size_t> ptx_type_size(std::string_view type) {
  struct Size {
    std::string_view type;
    std::size_t size;
  };
  static constexpr std::array<Size, 20> sizes = {{
      {".u8", 1},  {".s8", 1},  {".b8", 1},   {".u16", 2},  {".s16", 2},    {".b16", 2},    {".f16", 2},
      {".bf16", 2}, {".u32", 4}, {".s32", 4}, {".b32", 4},  {".f32", 4},    {".f16x2", 4},  {".bf16x2", 4},
      {".u64", 8}, {".s64", 8}, {".b64", 8},  {".f64", 8},  {".b128", 16},  {".tf32", 4},
  }};
  for (const Size& s : sizes) {
    if (s.type == type) return s.size;
  }
  return std::nullopt;
}

PtxModule read_ptx(std::string_view text) {
  PtxModule module;
  const std::string code = without_comments(text);

  // The header directives sit on lines of their own at the top.
  std::size_t start = 0;
  while (start < code.size()) {
    std::size_t end = code.find('\n', start);
    if (end == std::string::npos) end = code.size();
    std::string line = trim(std::string_view(code).substr(start, end - start));
    start = end + 1;
    auto after = [&](std::string_view directive) -> std::optional<std::string> {
      if (line.rfind(directive, 0) != 0 || line.size() == directive.size() ||
          !std::isspace(static_cast<unsigned char>(line[directive.size()]))) {
        return std::nullopt;
      }
      return trim(std::string_view(line).substr(directive.size()));
    };
    if (auto v = after(".version"); v && module.version.empty()) module.version = *v;
    else if (auto t = after(".target"); t && module.target.empty()) module.target = *t;
    else if (auto a = after(".address_size"); a && module.address_size == 0) module.address_size = std::stoi(*a);
  }

  const std::vector<Token> tokens = tokenize(code);
  std::size_t statement_start = 0;  // where the current top-level declaration began
  int depth = 0;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::string& t = tokens[i].text;
    if (t == "{") ++depth;
    else if (t == "}") --depth;
    if (depth > 0) continue;
    if (t == ";" || t == "}") {
      statement_start = i + 1;
      continue;
    }
    if (t != ".entry") continue;

    PtxEntry entry;
    // Linking directives come before .entry: .visible (exported), .weak,
    // or nothing for a static kernel.
    for (std::size_t j = statement_start; j < i; ++j) {
      if (tokens[j].text == ".visible") entry.visible = true;
    }
    std::size_t entry_line = tokens[i].line;
    if (i + 1 >= tokens.size()) fail(entry_line, ".entry without a name");
    entry.name = tokens[++i].text;

    // The parameter list: (.param ..., .param ...) or ().
    if (i + 1 < tokens.size() && tokens[i + 1].text == "(") {
      std::size_t open = ++i;
      std::size_t close = open + 1;
      while (close < tokens.size() && tokens[close].text != ")") ++close;
      if (close >= tokens.size()) fail(tokens[open].line, "the parameter list of " + entry.name + " never closes");
      std::size_t from = open + 1;
      for (std::size_t k = open + 1; k <= close; ++k) {
        if (tokens[k].text == "," || k == close) {
          if (k > from) entry.params.push_back(read_param(tokens, from, k, tokens[from].line));
          else if (k != close || !entry.params.empty()) fail(tokens[k].line, "an empty parameter in " + entry.name);
          from = k + 1;
        }
      }
      i = close;
    }

    // Performance directives (.maxntid 128, 1, 1  .minnctapersm 4 ...) may
    // come between the parameters and the body.
    std::size_t body = i + 1;
    while (body < tokens.size() && tokens[body].text != "{" && tokens[body].text != ";") ++body;
    if (body >= tokens.size()) fail(entry_line, "the entry " + entry.name + " has no body");
    if (tokens[body].text == "{") {
      int inner = 0;
      std::size_t end = body;
      for (; end < tokens.size(); ++end) {
        if (tokens[end].text == "{") ++inner;
        else if (tokens[end].text == "}" && --inner == 0) break;
      }
      if (end >= tokens.size()) fail(tokens[body].line, "the body of " + entry.name + " never closes");
      for (std::size_t k = body + 1; k < end;) {
        if (tokens[k].text == ".reg") k = read_reg(tokens, k, end, entry);
        else ++k;
      }
      i = end;
    } else {
      i = body;  // a declaration without a body
    }
    statement_start = i + 1;
    module.entries.push_back(std::move(entry));
  }
  return module;
}

}  // namespace launchlab::pipeline
