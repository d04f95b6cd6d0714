// Owns the normative bit layout (docs/bit-layout.md) as compile-time kernels templated on the bit width:
// get/set one value, pack/unpack one 64-value chunk. Portable C++ (no ISA extensions), inlined into
// typed hot loops; the run-time dispatched batch kernels live in codec/kernels.hpp.
#pragma once

#include <atomic>
#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

namespace smartarrays::codec {

/// Values per chunk; chunk c of a b-bit stream is exactly b words.
inline constexpr unsigned chunk_values = 64;

/// Number of 64-value chunks that hold n values (the last one may be partial, zero padded).
constexpr std::uint64_t chunk_count(std::uint64_t n) noexcept { return (n + chunk_values - 1) / chunk_values; }

/// Words of a b-bit stream holding n values: ceil(n / 64) * b.
constexpr std::uint64_t word_count(std::uint64_t n, unsigned bits) noexcept { return chunk_count(n) * bits; }

/// The low-bits mask of a b-bit value (b = 1..64).
constexpr std::uint64_t value_mask(unsigned bits) noexcept {
  return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

/// The fewest bits (1..64) that hold max_value; 0 needs 1 bit.
constexpr unsigned min_bits(std::uint64_t max_value) noexcept {
  return max_value == 0 ? 1u : static_cast<unsigned>(std::bit_width(max_value));
}

/// True when v fits in bits bits.
constexpr bool fits(std::uint64_t v, unsigned bits) noexcept { return (v & ~value_mask(bits)) == 0; }

/// Value i of a B-bit stream. Reads only the words that hold the value (never past the stream).
template <unsigned B>
inline std::uint64_t get(const std::uint64_t* words, std::uint64_t i) noexcept {
  static_assert(B >= 1 && B <= 64);
  if constexpr (B == 64) {
    return words[i];
  } else if constexpr (B == 32) {
    return reinterpret_cast<const std::uint32_t*>(words)[i];
  } else if constexpr (64 % B == 0) {
    const std::uint64_t bit = i * B;
    return (words[bit >> 6] >> (bit & 63)) & value_mask(B);
  } else {
    // Branch-free: the high word is the next one only when the value crosses; otherwise the same
    // word is read twice and its bits shifted beyond the mask.
    const std::uint64_t bit = i * B;
    const std::uint64_t word = bit >> 6;
    const unsigned shift = static_cast<unsigned>(bit & 63);
    const std::uint64_t high_word = word + (shift + B > 64 ? 1 : 0);
    const unsigned __int128 pair = (static_cast<unsigned __int128>(words[high_word]) << 64) | words[word];
    return static_cast<std::uint64_t>(pair >> shift) & value_mask(B);
  }
}

/// get<B> with each word read by a relaxed atomic load, for streams another thread may be
/// rewriting with relaxed atomic word stores (a primary-write array's replicas during a sync): a
/// value inside one word is read whole, old or new; one spanning two words may mix them.
template <unsigned B>
inline std::uint64_t get_relaxed(const std::uint64_t* words, std::uint64_t i) noexcept {
  static_assert(B >= 1 && B <= 64);
  const auto load = [words](std::uint64_t k) {
    return std::atomic_ref<std::uint64_t>(const_cast<std::uint64_t&>(words[k])).load(std::memory_order_relaxed);
  };
  if constexpr (B == 64) {
    return load(i);
  } else {
    const std::uint64_t bit = i * B;
    const std::uint64_t word = bit >> 6;
    const unsigned shift = static_cast<unsigned>(bit & 63);
    if constexpr (64 % B == 0) {
      return (load(word) >> shift) & value_mask(B);
    } else {
      const std::uint64_t low = load(word);
      const std::uint64_t high = shift + B > 64 ? load(word + 1) : 0;
      const unsigned __int128 pair = (static_cast<unsigned __int128>(high) << 64) | low;
      return static_cast<std::uint64_t>(pair >> shift) & value_mask(B);
    }
  }
}

/// Value i of a B-bit stream that is followed by at least one readable word (SmartArray replicas
/// are): unaligned loads at the value's first byte (one 8-byte load for B <= 57, two for wider
/// values, which span up to 9 bytes), a shift and a mask; no load waits on a comparison.
template <unsigned B>
inline std::uint64_t get_padded(const std::uint64_t* words, std::uint64_t i) noexcept {
  static_assert(B >= 1 && B <= 64);
  if constexpr (64 % B == 0) {
    return get<B>(words, i);
  } else {
    const std::uint64_t bit = i * B;
    const unsigned char* first = reinterpret_cast<const unsigned char*>(words) + (bit >> 3);
    std::uint64_t low;
    std::memcpy(&low, first, sizeof low);
    if constexpr (B <= 57) {
      return (low >> (bit & 7)) & value_mask(B);
    } else {
      // The value's first byte is at most 8 bytes before the stream's end, so the second load
      // stays inside the padding word.
      std::uint64_t high;
      std::memcpy(&high, first + 8, sizeof high);
      const unsigned __int128 pair = (static_cast<unsigned __int128>(high) << 64) | low;
      return static_cast<std::uint64_t>(pair >> (bit & 7)) & value_mask(B);
    }
  }
}

/// Stores v (< 2^B, not checked here) as value i of a B-bit stream; the other values are kept.
template <unsigned B>
inline void set(std::uint64_t* words, std::uint64_t i, std::uint64_t v) noexcept {
  static_assert(B >= 1 && B <= 64);
  if constexpr (B == 64) {
    words[i] = v;
  } else if constexpr (B == 32) {
    reinterpret_cast<std::uint32_t*>(words)[i] = static_cast<std::uint32_t>(v);
  } else {
    const std::uint64_t bit = i * B;
    const std::uint64_t word = bit >> 6;
    const unsigned shift = static_cast<unsigned>(bit & 63);
    words[word] = (words[word] & ~(value_mask(B) << shift)) | (v << shift);
    if (shift + B > 64) {
      const unsigned spilled = shift + B - 64;
      words[word + 1] = (words[word + 1] & ~value_mask(spilled)) | (v >> (64 - shift));
    }
  }
}

namespace detail {

// Value J of a chunk, with every position and shift a compile-time constant.
template <unsigned B, unsigned J>
inline std::uint64_t chunk_value(const std::uint64_t* chunk) noexcept {
  constexpr unsigned bit = J * B;
  constexpr unsigned word = bit / 64;
  constexpr unsigned shift = bit % 64;
  if constexpr (shift + B <= 64) {
    return (chunk[word] >> shift) & value_mask(B);
  } else {
    return ((chunk[word] >> shift) | (chunk[word + 1] << (64 - shift))) & value_mask(B);
  }
}

template <unsigned B, std::size_t... J>
inline void unpack_chunk_impl(const std::uint64_t* chunk, std::uint64_t* out, std::index_sequence<J...>) noexcept {
  ((out[J] = chunk_value<B, J>(chunk)), ...);
}

template <unsigned B, std::size_t... J>
inline std::uint64_t sum_chunk_impl(const std::uint64_t* chunk, std::index_sequence<J...>) noexcept {
  return (chunk_value<B, J>(chunk) + ...);
}

}  // namespace detail

/// Decodes the 64 values of one chunk (B words at chunk) into out[0..63]. Portable, fully unrolled.
template <unsigned B>
inline void unpack_chunk(const std::uint64_t* chunk, std::uint64_t* out) noexcept {
  static_assert(B >= 1 && B <= 64);
  detail::unpack_chunk_impl<B>(chunk, out, std::make_index_sequence<chunk_values>{});
}

/// Wrapping sum of the 64 values of one chunk, decoded in registers. Portable, fully unrolled.
template <unsigned B>
inline std::uint64_t sum_chunk(const std::uint64_t* chunk) noexcept {
  static_assert(B >= 1 && B <= 64);
  return detail::sum_chunk_impl<B>(chunk, std::make_index_sequence<chunk_values>{});
}

/// Encodes 64 values in[0..63] (each < 2^B, not checked here) into one chunk of B words.
template <unsigned B>
inline void pack_chunk(const std::uint64_t* in, std::uint64_t* chunk) noexcept {
  static_assert(B >= 1 && B <= 64);
  // A local image of the chunk lets the fully unrolled loop keep every word in a register.
  std::uint64_t image[B] = {};
#pragma GCC unroll 64
  for (unsigned j = 0; j < chunk_values; ++j) {
    const unsigned bit = j * B;
    const unsigned shift = bit % 64;
    image[bit / 64] |= in[j] << shift;
    if (shift + B > 64) image[bit / 64 + 1] |= in[j] >> (64 - shift);
  }
  for (unsigned w = 0; w < B; ++w) chunk[w] = image[w];
}

/// Calls f(std::integral_constant<unsigned, B>{}) for the run-time width bits (1..64): the one
/// place a run-time bit width becomes a compile-time one. Call it once per batch, not per value.
template <typename F>
decltype(auto) with_bits(unsigned bits, F&& f) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) -> decltype(auto) {
    using R = decltype(f(std::integral_constant<unsigned, 1>{}));
    if constexpr (std::is_void_v<R>) {
      static_cast<void>(((bits == I + 1 ? (f(std::integral_constant<unsigned, I + 1>{}), true) : false) || ...));
    } else {
      R result{};
      static_cast<void>(((bits == I + 1 ? (result = f(std::integral_constant<unsigned, I + 1>{}), true) : false) || ...));
      return result;
    }
  }(std::make_index_sequence<64>{});
}

}  // namespace smartarrays::codec
