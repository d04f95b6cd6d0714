// Owns the algorithms' way to read a slice of a smart array's values: in place from the calling
// thread's replica when the array is 64-bit (the words are the values), else decoded into a
// caller's buffer by one dispatched kernel call. Either way, one decision per slice, none per value.
#pragma once

#include <cstdint>

#include "smartarrays/array/smart_array.hpp"

namespace smartarrays::algo::detail {

/// Values [start, start + count) of array from the calling thread's replica: a pointer into the
/// replica for 64-bit arrays, else scratch (>= count values) filled by decoding.
inline const std::uint64_t* read_values(const SmartArray& array, std::uint64_t start, std::uint64_t count,
                                        std::uint64_t* scratch) {
  if (array.bits() == 64) return array.local_replica() + start;
  array.decode(start, count, scratch);
  return scratch;
}

}  // namespace smartarrays::algo::detail
