#include "launchlab/grader/value.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace launchlab::grader {

const Value* Value::find(std::string_view key) const {
  const auto* object = std::get_if<Object>(&data_);
  if (!object) return nullptr;
  for (const auto& [name, value] : *object) {
    if (name == key) return &value;
  }
  return nullptr;
}

Value& Value::operator[](std::string_view key) {
  if (is_null()) data_ = Object{};
  auto& object = as_object();
  for (auto& [name, value] : object) {
    if (name == key) return value;
  }
  object.emplace_back(std::string(key), Value{});
  return object.back().second;
}

namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when invalid.
std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char lead = byte(i);
  std::size_t length;
  std::uint32_t code;
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) { length = 2; code = lead & 0x1F; }
  else if ((lead & 0xF0) == 0xE0) { length = 3; code = lead & 0x0F; }
  else if ((lead & 0xF8) == 0xF0) { length = 4; code = lead & 0x07; }
  else return 0;
  if (i + length > s.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3F);
  }
  static constexpr std::uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < smallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return length;
}

void append_utf8(std::string& out, std::uint32_t code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"': out += "\\\""; ++i; continue;
      case '\\': out += "\\\\"; ++i; continue;
      case '\n': out += "\\n"; ++i; continue;
      case '\r': out += "\\r"; ++i; continue;
      case '\t': out += "\\t"; ++i; continue;
      default: break;
    }
    if (c < 0x20 || c == 0x7F) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
      ++i;
      continue;
    }
    std::size_t length = utf8_sequence_length(s, i);
    if (length == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.substr(i, length));
      i += length;
    }
  }
  out += '"';
}

std::string Value::dump(int indent) const {
  std::string out;
  dump_to(out, indent, 0);
  return out;
}

void Value::dump_to(std::string& out, int indent, int depth) const {
  auto newline = [&](int level) {
    if (indent < 0) return;
    out += '\n';
    out.append(static_cast<std::size_t>(indent * level), ' ');
  };
  if (is_null()) {
    out += "null";
  } else if (is_bool()) {
    out += as_bool() ? "true" : "false";
  } else if (is_int()) {
    out += std::to_string(as_int());
  } else if (const double* d = std::get_if<double>(&data_)) {
    if (!std::isfinite(*d)) {
      out += "null";
    } else {
      char buffer[32];
      std::snprintf(buffer, sizeof buffer, "%.17g", *d);
      out += buffer;
    }
  } else if (is_string()) {
    append_json_string(out, as_string());
  } else if (is_array()) {
    const auto& array = as_array();
    out += '[';
    for (std::size_t i = 0; i < array.size(); ++i) {
      if (i) out += ',';
      newline(depth + 1);
      array[i].dump_to(out, indent, depth + 1);
    }
    if (!array.empty()) newline(depth);
    out += ']';
  } else {
    const auto& object = as_object();
    out += '{';
    for (std::size_t i = 0; i < object.size(); ++i) {
      if (i) out += ',';
      newline(depth + 1);
      append_json_string(out, object[i].first);
      out += indent < 0 ? ":" : ": ";
      object[i].second.dump_to(out, indent, depth + 1);
    }
    if (!object.empty()) newline(depth);
    out += '}';
  }
}

// ---------------------------------------------------------------- JSON

namespace {

class JsonParser {
 public:
  explicit JsonParser(std::string_view text) : text_(text) {}

  Value parse_document() {
    Value value = parse_value(0);
    skip_space();
    if (pos_ != text_.size()) fail("unexpected text after the value");
    return value;
  }

 private:
  // Deep nesting is how a hostile report would blow the stack.
  static constexpr int kMaxDepth = 256;

