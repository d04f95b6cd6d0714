// Owns how input text and numbers are put into messages: bytes read from files, flags or the
// environment are quoted with control and non-ASCII bytes escaped and long inputs cut, so a message
// never carries a NUL that would end it early or a control sequence that would reach the user's
// terminal; the last line of defence for a whole message about to be printed (printable()); and
// real numbers in their shortest exact text (number_text()).
#pragma once

#include <charconv>
#include <cstddef>
#include <string>
#include <system_error>
#include <string_view>

namespace smartarrays::util {

namespace detail {
inline constexpr char hex_digits[] = "0123456789abcdef";

/// byte as printable() shows it, written to out; returns its length (1, or 4 for \xHH).
inline std::size_t printable_byte(unsigned char byte, char (&out)[4]) noexcept {
  if (byte >= 0x20 && byte < 0x7f) {
    out[0] = static_cast<char>(byte);
    return 1;
  }
  out[0] = '\\';
  out[1] = 'x';
  out[2] = hex_digits[byte >> 4];
  out[3] = hex_digits[byte & 0xf];
  return 4;
}
}  // namespace detail

/// text with bytes outside printable ASCII as \xHH and nothing else changed: applied to a whole
/// message before it is printed or handed to another language, it leaves quoted() parts as they are
/// and defuses raw bytes that reached the message some other way (a third-party library's text, a
/// path put in unquoted): no NUL that would end it early, no control sequence, no invalid UTF-8.
inline std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  char shown[4];
  for (const char c : text) out.append(shown, detail::printable_byte(static_cast<unsigned char>(c), shown));
  return out;
}

/// printable(text) into out[0, capacity) with a closing NUL, cut before the first byte's escape
/// that does not fit; returns the bytes written (without the NUL). Allocates nothing, so a failure
/// can be recorded when memory has run out.
inline std::size_t printable_to(std::string_view text, char* out, std::size_t capacity) noexcept {
  if (capacity == 0) return 0;
  std::size_t written = 0;
  char shown[4];
  for (const char c : text) {
    const std::size_t length = detail::printable_byte(static_cast<unsigned char>(c), shown);
    if (written + length >= capacity) break;
    for (std::size_t k = 0; k < length; ++k) out[written++] = shown[k];
  }
  out[written] = '\0';
  return written;
}

/// text between single quotes, bytes outside printable ASCII as \xHH, cut to max_bytes with "...".
inline std::string quoted(std::string_view text, std::size_t max_bytes = 80) {
  constexpr const char* hex = detail::hex_digits;
  std::string out = "'";
  const std::size_t shown = text.size() > max_bytes ? max_bytes : text.size();
  for (std::size_t i = 0; i < shown; ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte < 0x7f && byte != '\\') {
      out += static_cast<char>(byte);
    } else if (byte == '\\') {
      out += "\\\\";
    } else {
      out += "\\x";
      out += hex[byte >> 4];
      out += hex[byte & 0xf];
    }
  }
  if (shown < text.size()) out += "...";
  out += '\'';
  return out;
}

/// value as a message shows it: the shortest text that reads back exactly (1e-320, not "0.000000").
inline std::string number_text(double value) {
  char text[32];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, value);
  return ec == std::errc() ? std::string(text, end) : std::to_string(value);
}

}  // namespace smartarrays::util
