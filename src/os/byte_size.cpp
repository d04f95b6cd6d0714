// Owns formatting byte counts with binary units.
#include "os/byte_size.hpp"

#include <array>
#include <cstdio>

namespace smartarrays::os {

std::string format_bytes(std::uint64_t bytes) {
  static constexpr std::array<const char*, 6> kUnits{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
  std::size_t unit = 0;
  std::uint64_t scale = 1024;
  while (unit + 1 < kUnits.size() && bytes / scale >= 1024) {
    scale *= 1024;
    ++unit;
  }
  const double value = static_cast<double>(bytes) / static_cast<double>(scale);
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  std::string number = text;
  if (number.size() > 2 && number.compare(number.size() - 2, 2, ".0") == 0) number.resize(number.size() - 2);
  return number + " " + kUnits[unit];
}

}  // namespace smartarrays::os
