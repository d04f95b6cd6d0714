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
//
// Packing (see "pack" below) merges adjacent values pairwise in registers while two still fit a
// 64-bit lane, then funnels the merged values into words with permutes, blends and variable
// shifts; it reads exactly the chunk's 64 values and writes exactly its b words.
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

// ---- pack ----
// A chunk's 64 values are packed in two stages, both in registers.
//  - Merge tree: while two merged values still fit a 64-bit lane, adjacent values are merged
//    pairwise (x[2i] | x[2i+1] << w), 16 vectors down to at most one (four levels). Even levels
//    pair lanes with an in-lane 64-bit unpack (leaving each vector's values in the order 0, 2, 1,
//    3), odd levels with a 128-bit permute (which pairs exactly those and restores the order).
//  - When the merged width w reaches 64 the merged values are the words (b = 4, 8, 16, 32; b = 1
//    and 2 end in one vector of four and finish in scalar code; b = 64 is a copy). Otherwise
//    (w in 33..63) a funnel builds four words per vector: word j is the OR of its (at most three)
//    overlapping merged values, each moved into the word's lane by a 64-bit permute of the vector
//    that holds it (and a blend when the lanes come from two or three vectors), then shifted into
//    place by a variable shift (a count of 64 yields 0, so a term that misses a lane costs nothing).
// Every permute, blend and shift pattern is a compile-time constant of the width. Two variants
// measured slower on L1 data: a funnel loading each lane's value straight from the chunk's
// values at a per-lane offset (no permutes: 0.77-0.95x at b = 33..58, 1.1x only at 59..63), and
// a funnel reading the tree's output back from a stack buffer (0.5-0.9x: failed store forwarding).

constexpr unsigned pack_vectors = chunk_values / 4;

// Pairwise merge levels of width b: while the merged width fits, and at most four (one vector left).
constexpr unsigned merge_levels(unsigned bits) {
  unsigned levels = 0;
  while (levels < 4 && (bits << (levels + 1)) <= 64) ++levels;
  return levels;
}

template <unsigned W, unsigned Level, std::size_t... I>
SMARTARRAYS_AVX2 void merge_level(__m256i* v, std::index_sequence<I...>) {
  // v[I] is written after v[2I] and v[2I + 1] were read, and before any later pair is read.
  if constexpr (Level % 2 == 0) {
    ((v[I] = _mm256_or_si256(_mm256_unpacklo_epi64(v[2 * I], v[2 * I + 1]),
                             _mm256_slli_epi64(_mm256_unpackhi_epi64(v[2 * I], v[2 * I + 1]), W))),
     ...);
  } else {
    ((v[I] = _mm256_or_si256(_mm256_permute2x128_si256(v[2 * I], v[2 * I + 1], 0x20),
                             _mm256_slli_epi64(_mm256_permute2x128_si256(v[2 * I], v[2 * I + 1], 0x31), W))),
     ...);
  }
}

template <unsigned B, unsigned Level>
SMARTARRAYS_AVX2 void merge_levels_from(__m256i* v) {
  if constexpr (Level < merge_levels(B)) {
    merge_level<(B << Level), Level>(v, std::make_index_sequence<(pack_vectors >> (Level + 1))>{});
    merge_levels_from<B, Level + 1>(v);
  }
}

// Where merged value i sits in its vector (i / 4): lane i % 4, but after an odd number of merge
// levels lanes 1 and 2 are swapped (the order 0, 2, 1, 3), which the funnel's permutes absorb.
constexpr unsigned merged_lane(unsigned bits, unsigned value) {
  const unsigned lane = value % 4;
  return merge_levels(bits) % 2 == 1 && (lane == 1 || lane == 2) ? 3 - lane : lane;
}

// How the funnel fills one term (0..2) of a group of four words: lane l takes one merged value,
// shifted right by shift[l] for term 0 (the value that started in an earlier word) and left for
// the others (64, so nothing, when no value lands in the lane). Each source is one vector of the
// tree, permuted into the lanes it serves and blended.
struct FunnelTerm {
  unsigned sources = 0;              // 0: the term is zero in every lane
  std::array<unsigned, 3> vector{};  // which vector each source is
  std::array<int, 3> permute{};      // its permute4x64 control (0xE4: none)
  std::array<int, 3> blend{};        // the lanes it serves, as a blend_epi32 mask
  std::array<long long, 4> shift{};
};

constexpr FunnelTerm funnel_term(unsigned bits, unsigned group, unsigned term) {
  const unsigned merged = bits << merge_levels(bits);
  const unsigned count = 64 * bits / merged;  // merged values per chunk
  FunnelTerm t;
  for (unsigned l = 0; l < 4; ++l) {
    t.shift[l] = 64;
    const unsigned word = 4 * group + l;
    if (word >= bits) continue;  // past the chunk: the lane is never stored
    const unsigned value = 64 * word / merged + term;
    const unsigned start = value * merged;  // the chunk's bit where the value starts
    if (value >= count || start >= 64 * (word + 1)) continue;
    t.shift[l] = term == 0 ? 64 * word - start : start - 64 * word;
    unsigned s = 0;
    while (s < t.sources && t.vector[s] != value / 4) ++s;
    if (s == t.sources) {
      t.vector[s] = value / 4;
      t.permute[s] = 0xE4;  // lanes it does not serve stay: no permute when it serves them in place
      ++t.sources;
    }
    t.permute[s] = (t.permute[s] & ~(3 << (2 * l))) | static_cast<int>(merged_lane(bits, value)) << (2 * l);
    t.blend[s] |= 3 << (2 * l);
  }
  return t;
}

