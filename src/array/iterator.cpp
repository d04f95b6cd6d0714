// Owns SmartArray::Iterator's chunk loading: the one place the iterator decodes, a chunk at a time.
#include <algorithm>
#include <iterator>
#include <string>

#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays {

SmartArray::Iterator::Iterator(const SmartArray& array, std::uint64_t start)
    : words_(array.local_replica()),
      kernels_(array.kernels_),
      length_(array.length()),
      bits_(array.bits()) {
  reset(start);
}

SmartArray::Iterator::Iterator(const Iterator& other) noexcept { *this = other; }

SmartArray::Iterator& SmartArray::Iterator::operator=(const Iterator& other) noexcept {
  if (this != &other) {
    words_ = other.words_;
    kernels_ = other.kernels_;
    length_ = other.length_;
    index_ = other.index_;
    bits_ = other.bits_;
    // A chunk decoded into other's buffer is copied; one read in place keeps pointing into the array.
    if (other.chunk_ == other.buffer_) {
      std::copy(std::begin(other.buffer_), std::end(other.buffer_), buffer_);
      chunk_ = buffer_;
    } else {
      chunk_ = other.chunk_;
    }
  }
  return *this;
}

void SmartArray::Iterator::reset(std::uint64_t index) {
  if (index > length_) {
    throw_error(ErrorCode::out_of_range,
                "iterator index " + std::to_string(index) + " out of range for length " + std::to_string(length_));
  }
  index_ = index;
  if (index_ < length_) load();
}

void SmartArray::Iterator::load() noexcept {
  const std::uint64_t chunk = index_ / codec::chunk_values;
  if (bits_ == 64) {
    // A 64-bit chunk is its 64 values verbatim: read them in place, as the paper's uncompressed iterator does.
    chunk_ = words_ + chunk * codec::chunk_values;
  } else {
    kernels_->unpack(words_, chunk, 1, buffer_);
    chunk_ = buffer_;
  }
}

}  // namespace smartarrays
