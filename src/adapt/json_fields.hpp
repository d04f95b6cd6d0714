// Owns strict reading of the adaptive layer's JSON documents: parsing any bytes, in linear time, into
// a document of bounded depth or an Error(invalid_argument) naming the source, and every field looked
// up through a path ("model.read_gbs[1][0]") so that a missing, mistyped or out-of-range value is
// rejected with Error(invalid_argument) naming the field, its source and the text it had, quoted and cut.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

#include "os/open_file.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::adapt::detail {

using Json = nlohmann::ordered_json;

/// A JSON value and the path that names it in errors.
class Field {
 public:
  /// The document root of source.
  Field(const Json& value, std::string_view source) : value_(&value), source_(source), path_() {}

  /// Throws "<source>: <path>: <why>".
  [[noreturn]] void fail(const std::string& why) const {
    throw_error(ErrorCode::invalid_argument,
                std::string(source_) + ": " + (path_.empty() ? std::string("document") : path_) + ": " + why);
  }
  /// Member key of this object; missing (or this not an object) fails naming the member.
  Field at(const char* key) const {
    if (!value_->is_object()) fail("expected an object, got " + shown());
    const auto it = value_->find(key);
    Field member(*this, path_.empty() ? key : path_ + "." + key);
    if (it == value_->end()) member.fail("missing");
    member.value_ = &*it;
    return member;
  }
  /// Whether this object has member key.
  bool has(const char* key) const { return value_->is_object() && value_->contains(key); }
  /// Element i of this array.
  Field operator[](std::size_t i) const {
    Field element(*this, path_ + "[" + std::to_string(i) + "]");
    element.value_ = &(*value_)[i];
    return element;
  }
  /// Length of this array; fails unless it is one (and, when expected > 0, of that length).
  std::size_t array_size(std::size_t expected = 0) const {
    if (!value_->is_array()) fail("expected an array, got " + shown());
    if (expected != 0 && value_->size() != expected) {
      fail("expected " + std::to_string(expected) + " entries, got " + std::to_string(value_->size()));
    }
    return value_->size();
  }
  /// A finite number >= min (> min when strict).
  double number(double min, bool strict) const {
    if (!value_->is_number()) fail("expected a number, got " + shown());
    const double v = value_->get<double>();
    if (!std::isfinite(v) || (strict ? !(v > min) : !(v >= min))) {
      fail(std::string("expected a number ") + (strict ? "> " : ">= ") + number_text(min) + ", got " + shown());
    }
    return v;
  }
  /// A number in [min, max]: a rate or time the model divides or multiplies by, within what a
  /// machine can measure (docs/adaptivity.md).
  double number_in(double min, double max) const {
    if (!value_->is_number()) fail("expected a number, got " + shown());
    const double v = value_->get<double>();
    if (!(v >= min && v <= max)) fail("expected a number in " + number_text(min) + ".." + number_text(max) + ", got " + shown());
    return v;
  }
  /// A whole number in [min, max].
  std::uint64_t whole(std::uint64_t min, std::uint64_t max) const {
    if (!value_->is_number_unsigned() && !(value_->is_number_integer() && value_->get<std::int64_t>() >= 0)) {
      fail("expected a whole number in " + std::to_string(min) + ".." + std::to_string(max) + ", got " + shown());
    }
    const std::uint64_t v = value_->get<std::uint64_t>();
    if (v < min || v > max) {
      fail("expected a whole number in " + std::to_string(min) + ".." + std::to_string(max) + ", got " + shown());
    }
    return v;
  }
  /// A string.
  std::string text() const {
    if (!value_->is_string()) fail("expected a string, got " + shown());
    return value_->get<std::string>();
  }
  /// A string of min_length to 256 printable ASCII characters: a name or label shown as it is.
  std::string label(std::size_t min_length) const {
    std::string s = text();
    const bool printable = std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
    if (s.size() < min_length || s.size() > 256 || !printable) {
      fail("expected " + std::to_string(min_length) + " to 256 printable ASCII characters, got " + shown());
    }
    return s;
  }
  /// A boolean.
  bool boolean() const {
    if (!value_->is_boolean()) fail("expected true or false, got " + shown());
    return value_->get<bool>();
  }
  /// The JSON value.
  const Json& json() const noexcept { return *value_; }

