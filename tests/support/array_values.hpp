// Owns the tests' way between vectors of values and arrays: options of a width (with_bits), an
// array holding given values (array_of) and every value of an array read back (values_of).
#pragma once

#include <cstdint>
#include <vector>

#include "smartarrays/array/options.hpp"
#include "smartarrays/array/smart_array.hpp"

namespace smartarrays::test {

/// Options of bits per value (0: the fewest that hold the data) in placement.
inline ArrayOptions with_bits(unsigned bits, Placement placement = Placement::os_default) {
  ArrayOptions options;
  options.bits = bits;
  options.placement = placement;
  return options;
}

/// An array holding values, made with options (by default os_default and the fewest bits that hold them).
inline SmartArray array_of(const std::vector<std::uint64_t>& values, const ArrayOptions& options = {}) {
  return SmartArray::from_values(values, options);
}

/// An array holding values at bits per value (0: the fewest that hold them).
inline SmartArray array_of(const std::vector<std::uint64_t>& values, unsigned bits) {
  return array_of(values, with_bits(bits));
}

/// Every value of an array.
inline std::vector<std::uint64_t> values_of(const SmartArray& array) {
  std::vector<std::uint64_t> v(array.length());
  if (!v.empty()) array.decode(0, v.size(), v.data());
  return v;
}

}  // namespace smartarrays::test
