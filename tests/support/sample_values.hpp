// Owns the tests' sample values: a deterministic pseudo-random vector of values of a width, with
// the extremes (0 and the widest value) planted at the edges of every 64-value chunk.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace smartarrays::test {

/// n values of bits (1..64) bits drawn from seed, each chunk's first and last value the widest
/// and its second 0. The mask is computed here, not by the codec the values test.
inline std::vector<std::uint64_t> sample_values(std::uint64_t n, unsigned bits, std::uint64_t seed = 12345) {
  const std::uint64_t widest = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
  std::mt19937_64 rng(seed * 131u + bits);
  std::vector<std::uint64_t> v(n);
  for (auto& x : v) x = rng() & widest;
  for (std::uint64_t i = 0; i < n; i += 64) {
    v[i] = widest;
    if (i + 63 < n) v[i + 63] = widest;
    if (i + 1 < n) v[i + 1] = 0;
  }
  return v;
}

}  // namespace smartarrays::test
