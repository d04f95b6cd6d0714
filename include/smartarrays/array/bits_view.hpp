// Owns BitsView<B>: a read-only view of one bit-packed stream whose width B is a compile-time
// constant, so hot loops over it fold every shift and mask and carry no per-element dispatch.
#pragma once

#include <cstdint>

#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/export.hpp"

namespace smartarrays {

namespace detail {
/// Throws Error(out_of_range) "index I out of range for length N"; out of line to keep callers small.
[[noreturn]] SMARTARRAYS_API void throw_index_out_of_range(std::uint64_t index, std::uint64_t length);
/// Throws Error(out_of_range) for a chunk past the last one of a stream of length values.
[[noreturn]] SMARTARRAYS_API void throw_chunk_out_of_range(std::uint64_t chunk, std::uint64_t length);
}  // namespace detail

/// A view of length B-bit values laid out as docs/bit-layout.md says, starting at words. Copying is
/// cheap (two words); the view does not own the words and must not outlive them.
template <unsigned B>
class BitsView {
  static_assert(B >= 1 && B <= 64, "bit width must be 1..64");

 public:
  /// The bit width of every value.
  static constexpr unsigned bits = B;

  /// An empty view.
  BitsView() = default;
  /// A view of length values in a stream of codec::word_count(length, B) words followed by at
  /// least one readable padding word (as every SmartArray replica is), which get() may read.
  BitsView(const std::uint64_t* words, std::uint64_t length) noexcept : words_(words), length_(length) {}

  /// Value i, unchecked (i < length() is the caller's promise): the hot-loop accessor.
  std::uint64_t get(std::uint64_t i) const noexcept { return codec::get_padded<B>(words_, i); }
  /// Value i, unchecked, like get().
  std::uint64_t operator[](std::uint64_t i) const noexcept { return get(i); }
  /// Value i; throws Error(out_of_range) when i >= length().
  std::uint64_t at(std::uint64_t i) const {
    if (i >= length_) detail::throw_index_out_of_range(i, length_);
    return get(i);
  }
  /// Decodes the 64 values of chunk c (unchecked) into out[0..63]; a partial last chunk yields zeros past the end.
  void unpack(std::uint64_t chunk, std::uint64_t* out) const noexcept {
    codec::unpack_chunk<B>(words_ + chunk * B, out);
  }
  /// Number of values.
  std::uint64_t length() const noexcept { return length_; }
  /// Number of 64-value chunks (the last may be partial).
  std::uint64_t chunks() const noexcept { return codec::chunk_count(length_); }
  /// The packed words the view reads.
  const std::uint64_t* words() const noexcept { return words_; }

 private:
  const std::uint64_t* words_ = nullptr;
  std::uint64_t length_ = 0;
};

}  // namespace smartarrays