  [[noreturn]] void fail(const std::string& why) const {
    throw ParseError("JSON, byte " + std::to_string(pos_) + ": " + why);
  }

  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\r' || text_[pos_] == '\t')) {
      ++pos_;
    }
  }

  bool consume(std::string_view word) {
    if (text_.substr(pos_, word.size()) == word) {
      pos_ += word.size();
      return true;
    }
    return false;
  }

  Value parse_value(int depth) {
    if (depth > kMaxDepth) fail("nested too deeply");
    skip_space();
    if (pos_ >= text_.size()) fail("unexpected end of input");
    char c = text_[pos_];
    if (c == '{') return parse_object(depth);
    if (c == '[') return parse_array(depth);
    if (c == '"') return Value(parse_string());
    if (consume("true")) return Value(true);
    if (consume("false")) return Value(false);
    if (consume("null")) return Value();
    if (c == '-' || (c >= '0' && c <= '9')) return parse_number();
    fail(std::string("unexpected character '") + c + "'");
  }

  // The members of an object and the elements of an array alike: after the
  // opening bracket, none or several items parted by ',' up to `close`.
  template <class ParseItem>
  void parse_items(char close, ParseItem parse_item) {
    ++pos_;
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == close) {
      ++pos_;
      return;
    }
    while (true) {
      parse_item();
      skip_space();
      if (pos_ < text_.size() && text_[pos_] == ',') { ++pos_; continue; }
      if (pos_ < text_.size() && text_[pos_] == close) { ++pos_; return; }
      fail(std::string("expected ',' or '") + close + "'");
    }
  }

  Value parse_object(int depth) {
    Value::Object object;
    parse_items('}', [&] {
      skip_space();
      if (pos_ >= text_.size() || text_[pos_] != '"') fail("expected a member name");
      std::string key = parse_string();
      skip_space();
      if (pos_ >= text_.size() || text_[pos_] != ':') fail("expected ':'");
      ++pos_;
      object.emplace_back(std::move(key), parse_value(depth + 1));
    });
    return Value(std::move(object));
  }

  Value parse_array(int depth) {
    Value::Array array;
    parse_items(']', [&] { array.push_back(parse_value(depth + 1)); });
    return Value(std::move(array));
  }

  std::uint32_t parse_hex4() {
    if (pos_ + 4 > text_.size()) fail("truncated \\u escape");
    std::uint32_t code = 0;
    auto [end, error] = std::from_chars(text_.data() + pos_, text_.data() + pos_ + 4, code, 16);
    if (error != std::errc() || end != text_.data() + pos_ + 4) fail("bad \\u escape");
    pos_ += 4;
    return code;
  }

  std::string parse_string() {
    ++pos_;
    std::string out;
    while (true) {
      if (pos_ >= text_.size()) fail("unterminated string");
      char c = text_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') { out += c; continue; }
      if (pos_ >= text_.size()) fail("unterminated escape");
      char e = text_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          std::uint32_t code = parse_hex4();
          if (code >= 0xD800 && code <= 0xDBFF && text_.substr(pos_, 2) == "\\u") {
            pos_ += 2;
            std::uint32_t low = parse_hex4();
            if (low < 0xDC00 || low > 0xDFFF) fail("bad surrogate pair");
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          } else if (code >= 0xD800 && code <= 0xDFFF) {
            code = 0xFFFD;
          }
          append_utf8(out, code);
          break;
        }
        default: fail(std::string("unknown escape \\") + e);
      }
    }
  }

  Value parse_number() {
    std::size_t start = pos_;
    if (text_[pos_] == '-') ++pos_;
    bool integral = true;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c >= '0' && c <= '9') { ++pos_; continue; }
      if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') { integral = false; ++pos_; continue; }
      break;
    }
    std::string_view digits = text_.substr(start, pos_ - start);
    if (integral) {
      std::int64_t i = 0;
      auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), i);
      if (error == std::errc() && end == digits.data() + digits.size()) return Value(i);
    }
    double d = 0;
    auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), d);
    if (error != std::errc() || end != digits.data() + digits.size()) {
      pos_ = start;
      fail("bad number");
    }
    return Value(d);
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace

Value parse_json(std::string_view text) { return JsonParser(text).parse_document(); }

}  // namespace launchlab::grader
