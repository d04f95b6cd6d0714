// Owns how input text is put into messages: bytes read from files, flags or the environment are
// quoted with control and non-ASCII bytes escaped and long inputs cut, so a message never carries a
// NUL that would end it early or a control sequence that would reach the user's terminal.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace smartarrays::util {

/// text between single quotes, bytes outside printable ASCII as \xHH, cut to max_bytes with "...".
inline std::string quoted(std::string_view text, std::size_t max_bytes = 80) {
  static constexpr char hex[] = "0123456789abcdef";
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

}  // namespace smartarrays::util
