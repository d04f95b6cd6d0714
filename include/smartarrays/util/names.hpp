// Owns the one way enum values and their names meet: a table per enum (placement, pinning policy,
// graph variant and format, dangling rule, codec ISA), matched without regard to ASCII case, with
// aliases, and the same error text everywhere: "unknown <what> '<text>' (expected one of: a, b)".
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "smartarrays/error.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::util {

/// One spelling of an enum value; the first entry of a value in its table is the canonical name.
template <typename E>
struct Named {
  E value;                ///< the value
  std::string_view name;  ///< its spelling
};

/// The names of an enum: canonical names for output, every spelling for input.
template <typename E, std::size_t N>
class NameTable {
 public:
  /// what names the kind of value in error messages ("placement", "graph format").
  constexpr NameTable(std::string_view what, std::array<Named<E>, N> entries) : what_(what), entries_(entries) {}

  /// The canonical name of value, or "invalid" for a value outside the enum (e.g. a bad C ABI integer).
  constexpr std::string_view name(E value) const noexcept {
    for (const Named<E>& entry : entries_) {
      if (entry.value == value) return entry.name;
    }
    return "invalid";
  }

  /// name(value) as a C string: every name is a string literal, so it is NUL-terminated.
  constexpr const char* c_name(E value) const noexcept { return name(value).data(); }

  /// The value spelled text (any ASCII case, any alias); throws Error(invalid_argument) naming the
  /// text and listing the canonical names.
  E parse(std::string_view text) const {
    for (const Named<E>& entry : entries_) {
      if (equal_ignoring_case(entry.name, text)) return entry.value;
    }
    throw_error(ErrorCode::invalid_argument,
                "unknown " + std::string(what_) + " " + quoted(text) + " (expected one of: " + canonical_list() + ")");
  }

  /// The canonical names, comma separated, in table order.
  std::string canonical_list() const {
    std::string list;
    for (std::size_t i = 0; i < N; ++i) {
      if (name(entries_[i].value) != entries_[i].name) continue;  // an alias
      list += list.empty() ? "" : ", ";
      list += entries_[i].name;
    }
    return list;
  }

 private:
  static constexpr bool equal_ignoring_case(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      char x = a[i], y = b[i];
      if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
      if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
      if (x != y) return false;
    }
    return true;
  }

  std::string_view what_;
  std::array<Named<E>, N> entries_;
};

}  // namespace smartarrays::util
