// Owns the AVX2+BMI2 kernel table. Every function here carries a target attribute instead of the
// file being compiled with -mavx2, so nothing shared with portable code (inline templates from
// headers) is ever emitted as AVX2 and picked by the linker for the scalar path.
//
// A chunk's 64 values are decoded a group at a time into the lanes of one vector.
//  - b <= 31 ("one window"): a group of four values lies inside 16 bytes, so one broadcast load,
//    one in-lane byte shuffle (which also zeroes bytes a lane does not need), one variable shift
//    and one mask decode it into four 64-bit lanes. The fused sum goes further for b <= 25: eight
//    values into 32-bit lanes (one 16-byte window for b <= 16, two for 17..25), widened into
//    64-bit accumulators once per chunk.
//  - 33 <= b <= 57 ("two windows"): every value lies inside the 8 bytes starting at its first
//    byte; lanes 0-1 and 2-3 come from two 16-byte loads, then the same shuffle, shift and mask.
//  - 58 <= b <= 63 ("word pairs"): lane j takes the word holding value j's start and the next
//    word (two loads, and a permute each unless the group's values start in consecutive words,
//    as most do) and funnels them with two variable shifts.
//  - b = 32 and b = 64 are plain zero-extension and copy.
// Shuffle and shift patterns depend only on the bit phase of a group's first value (0 or 4), so
// two patterns per width stay in registers. A group's loads run up to 4 words past its chunk, so
// the chunks within 4 words of the end of a call's range are decoded from a zero-padded copy:
// kernels never read outside the chunks they are given.
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

constexpr unsigned groups_per_chunk = chunk_values / 4;  // of four 64-bit lanes
constexpr unsigned padding_words = 4;  // the farthest any group's loads reach past its chunk

enum class Path { one_window, two_windows, word_pairs, u32, u64 };

constexpr Path path_for(unsigned bits) {
  if (bits == 64) return Path::u64;
  if (bits == 32) return Path::u32;
  if (bits <= 31) return Path::one_window;
  return bits <= 57 ? Path::two_windows : Path::word_pairs;
}

// Whether a group of `lanes` values fits one 16-byte load (else each half has its own load).
// Four-lane groups start at bit phase 0 or 4, eight-lane groups always at phase 0.
constexpr bool one_window(unsigned bits, unsigned lanes) { return lanes == 4 ? bits <= 31 : bits <= 16; }

constexpr bool overreads(unsigned bits) { return bits != 32 && bits != 64; }

// Byte shuffle and per-lane shift that move a group of `lanes` values into lanes of 256/lanes
// bits, for the group's first value at bit phase 0 (index 0) or 4 (index 1). With one window both
// 128-bit halves hold the same 16 bytes (a broadcast); with two, the high half starts at the
// first byte of the group's middle value.
struct WindowPatterns {
  alignas(32) std::array<std::array<std::int8_t, 32>, 2> shuffle{};
  alignas(32) std::array<std::array<std::uint32_t, 8>, 2> shift{};  // read as 4 x u64 or 8 x u32
};

constexpr WindowPatterns make_window_patterns(unsigned bits, unsigned lanes, bool one_window) {
  WindowPatterns p;
  const unsigned lane_bytes = 32 / lanes;
  for (unsigned phase = 0; phase < 2; ++phase) {
    const unsigned first = 4 * phase;
    for (unsigned j = 0; j < lanes; ++j) {
      const unsigned half = j / (lanes / 2);
      // Bit position of value j relative to the first byte of its half's load.
      const unsigned half_first = one_window || half == 0 ? first : (first + lanes / 2 * bits) % 8;
      const unsigned local = half_first + (one_window || half == 0 ? j : j - lanes / 2) * bits;
      const unsigned needed = (local % 8 + bits + 7) / 8;
      for (unsigned t = 0; t < lane_bytes; ++t) {
        p.shuffle[phase][lane_bytes * j + t] = t < needed ? static_cast<std::int8_t>(local / 8 + t) : std::int8_t{-128};
      }
      if (lanes == 4) {
        p.shift[phase][2 * j] = local % 8;
      } else {
        p.shift[phase][j] = local % 8;
      }
    }
  }
  return p;
}

template <unsigned B, unsigned Lanes>
inline constexpr WindowPatterns window_patterns = make_window_patterns(B, Lanes, one_window(B, Lanes));

