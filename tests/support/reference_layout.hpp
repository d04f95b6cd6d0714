// Owns the tests' independent oracle of the bit layout (docs/bit-layout.md): a plain LSB-first bit reader
// over raw words, one bit at a time, sharing no code with the codec so it cannot share its bugs.
#pragma once

#include <cstdint>

namespace smartarrays::test {

/// Value i of a bits-wide stream: bits [i*bits, (i+1)*bits) of the words, least significant bit first.
inline std::uint64_t reference_value(const std::uint64_t* words, unsigned bits, std::uint64_t i) {
  std::uint64_t value = 0;
  for (unsigned k = 0; k < bits; ++k) {
    const std::uint64_t position = i * bits + k;
    const std::uint64_t bit = (words[position / 64] >> (position % 64)) & 1;
    value |= bit << k;
  }
  return value;
}

/// True when every bit of words[0..nwords) at or after bit position first is zero (the padding of the last chunk).
inline bool reference_tail_is_zero(const std::uint64_t* words, std::uint64_t nwords, std::uint64_t first) {
  for (std::uint64_t position = first; position < nwords * 64; ++position) {
    if ((words[position / 64] >> (position % 64)) & 1) return false;
  }
  return true;
}

}  // namespace smartarrays::test
