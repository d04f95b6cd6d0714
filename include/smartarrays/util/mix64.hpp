// Owns mix64, the splitmix64 finaliser that every layer's counter-based randomness is drawn from
// (graph generators, the aggregation data), so a value depends on its index, never on which worker made it.
#pragma once

#include <cstdint>

namespace smartarrays::util {

/// splitmix64: a counter-based generator, so value i is the same whichever worker makes it.
constexpr std::uint64_t mix64(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace smartarrays::util