// The loop-invariant vectors of one width and lane count, loaded once per call.
struct Constants {
  __m256i shuffle0, shuffle4, shift0, shift4, mask;
};

template <unsigned B, unsigned Lanes>
SMARTARRAYS_AVX2 Constants load_constants() {
  const WindowPatterns& p = window_patterns<B, Lanes>;
  const __m256i mask = Lanes == 4 ? _mm256_set1_epi64x(static_cast<long long>(value_mask(B)))
                                  : _mm256_set1_epi32(static_cast<int>(value_mask(B)));
  return {_mm256_load_si256(reinterpret_cast<const __m256i*>(p.shuffle[0].data())),
          _mm256_load_si256(reinterpret_cast<const __m256i*>(p.shuffle[1].data())),
          _mm256_load_si256(reinterpret_cast<const __m256i*>(p.shift[0].data())),
          _mm256_load_si256(reinterpret_cast<const __m256i*>(p.shift[1].data())), mask};
}

// Values Lanes*G .. Lanes*G + Lanes-1 of the chunk at words, one per lane (Lanes = 4 or 8).
template <unsigned B, unsigned Lanes, unsigned G>
SMARTARRAYS_AVX2 __m256i decode_group(const std::uint64_t* words, const Constants& k) {
  constexpr Path path = path_for(B);
  if constexpr (path == Path::u64) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words + 4 * G));
  } else if constexpr (path == Path::u32) {
    return _mm256_cvtepu32_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(words + 2 * G)));
  } else if constexpr (path == Path::one_window || path == Path::two_windows) {
    constexpr unsigned bit0 = Lanes * G * B;
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(words);
    const __m128i low = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + bit0 / 8));
    __m256i v;
    if constexpr (one_window(B, Lanes)) {
      v = _mm256_broadcastsi128_si256(low);
    } else {
      constexpr unsigned bit_mid = bit0 + Lanes / 2 * B;
      const __m128i high = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + bit_mid / 8));
      v = _mm256_inserti128_si256(_mm256_castsi128_si256(low), high, 1);
    }
    constexpr bool phase4 = bit0 % 8 != 0;
    v = _mm256_shuffle_epi8(v, phase4 ? k.shuffle4 : k.shuffle0);
    v = Lanes == 4 ? _mm256_srlv_epi64(v, phase4 ? k.shift4 : k.shift0)
                   : _mm256_srlv_epi32(v, phase4 ? k.shift4 : k.shift0);
    return _mm256_and_si256(v, k.mask);
  } else {
    constexpr unsigned word0 = 4 * G * B / 64;
    constexpr auto lane_word = [](unsigned j) { return (4 * G + j) * B / 64 - word0; };
    constexpr auto lane_shift = [](unsigned j) { return (4 * G + j) * B % 64; };
    constexpr int order = static_cast<int>(lane_word(0) | lane_word(1) << 2 | lane_word(2) << 4 | lane_word(3) << 6);
    // Most groups start each value in the next word (order 0, 1, 2, 3): two plain loads then.
    constexpr bool in_order = order == 0xE4;
    __m256i low = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words + word0));
    __m256i high = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words + word0 + 1));
    if constexpr (!in_order) {
      low = _mm256_permute4x64_epi64(low, order);
      high = _mm256_permute4x64_epi64(high, order);
    }
    const __m256i right = _mm256_setr_epi64x(lane_shift(0), lane_shift(1), lane_shift(2), lane_shift(3));
    // Derived rather than loaded: loads are this path's bottleneck. A left shift by 64 yields 0
    // in AVX2, which is exactly right for a value that starts a word.
    const __m256i left = _mm256_sub_epi64(_mm256_set1_epi64x(64), right);
    const __m256i v = _mm256_or_si256(_mm256_srlv_epi64(low, right), _mm256_sllv_epi64(high, left));
    return _mm256_and_si256(v, k.mask);
  }
}

template <unsigned B, std::size_t... G>
SMARTARRAYS_AVX2 void unpack_chunk(const std::uint64_t* words, std::uint64_t* out, Constants k,
                                   std::index_sequence<G...>) {
  (_mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 4 * G), decode_group<B, 4, G>(words, k)), ...);
}

