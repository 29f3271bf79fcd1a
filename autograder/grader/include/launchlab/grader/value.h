/// @file
/// One value type for the grader's JSON: GoogleTest's report (read) and
/// results.json (written). lab.toml is the course model's (launchlab/course).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace launchlab::grader {

/// A parse error that says where: the byte offset.
class ParseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A JSON value. Objects keep their keys in insertion order, so that
/// results.json lists tests in the order lab.toml gives them.
class Value {
 public:
  using Array = std::vector<Value>;
  using Object = std::vector<std::pair<std::string, Value>>;

  Value() = default;
  Value(std::nullptr_t) {}
  Value(bool b) : data_(b) {}
  Value(int i) : data_(static_cast<std::int64_t>(i)) {}
  Value(std::int64_t i) : data_(i) {}
  Value(double d) : data_(d) {}
  Value(const char* s) : data_(std::string(s)) {}
  Value(std::string s) : data_(std::move(s)) {}
  Value(Array a) : data_(std::move(a)) {}
  Value(Object o) : data_(std::move(o)) {}

  bool is_null() const { return std::holds_alternative<std::monostate>(data_); }
  bool is_bool() const { return std::holds_alternative<bool>(data_); }
  bool is_int() const { return std::holds_alternative<std::int64_t>(data_); }
  bool is_number() const { return is_int() || std::holds_alternative<double>(data_); }
  bool is_string() const { return std::holds_alternative<std::string>(data_); }
  bool is_array() const { return std::holds_alternative<Array>(data_); }
  bool is_object() const { return std::holds_alternative<Object>(data_); }

  bool as_bool() const { return get<bool>("a boolean"); }
  std::int64_t as_int() const { return get<std::int64_t>("an integer"); }
  double as_number() const {
    if (is_int()) return static_cast<double>(as_int());
    return get<double>("a number");
  }
  const std::string& as_string() const { return get<std::string>("a string"); }
  const Array& as_array() const { return get<Array>("an array"); }
  Array& as_array() { return get<Array>("an array"); }
  const Object& as_object() const { return get<Object>("an object"); }
  Object& as_object() { return get<Object>("an object"); }

  /// The member named key of an object, or nullptr when absent (or not an object).
  const Value* find(std::string_view key) const;
  /// The member named key, added as null when absent; the value becomes an object if null.
  Value& operator[](std::string_view key);

  /// Compact (indent < 0) or indented JSON text.
  std::string dump(int indent = -1) const;

 private:
  template <class T>
  const T& get(const char* what) const {
    if (const T* p = std::get_if<T>(&data_)) return *p;
    throw std::runtime_error(std::string("value is not ") + what);
  }
  template <class T>
  T& get(const char* what) {
    if (T* p = std::get_if<T>(&data_)) return *p;
    throw std::runtime_error(std::string("value is not ") + what);
  }
  void dump_to(std::string& out, int indent, int depth) const;

  std::variant<std::monostate, bool, std::int64_t, double, std::string, Array, Object> data_;
};

/// Parses JSON text (RFC 8259). Throws ParseError naming the byte offset.
Value parse_json(std::string_view text);

/// Appends s to out as a JSON string literal, escaping what JSON requires and
/// replacing invalid UTF-8 (test output can hold anything) with U+FFFD.
void append_json_string(std::string& out, std::string_view s);

}  // namespace launchlab::grader
