// Owns the AVX2+BMI2 kernel table. Every function here carries a target attribute instead of the
// file being compiled with -mavx2, so nothing shared with portable code (inline templates from
// headers) is ever emitted as AVX2 and picked by the linker for the scalar path.
//
// A chunk's 64 values are decoded four at a time into the four 64-bit lanes of a vector.
//  - b <= 57 ("byte windows"): every value lies inside the 8 bytes starting at its first byte, so
//    two 16-byte loads (lanes 0-1 and 2-3), one in-lane byte shuffle, one variable shift and one
//    mask decode four values. The shuffle and shift patterns depend only on the bit phase of the
//    group (0 or 4), so two patterns per width stay in registers.
//  - 58 <= b <= 63 ("word pairs"): lane j takes the word holding value j's start and the next
//    word (two loads, one permute each) and funnels them with two variable shifts.
//  - b = 32 and b = 64 are plain zero-extension and copy.
// Loads of the last chunk of a call would run up to 4 words past it, so that chunk is decoded
// from a zero-padded copy: kernels never read outside the chunks they are given.
#include <immintrin.h>

#include <array>
#include <cstring>
#include <utility>

#include "codec/kernel_tables.hpp"
#include "smartarrays/codec/bitpack.hpp"

#define SMARTARRAYS_AVX2 __attribute__((target("avx2,bmi2"), always_inline)) inline
#define SMARTARRAYS_AVX2_ENTRY __attribute__((target("avx2,bmi2")))

namespace smartarrays::codec::detail {
namespace {

constexpr unsigned groups_per_chunk = chunk_values / 4;
constexpr unsigned padding_words = 4;  // the farthest any group's loads reach past its chunk

enum class Path { byte_windows, word_pairs, u32, u64 };

constexpr Path path_for(unsigned bits) {
  if (bits == 64) return Path::u64;
  if (bits == 32) return Path::u32;
  return bits <= 57 ? Path::byte_windows : Path::word_pairs;
}

// Shuffle and shift patterns of the byte-window path for bit phase 0 and 4.
struct BytePatterns {
  alignas(32) std::array<std::array<std::int8_t, 32>, 2> shuffle{};
  alignas(32) std::array<std::array<std::uint64_t, 4>, 2> shift{};
};

constexpr BytePatterns make_byte_patterns(unsigned bits) {
  BytePatterns p;
  for (unsigned phase = 0; phase < 2; ++phase) {
    const unsigned first = 4 * phase;
    for (unsigned j = 0; j < 4; ++j) {
      // Lanes 0-1 read from the load at the group's first byte, lanes 2-3 from the load at the
      // first byte of value 2; bit positions are relative to the start of their load.
      const unsigned local = j < 2 ? first + j * bits : (first + 2 * bits) % 8 + (j - 2) * bits;
      for (unsigned t = 0; t < 8; ++t) p.shuffle[phase][8 * j + t] = static_cast<std::int8_t>(local / 8 + t);
      p.shift[phase][j] = local % 8;
    }
  }
  return p;
}

template <unsigned B>
inline constexpr BytePatterns byte_patterns = make_byte_patterns(B);

// The loop-invariant vectors of one width, loaded once per call.
template <unsigned B>
struct Constants {
  __m256i shuffle0, shuffle4, shift0, shift4, mask;
};

template <unsigned B>
SMARTARRAYS_AVX2 Constants<B> load_constants() {
  const BytePatterns& p = byte_patterns<B>;
  return {_mm256_load_si256(reinterpret_cast<const __m256i*>(p.shuffle[0].data())),
          _mm256_load_si256(reinterpret_cast<const __m256i*>(p.shuffle[1].data())),
          _mm256_load_si256(reinterpret_cast<const __m256i*>(p.shift[0].data())),
          _mm256_load_si256(reinterpret_cast<const __m256i*>(p.shift[1].data())),
          _mm256_set1_epi64x(static_cast<long long>(value_mask(B)))};
}

// Values 4G .. 4G+3 of the chunk at words, in the four lanes.
template <unsigned B, unsigned G>
SMARTARRAYS_AVX2 __m256i decode_group(const std::uint64_t* words, const Constants<B>& k) {
  constexpr Path path = path_for(B);
  if constexpr (path == Path::u64) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words + 4 * G));
  } else if constexpr (path == Path::u32) {
    return _mm256_cvtepu32_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(words + 2 * G)));
  } else if constexpr (path == Path::byte_windows) {
    constexpr unsigned bit0 = 4 * G * B;
    constexpr unsigned bit2 = bit0 + 2 * B;
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(words);
    const __m128i low = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + bit0 / 8));
    const __m128i high = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + bit2 / 8));
    __m256i v = _mm256_inserti128_si256(_mm256_castsi128_si256(low), high, 1);
    constexpr bool phase4 = bit0 % 8 != 0;
    v = _mm256_shuffle_epi8(v, phase4 ? k.shuffle4 : k.shuffle0);
    v = _mm256_srlv_epi64(v, phase4 ? k.shift4 : k.shift0);
    return _mm256_and_si256(v, k.mask);
  } else {
    constexpr unsigned word0 = 4 * G * B / 64;
    constexpr auto lane_word = [](unsigned j) { return (4 * G + j) * B / 64 - word0; };
    constexpr auto lane_shift = [](unsigned j) { return (4 * G + j) * B % 64; };
    constexpr int order = static_cast<int>(lane_word(0) | lane_word(1) << 2 | lane_word(2) << 4 | lane_word(3) << 6);
    const __m256i low = _mm256_permute4x64_epi64(
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words + word0)), order);
    const __m256i high = _mm256_permute4x64_epi64(
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words + word0 + 1)), order);
    const __m256i right = _mm256_setr_epi64x(lane_shift(0), lane_shift(1), lane_shift(2), lane_shift(3));
    // A left shift by 64 yields 0 in AVX2, which is exactly right for a value that starts a word.
    const __m256i left = _mm256_setr_epi64x(64 - lane_shift(0), 64 - lane_shift(1), 64 - lane_shift(2),
                                            64 - lane_shift(3));
    const __m256i v = _mm256_or_si256(_mm256_srlv_epi64(low, right), _mm256_sllv_epi64(high, left));
    return _mm256_and_si256(v, k.mask);
  }
}

