// Owns the command's JSON output: a small streaming writer with two-space indentation that
// escapes strings and prints numbers so every file it writes parses as standard JSON.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace smartarrays::cli {

/// Writes one JSON document; keys and values are appended in order, containers nest.
class JsonWriter {
 public:
  /// A writer appending to out.
  explicit JsonWriter(std::ostream& out) : out_(out) {}

  /// Opens an object (as a value, or after key()).
  void begin_object() { open('{'); }
  /// Closes the innermost object.
  void end_object() { close('}'); }
  /// Opens an array.
  void begin_array() { open('['); }
  /// Closes the innermost array.
  void end_array() { close(']'); }
  /// Starts a member of the innermost object; the next value is its value.
  void key(std::string_view name) {
    separate();
    write_string(name);
    out_ << ": ";
    after_key_ = true;
  }
  /// A string value.
  void value(std::string_view s) {
    separate();
    write_string(s);
  }
  /// A string value (keeps string literals from turning into bool).
  void value(const char* s) { value(std::string_view(s)); }
  /// A boolean value.
  void value(bool b) {
    separate();
    out_ << (b ? "true" : "false");
  }
  /// An integer value.
  void value(std::uint64_t v) {
    separate();
    out_ << v;
  }
  /// An integer value.
  void value(std::int64_t v) {
    separate();
    out_ << v;
  }
  /// An integer value.
  void value(int v) { value(static_cast<std::int64_t>(v)); }
  /// An integer value.
  void value(unsigned v) { value(static_cast<std::uint64_t>(v)); }
  /// A number; non-finite values become null (JSON has no NaN or infinity).
  void value(double v) {
    separate();
    if (!std::isfinite(v)) {
      out_ << "null";
      return;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    out_ << buf;
  }
  /// key(name) then value(v).
  template <typename T>
  void member(std::string_view name, const T& v) {
    key(name);
    value(v);
  }
  /// Ends the document with a newline.
  void finish() { out_ << '\n'; }

 private:
  void open(char bracket) {
    separate();
    out_ << bracket;
    first_.push_back(true);
  }
  void close(char bracket) {
    const bool empty = first_.back();
    first_.pop_back();
    if (!empty) newline();
    out_ << bracket;
  }
  // Comma and newline before every element except the first of its container, and none after a key.
  void separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (first_.empty()) return;
    if (!first_.back()) out_ << ',';
    first_.back() = false;
    newline();
  }
  void newline() { out_ << '\n' << std::string(2 * first_.size(), ' '); }
  void write_string(std::string_view s) {
    out_ << '"';
    for (const char c : s) {
      switch (c) {
        case '"': out_ << "\\\""; break;
        case '\\': out_ << "\\\\"; break;
        case '\n': out_ << "\\n"; break;
        case '\t': out_ << "\\t"; break;
        default:
          if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
            out_ << buf;
          } else {
            out_ << c;
          }
      }
    }
    out_ << '"';
  }

  std::ostream& out_;
  std::vector<bool> first_;  // per open container: no element written yet
  bool after_key_ = false;
};

}  // namespace smartarrays::cli