 private:
  Field(const Field& parent, std::string path) : value_(parent.value_), source_(parent.source_), path_(std::move(path)) {}
  // The value's JSON text, quoted and cut (util::quoted). An array or object shows its first
  // members only, each nested one as [...] or {...}: the text is built one level deep and stops
  // once past the cut, so a huge or deeply nested value costs neither memory nor stack.
  std::string shown() const {
    if (!value_->is_structured()) return util::quoted(scalar_text(*value_));
    std::string text(1, value_->is_array() ? '[' : '{');
    for (auto it = value_->begin(); it != value_->end(); ++it) {
      if (text.size() > shown_bytes) return util::quoted(text, shown_bytes);
      if (it != value_->begin()) text += ',';
      if (value_->is_object()) text += scalar_text(Json(it.key())) + ':';
      text += it->is_array() ? "[...]" : it->is_object() ? "{...}" : scalar_text(*it);
    }
    text += value_->is_array() ? ']' : '}';
    return util::quoted(text, shown_bytes);
  }
  static std::string scalar_text(const Json& scalar) { return scalar.dump(-1, ' ', false, Json::error_handler_t::replace); }
  static std::string number_text(double v) {
    std::ostringstream text;
    text << v;
    return text.str();
  }

  static constexpr std::size_t shown_bytes = 80;  // util::quoted's default cut

  const Json* value_;
  std::string_view source_;
  std::string path_;
};

/// The deepest nesting of arrays and objects a document may have (profiles need 4). nlohmann's
/// parser does not recurse, but copying, comparing or printing a value does: a deeper document is
/// refused while it is parsed, before anything walks it.
inline constexpr int max_document_depth = 64;

/// nlohmann's message without its "[json.exception.KIND.ID] " tag, the input text it quotes
/// ("last read: '...'", "number overflow parsing '...'": raw bytes, as long as the input) quoted
/// again with util::quoted (escaped and cut), the rest with util::printable.
inline std::string json_failure(const Json::exception& e) {
  std::string_view m = e.what();
  if (const std::size_t tag = m.find("] "); m.starts_with("[json.exception.") && tag != std::string_view::npos) {
    m.remove_prefix(tag + 2);
  }
  for (const std::string_view marker : {std::string_view("last read: '"), std::string_view("parsing '")}) {
    const std::size_t at = m.find(marker);
    if (at == std::string_view::npos) continue;
    const std::size_t start = at + marker.size();
    // The text ends at the last quote, or before "; expected ..." when the parser adds one.
    std::size_t end = m.ends_with('\'') ? m.size() - 1 : m.rfind("'; expected ");
    if (end == std::string_view::npos || end < start) end = m.size();
    return util::printable(m.substr(0, start - 1)) + util::quoted(m.substr(start, end - start)) +
           util::printable(m.substr(std::min(end + 1, m.size())));
  }
  return util::printable(m);
}

/// Parses text as JSON in time and memory linear in its length, stopping with Error(cancelled) when
/// the calling thread's interrupt check asks (runtime::InterruptScope). Invalid JSON (syntax, a
/// number out of range, invalid UTF-8) and nesting deeper than max_document_depth fail with
/// Error(invalid_argument) naming source and, quoted and cut, the text at fault. A key an object
/// repeats keeps its first place and its last value, as nlohmann's parser does.
Json parse_document(std::string_view text, std::string_view source);

/// The document's "format" must be expected.
inline void check_format(const Field& root, const char* expected) {
  const std::string format = root.at("format").text();
  if (format != expected) root.at("format").fail(std::string("expected \"") + expected + "\", got " + util::quoted(format));
}

/// The largest profile file read: machine and workload profiles are a few kilobytes.
inline constexpr std::size_t profile_file_limit = std::size_t{16} << 20;
/// Reads the file at path, opened as kind asks (os::InputFile: a stream may be a FIFO, waited on
/// until Ctrl-C, Error(cancelled)); Error(os_error) naming it and the reason when it cannot be
/// opened or read, Error(invalid_argument) when it holds more than profile_file_limit bytes.
std::string read_text_file(const std::string& path, os::InputKind kind = os::InputKind::stream);
/// Writes text to path, creating its parent directory; Error(os_error) naming it when it cannot.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace smartarrays::adapt::detail