template <unsigned B, std::size_t... G>
SMARTARRAYS_AVX2 void unpack_chunk(const std::uint64_t* words, std::uint64_t* out, const Constants<B>& k,
                                   std::index_sequence<G...>) {
  (_mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 4 * G), decode_group<B, G>(words, k)), ...);
}

template <unsigned B, std::size_t... G>
SMARTARRAYS_AVX2 __m256i sum_chunk(const std::uint64_t* words, __m256i acc, const Constants<B>& k,
                                   std::index_sequence<G...>) {
  // Two accumulators halve the add dependency chain.
  __m256i other = _mm256_setzero_si256();
  ((G % 2 == 0 ? acc = _mm256_add_epi64(acc, decode_group<B, G>(words, k))
               : other = _mm256_add_epi64(other, decode_group<B, G>(words, k))),
   ...);
  return _mm256_add_epi64(acc, other);
}

SMARTARRAYS_AVX2 std::uint64_t horizontal_sum(__m256i v) {
  const __m128i s = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  return static_cast<std::uint64_t>(_mm_cvtsi128_si64(s)) + static_cast<std::uint64_t>(_mm_extract_epi64(s, 1));
}

// Runs f(chunk_words, c) on each chunk; the last through a zero-padded copy when loads overreach.
template <unsigned B, typename F>
SMARTARRAYS_AVX2 void for_each_chunk(const std::uint64_t* words, std::uint64_t first, std::uint64_t count, F&& f) {
  if (count == 0) return;
  const std::uint64_t* chunk = words + first * B;
  constexpr bool overreads = path_for(B) == Path::byte_windows || path_for(B) == Path::word_pairs;
  const std::uint64_t direct = overreads ? count - 1 : count;
  for (std::uint64_t c = 0; c < direct; ++c) f(chunk + c * B, c);
  if constexpr (overreads) {
    alignas(32) std::uint64_t padded[B + padding_words] = {};
    std::memcpy(padded, chunk + (count - 1) * B, B * sizeof(std::uint64_t));
    f(padded, count - 1);
  }
}

template <unsigned B>
SMARTARRAYS_AVX2_ENTRY void unpack_chunks(const std::uint64_t* words, std::uint64_t first, std::uint64_t count,
                                          std::uint64_t* out) {
  const Constants<B> k = load_constants<B>();
  for_each_chunk<B>(words, first, count, [&](const std::uint64_t* chunk, std::uint64_t c) SMARTARRAYS_AVX2_ENTRY {
    unpack_chunk<B>(chunk, out + c * chunk_values, k, std::make_index_sequence<groups_per_chunk>{});
  });
}

template <unsigned B>
SMARTARRAYS_AVX2_ENTRY std::uint64_t sum_chunks(const std::uint64_t* words, std::uint64_t first,
                                                std::uint64_t count) {
  const Constants<B> k = load_constants<B>();
  __m256i acc = _mm256_setzero_si256();
  for_each_chunk<B>(words, first, count, [&](const std::uint64_t* chunk, std::uint64_t) SMARTARRAYS_AVX2_ENTRY {
    acc = sum_chunk<B>(chunk, acc, k, std::make_index_sequence<groups_per_chunk>{});
  });
  return horizontal_sum(acc);
}

template <unsigned B>
SMARTARRAYS_AVX2_ENTRY void pack_chunks(const std::uint64_t* values, std::uint64_t first, std::uint64_t count,
                                        std::uint64_t* words) {
  for (std::uint64_t c = 0; c < count; ++c) pack_chunk<B>(values + c * chunk_values, words + (first + c) * B);
}

template <std::size_t... I>
constexpr auto make_table(std::index_sequence<I...>) {
  return std::array<Kernels, sizeof...(I)>{
      Kernels{I + 1, Isa::avx2, &unpack_chunks<I + 1>, &pack_chunks<I + 1>, &sum_chunks<I + 1>}...};
}

constexpr auto table = make_table(std::make_index_sequence<64>{});

}  // namespace

const Kernels* avx2_kernel_table() noexcept { return table.data(); }

}  // namespace smartarrays::codec::detail
