// Owns the human-readable byte sizes used in messages ("1.5 TiB"), so every layer that names an
// allocation or a limit spells it the same way.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>

namespace smartarrays::util {

/// bytes in the largest binary unit that keeps the value >= 1, one decimal when not whole: "1.5 TiB", "4 KiB", "100 bytes".
inline std::string format_bytes(std::uint64_t bytes) {
  static constexpr std::array<const char*, 6> units{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
  std::size_t unit = 0;
  std::uint64_t scale = 1024;
  while (unit + 1 < units.size() && bytes / scale >= 1024) {
    scale *= 1024;
    ++unit;
  }
  const double value = static_cast<double>(bytes) / static_cast<double>(scale);
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  std::string number = text;
  if (number.size() > 2 && number.compare(number.size() - 2, 2, ".0") == 0) number.resize(number.size() - 2);
  return number + " " + units[unit];
}

}  // namespace smartarrays::util