// Eight 32-bit lanes pay off in the sum when a value and its bit phase fit a lane's 4 bytes
// (b + 7 <= 32); a lane adds a chunk's eight values, at most 8 * (2^25 - 1), without overflow.
constexpr unsigned sum_lanes(unsigned bits) { return bits <= 25 ? 8 : 4; }

template <unsigned B, std::size_t... G>
SMARTARRAYS_AVX2 __m256i sum_chunk(const std::uint64_t* words, __m256i acc, Constants k,
                                   std::index_sequence<G...>) {
  constexpr unsigned lanes = sum_lanes(B);
  // Two accumulators halve the add dependency chain.
  __m256i even = _mm256_setzero_si256(), odd = _mm256_setzero_si256();
  if constexpr (lanes == 8) {
    ((G % 2 == 0 ? even = _mm256_add_epi32(even, decode_group<B, 8, G>(words, k))
                 : odd = _mm256_add_epi32(odd, decode_group<B, 8, G>(words, k))),
     ...);
    const __m256i both = _mm256_add_epi32(even, odd);
    acc = _mm256_add_epi64(acc, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(both)));
    return _mm256_add_epi64(acc, _mm256_cvtepu32_epi64(_mm256_extracti128_si256(both, 1)));
  } else {
    ((G % 2 == 0 ? even = _mm256_add_epi64(even, decode_group<B, 4, G>(words, k))
                 : odd = _mm256_add_epi64(odd, decode_group<B, 4, G>(words, k))),
     ...);
    return _mm256_add_epi64(acc, _mm256_add_epi64(even, odd));
  }
}

SMARTARRAYS_AVX2 std::uint64_t horizontal_sum(__m256i v) {
  const __m128i s = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  return static_cast<std::uint64_t>(_mm_cvtsi128_si64(s)) + static_cast<std::uint64_t>(_mm_extract_epi64(s, 1));
}

// Chunks whose loads may reach past the end of a call's range: a group's loads run up to
// padding_words past its own chunk, which for narrow widths is several chunks.
template <unsigned B>
inline constexpr std::uint64_t tail_chunks = overreads(B) ? (padding_words + B - 1) / B : 0;

// Runs f(chunk_words, c) on each chunk; the last tail_chunks<B> through a zero-padded copy.
template <unsigned B, typename F>
SMARTARRAYS_AVX2 void for_each_chunk(const std::uint64_t* words, std::uint64_t first, std::uint64_t count, F&& f) {
  if (count == 0) return;
  const std::uint64_t* chunk = words + first * B;
  const std::uint64_t tail = count < tail_chunks<B> ? count : tail_chunks<B>;
  const std::uint64_t direct = count - tail;
  for (std::uint64_t c = 0; c < direct; ++c) f(chunk + c * B, c);
  if constexpr (tail_chunks<B> != 0) {
    alignas(32) std::uint64_t padded[tail_chunks<B> * B + padding_words] = {};
    std::memcpy(padded, chunk + direct * B, tail * B * sizeof(std::uint64_t));
    for (std::uint64_t c = 0; c < tail; ++c) f(padded + c * B, direct + c);
  }
}

template <unsigned B>
SMARTARRAYS_AVX2_ENTRY void unpack_chunks(const std::uint64_t* words, std::uint64_t first, std::uint64_t count,
                                          std::uint64_t* out) {
  const Constants k = load_constants<B, 4>();
  for_each_chunk<B>(words, first, count, [&](const std::uint64_t* chunk, std::uint64_t c) SMARTARRAYS_AVX2_ENTRY {
    unpack_chunk<B>(chunk, out + c * chunk_values, k, std::make_index_sequence<groups_per_chunk>{});
  });
}

template <unsigned B>
SMARTARRAYS_AVX2_ENTRY std::uint64_t sum_chunks(const std::uint64_t* words, std::uint64_t first,
                                                std::uint64_t count) {
  const Constants k = load_constants<B, sum_lanes(B)>();
  __m256i acc = _mm256_setzero_si256();
  for_each_chunk<B>(words, first, count, [&](const std::uint64_t* chunk, std::uint64_t) SMARTARRAYS_AVX2_ENTRY {
    acc = sum_chunk<B>(chunk, acc, k, std::make_index_sequence<chunk_values / sum_lanes(B)>{});
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
