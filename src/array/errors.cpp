// Owns the out-of-line throwers the inline array accessors call, so their fast paths stay small.
#include <string>

#include "smartarrays/array/bits_view.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays::detail {

void throw_index_out_of_range(std::uint64_t index, std::uint64_t length) {
  throw_error(ErrorCode::out_of_range,
              "index " + std::to_string(index) + " out of range for length " + std::to_string(length));
}

void throw_chunk_out_of_range(std::uint64_t chunk, std::uint64_t length) {
  throw_error(ErrorCode::out_of_range, "chunk " + std::to_string(chunk) + " out of range: length " +
                                           std::to_string(length) + " has " +
                                           std::to_string(codec::chunk_count(length)) + " chunks");
}

}  // namespace smartarrays::detail