template <unsigned B, unsigned G, unsigned K>
inline constexpr FunnelTerm funnel_terms = funnel_term(B, G, K);

template <int Control>
SMARTARRAYS_AVX2 __m256i permute_lanes(__m256i v) {
  if constexpr (Control == 0xE4) {
    return v;
  } else {
    return _mm256_permute4x64_epi64(v, Control);
  }
}

// Term K of words 4G .. 4G + 3, each lane's merged value shifted into place.
template <unsigned B, unsigned G, unsigned K>
SMARTARRAYS_AVX2 __m256i funnel(const __m256i* v) {
  constexpr const FunnelTerm& t = funnel_terms<B, G, K>;
  if constexpr (t.sources == 0) {
    return _mm256_setzero_si256();
  } else {
    __m256i x = permute_lanes<t.permute[0]>(v[t.vector[0]]);
    if constexpr (t.sources > 1) x = _mm256_blend_epi32(x, permute_lanes<t.permute[1]>(v[t.vector[1]]), t.blend[1]);
    if constexpr (t.sources > 2) x = _mm256_blend_epi32(x, permute_lanes<t.permute[2]>(v[t.vector[2]]), t.blend[2]);
    const __m256i shift = _mm256_setr_epi64x(t.shift[0], t.shift[1], t.shift[2], t.shift[3]);
    return K == 0 ? _mm256_srlv_epi64(x, shift) : _mm256_sllv_epi64(x, shift);
  }
}

// Stores the first Words (1..4) lanes of v.
template <unsigned Words>
SMARTARRAYS_AVX2 void store_words(std::uint64_t* to, __m256i v) {
  if constexpr (Words == 4) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(to), v);
  } else {
    const __m128i low = _mm256_castsi256_si128(v);
    if constexpr (Words == 1) {
      _mm_storel_epi64(reinterpret_cast<__m128i*>(to), low);
    } else {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(to), low);
      if constexpr (Words == 3) _mm_storel_epi64(reinterpret_cast<__m128i*>(to + 2), _mm256_extracti128_si256(v, 1));
    }
  }
}

template <unsigned B, std::size_t... G>
SMARTARRAYS_AVX2 void funnel_chunk(const __m256i* v, std::uint64_t* chunk, std::index_sequence<G...>) {
  (store_words<(B - 4 * G < 4 ? B - 4 * G : 4)>(
       chunk + 4 * G, _mm256_or_si256(_mm256_or_si256(funnel<B, G, 0>(v), funnel<B, G, 1>(v)), funnel<B, G, 2>(v))),
   ...);
}

template <unsigned B, std::size_t... Q>
SMARTARRAYS_AVX2 void pack_chunk(const std::uint64_t* values, std::uint64_t* chunk, std::index_sequence<Q...>) {
  constexpr unsigned levels = merge_levels(B);
  constexpr unsigned merged = B << levels;
  constexpr unsigned vectors = pack_vectors >> levels;  // merged values / 4
  __m256i v[pack_vectors] = {_mm256_loadu_si256(reinterpret_cast<const __m256i*>(values + 4 * Q))...};
  merge_levels_from<B, 0>(v);
  if constexpr (merged == 64) {
    // An odd number of levels leaves each vector's words in the order 0, 2, 1, 3.
    constexpr int order = levels % 2 == 1 ? 0xD8 : 0xE4;
    ((Q < vectors ? _mm256_storeu_si256(reinterpret_cast<__m256i*>(chunk + 4 * Q), permute_lanes<order>(v[Q])) : void()),
     ...);
  } else if constexpr (64 % merged == 0) {
    // b = 1 or 2: one vector of four merged values makes one or two words.
    alignas(32) std::uint64_t lanes[4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), v[0]);
    constexpr unsigned per_word = 64 / merged;
    for (unsigned w = 0; w < B; ++w) {
      std::uint64_t word = 0;
      for (unsigned k = 0; k < per_word; ++k) word |= lanes[w * per_word + k] << (k * merged);
      chunk[w] = word;
    }
  } else {
    static_assert(funnel_term(B, 0, 3).sources == 0, "a merged value wider than 32 bits meets at most three per word");
    funnel_chunk<B>(v, chunk, std::make_index_sequence<(B + 3) / 4>{});
  }
}

template <unsigned B>
SMARTARRAYS_AVX2_ENTRY void pack_chunks(const std::uint64_t* values, std::uint64_t first, std::uint64_t count,
                                        std::uint64_t* words) {
  if constexpr (B == 64) {
    if (count != 0) std::memcpy(words + first * B, values, count * chunk_values * sizeof(std::uint64_t));
  } else {
    for (std::uint64_t c = 0; c < count; ++c) {
      pack_chunk<B>(values + c * chunk_values, words + (first + c) * B, std::make_index_sequence<pack_vectors>{});
    }
  }
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
