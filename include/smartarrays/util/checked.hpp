// Owns the one way a count becomes a size: sums and products of 64-bit counts that throw
// Error(out_of_memory) naming what was being sized when the exact result does not fit, so a count
// from a file or an API argument (a vertex count of 2^64 - 1, an id of 2^64 - 2) is refused where
// the size is formed instead of wrapping to a small allocation that is then written past its end.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "smartarrays/error.hpp"

namespace smartarrays::util {

/// Throws Error(out_of_memory) "<what>: <a> <op> <b> does not fit in 64 bits".
[[noreturn]] inline void throw_size_overflow(std::string_view what, std::uint64_t a, const char* op, std::uint64_t b) {
  throw_error(ErrorCode::out_of_memory, std::string(what) + ": " + std::to_string(a) + " " + op + " " +
                                            std::to_string(b) + " does not fit in 64 bits");
}

/// a + b, or Error(out_of_memory) naming what when the sum does not fit in 64 bits.
inline std::uint64_t checked_add(std::uint64_t a, std::uint64_t b, std::string_view what) {
  std::uint64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) throw_size_overflow(what, a, "+", b);
  return sum;
}

/// a * b, or Error(out_of_memory) naming what when the product does not fit in 64 bits.
inline std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b, std::string_view what) {
  std::uint64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) throw_size_overflow(what, a, "*", b);
  return product;
}

}  // namespace smartarrays::util
