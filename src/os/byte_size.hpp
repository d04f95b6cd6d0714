// Owns the human-readable byte sizes used in error messages ("1.5 TiB").
#pragma once

#include <cstdint>
#include <string>

namespace smartarrays::os {

/// bytes in the largest binary unit that keeps the value >= 1, one decimal when not whole: "1.5 TiB", "4 KiB", "100 bytes".
std::string format_bytes(std::uint64_t bytes);

}  // namespace smartarrays::os
