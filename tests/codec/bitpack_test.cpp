// Tests the codec against an independent LSB-first bit reader/writer written here, for every bit
// width 1..64, every instruction set this CPU has, chunk boundaries and partial chunks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/codec/kernels.hpp"
#include "smartarrays/error.hpp"
#include "support/sample_values.hpp"

namespace sc = smartarrays::codec;

namespace {

using smartarrays::test::sample_values;

// The oracle: a bit-at-a-time reader and writer of the docs/bit-layout.md stream, sharing no code with
// the library.
std::uint64_t oracle_read(const std::vector<std::uint64_t>& words, std::uint64_t index, unsigned bits) {
  std::uint64_t value = 0;
  for (unsigned k = 0; k < bits; ++k) {
    const std::uint64_t bit = index * bits + k;
    value |= ((words[bit / 64] >> (bit % 64)) & 1u) << k;
  }
  return value;
}

std::vector<std::uint64_t> oracle_write(const std::vector<std::uint64_t>& values, unsigned bits) {
  const std::uint64_t chunks = (values.size() + 63) / 64;
  std::vector<std::uint64_t> words(chunks * bits, 0);
  for (std::uint64_t i = 0; i < values.size(); ++i) {
    for (unsigned k = 0; k < bits; ++k) {
      const std::uint64_t bit = i * bits + k;
      if ((values[i] >> k) & 1u) words[bit / 64] |= std::uint64_t{1} << (bit % 64);
    }
  }
  return words;
}

std::uint64_t top(unsigned bits) { return bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1; }

std::vector<sc::Isa> isas() {
  std::vector<sc::Isa> out{sc::Isa::scalar};
  if (sc::isa_supported(sc::Isa::avx2)) out.push_back(sc::Isa::avx2);
  return out;
}

// The compile-time width functions of one width, taken by address so that the tests below are
// ordinary loops over 1..64 (instantiating the test bodies per width made this file the costliest
// to compile of the project; the functions under test are instantiated for every width all the same).
struct WidthFunctions {
  void (*set)(std::uint64_t*, std::uint64_t, std::uint64_t) noexcept;
  std::uint64_t (*get)(const std::uint64_t*, std::uint64_t) noexcept;
  std::uint64_t (*get_padded)(const std::uint64_t*, std::uint64_t) noexcept;
  void (*pack_chunk)(const std::uint64_t*, std::uint64_t*) noexcept;
  void (*unpack_chunk)(const std::uint64_t*, std::uint64_t*) noexcept;
  std::uint64_t (*sum_chunk)(const std::uint64_t*) noexcept;
};

template <unsigned... B>
std::vector<WidthFunctions> width_functions(std::integer_sequence<unsigned, B...>) {
  return {WidthFunctions{&sc::set<B + 1>, &sc::get<B + 1>, &sc::get_padded<B + 1>, &sc::pack_chunk<B + 1>,
                         &sc::unpack_chunk<B + 1>, &sc::sum_chunk<B + 1>}...};
}

// Index bits - 1.
const std::vector<WidthFunctions>& functions_by_width() {
  static const std::vector<WidthFunctions> table = width_functions(std::make_integer_sequence<unsigned, 64>{});
  return table;
}

constexpr std::uint64_t lengths[] = {1, 2, 63, 64, 65, 127, 128, 129, 1000, 4096 + 17};

}  // namespace

TEST(Bitpack, MinBitsAndMasks) {
  EXPECT_EQ(sc::min_bits(0), 1u);
  EXPECT_EQ(sc::min_bits(1), 1u);
  EXPECT_EQ(sc::min_bits(2), 2u);
  EXPECT_EQ(sc::min_bits(255), 8u);
  EXPECT_EQ(sc::min_bits(256), 9u);
  EXPECT_EQ(sc::min_bits(~std::uint64_t{0}), 64u);
  for (unsigned b = 1; b <= 64; ++b) {
    EXPECT_EQ(sc::min_bits(top(b)), b);
    EXPECT_TRUE(sc::fits(top(b), b));
    if (b < 64) {
      EXPECT_FALSE(sc::fits(top(b) + 1, b));
    }
  }
  EXPECT_EQ(sc::word_count(0, 7), 0u);
  EXPECT_EQ(sc::word_count(1, 7), 7u);
  EXPECT_EQ(sc::word_count(64, 7), 7u);
  EXPECT_EQ(sc::word_count(65, 7), 14u);
}

TEST(Bitpack, TemplateGetSetMatchOracleForEveryWidth) {
  for (unsigned B = 1; B <= 64; ++B) {
    const WidthFunctions& f = functions_by_width()[B - 1];
    for (std::uint64_t n : {std::uint64_t{1}, std::uint64_t{64}, std::uint64_t{65}, std::uint64_t{128}, std::uint64_t{200}}) {
      const auto values = sample_values(n, B, 1);
      const auto expected = oracle_write(values, B);
      std::vector<std::uint64_t> words(sc::word_count(n, B), 0);
      for (std::uint64_t i = 0; i < n; ++i) f.set(words.data(), i, values[i]);
      ASSERT_EQ(words, expected) << "set<" << B << "> n=" << n;
      for (std::uint64_t i = 0; i < n; ++i) ASSERT_EQ(f.get(words.data(), i), values[i]) << "get<" << B << ">";
      // get_padded may read into one word past the stream; the padding word's bits must not leak.
      // Sized exactly (no spare capacity), so ASan sees any read past the padding word.
      std::vector<std::uint64_t> padded(words.size() + 1, ~std::uint64_t{0});
      std::copy(words.begin(), words.end(), padded.begin());
      for (std::uint64_t i = 0; i < n; ++i) {
        ASSERT_EQ(f.get_padded(padded.data(), i), values[i]) << "get_padded<" << B << ">";
      }
      // Overwriting keeps neighbours: set every value to its complement and back.
      for (std::uint64_t i = 0; i < n; ++i) f.set(words.data(), i, ~values[i] & top(B));
      for (std::uint64_t i = 0; i < n; ++i) ASSERT_EQ(oracle_read(words, i, B), ~values[i] & top(B));
    }
  }
}

TEST(Bitpack, TemplateChunkKernelsMatchOracle) {
  for (unsigned B = 1; B <= 64; ++B) {
    const WidthFunctions& f = functions_by_width()[B - 1];
    const auto values = sample_values(64, B, 2);
    std::vector<std::uint64_t> chunk(B);
    f.pack_chunk(values.data(), chunk.data());
    ASSERT_EQ(chunk, oracle_write(values, B)) << "pack_chunk<" << B << ">";
    std::vector<std::uint64_t> out(64);
    f.unpack_chunk(chunk.data(), out.data());
    ASSERT_EQ(out, values) << "unpack_chunk<" << B << ">";
    std::uint64_t total = 0;
    for (auto v : values) total += v;
    ASSERT_EQ(f.sum_chunk(chunk.data()), total) << "sum_chunk<" << B << ">";
  }
}

TEST(Bitpack, WithBitsSelectsTheCompileTimeWidth) {
  for (unsigned b = 1; b <= 64; ++b) {
    EXPECT_EQ(sc::with_bits(b, [](auto w) { return decltype(w)::value; }), b);
  }
}

class DispatchedKernels : public ::testing::TestWithParam<sc::Isa> {};

TEST_P(DispatchedKernels, UnpackPackSumMatchOracleForEveryWidth) {
  const sc::Isa isa = GetParam();
  for (unsigned b = 1; b <= 64; ++b) {
    const sc::Kernels& k = sc::kernels(b, isa);
    ASSERT_EQ(k.bits, b);
    ASSERT_EQ(k.isa, isa);
    for (std::uint64_t chunks : {1u, 2u, 3u, 17u}) {
      const std::uint64_t n = chunks * 64;
      const auto values = sample_values(n, b, 3);
      const auto expected = oracle_write(values, b);
      // The stream is exactly the chunks given: kernels must not read or write past it.
      std::vector<std::uint64_t> words(expected.size(), 0);
      k.pack(values.data(), 0, chunks, words.data());
      ASSERT_EQ(words, expected) << sc::isa_name(isa) << " pack b=" << b;
      std::vector<std::uint64_t> out(n);
      k.unpack(words.data(), 0, chunks, out.data());
      ASSERT_EQ(out, values) << sc::isa_name(isa) << " unpack b=" << b << " chunks=" << chunks;
      std::uint64_t total = 0;
      for (auto v : values) total += v;
      ASSERT_EQ(k.sum(words.data(), 0, chunks), total) << sc::isa_name(isa) << " sum b=" << b;
      if (chunks > 2) {
        // A window of chunks in the middle of the stream.
        std::vector<std::uint64_t> part(64);
        k.unpack(words.data(), 1, 1, part.data());
        ASSERT_TRUE(std::equal(part.begin(), part.end(), values.begin() + 64)) << "b=" << b;
        std::uint64_t middle = 0;
        for (std::uint64_t i = 64; i < n - 64; ++i) middle += values[i];
        ASSERT_EQ(k.sum(words.data(), 1, chunks - 2), middle) << "b=" << b;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Isa, DispatchedKernels, ::testing::ValuesIn(isas()),
                         [](const ::testing::TestParamInfo<sc::Isa>& p) { return std::string(sc::isa_name(p.param)); });

// The AVX2 pack kernels against the portable ones, bit for bit, on the whole output stream: chunks
// at an offset inside a stream of sentinel words that must survive, random values with zeros and
// maxima (2^b - 1) planted and whole chunks of each, and the independent decoder reading it back.
TEST(Avx2Pack, EqualsScalarPackBitForBitForEveryWidth) {
  if (!sc::isa_supported(sc::Isa::avx2)) GTEST_SKIP() << "this CPU lacks AVX2/BMI2: there is no AVX2 pack to compare";
  constexpr std::uint64_t sentinel = 0xA5A5'5A5A'C3C3'3C3Cull;
  for (unsigned b = 1; b <= 64; ++b) {
    const sc::Kernels& avx2 = sc::kernels(b, sc::Isa::avx2);
    const sc::Kernels& scalar = sc::kernels(b, sc::Isa::scalar);
    for (std::uint64_t chunks : {1u, 2u, 3u, 5u, 8u, 9u}) {
      for (std::uint64_t first : {0u, 1u, 4u}) {
        std::vector<std::uint64_t> values = sample_values(chunks * 64, b, static_cast<std::uint32_t>(chunks + first));
        std::fill_n(values.begin(), 64, 0);                     // a chunk of zeros
        if (chunks > 1) std::fill_n(values.begin() + 64, 64, top(b));  // and one of maxima
        // Exactly the stream the chunks need plus one word: a write past them is caught.
        std::vector<std::uint64_t> expected((first + chunks) * b + 1, sentinel);
        std::vector<std::uint64_t> words = expected;
        scalar.pack(values.data(), first, chunks, expected.data());
        avx2.pack(values.data(), first, chunks, words.data());
        ASSERT_EQ(words, expected) << "b=" << b << " chunks=" << chunks << " first=" << first;
        const std::vector<std::uint64_t> packed(words.begin() + static_cast<std::ptrdiff_t>(first * b),
                                                words.end() - 1);
        ASSERT_EQ(packed, oracle_write(values, b)) << "b=" << b << " chunks=" << chunks << " first=" << first;
        for (std::uint64_t i = 0; i < values.size(); ++i) {
          ASSERT_EQ(oracle_read(packed, i, b), values[i]) << "b=" << b << " i=" << i;
        }
        std::vector<std::uint64_t> decoded(values.size());
        avx2.unpack(words.data(), first, chunks, decoded.data());
        ASSERT_EQ(decoded, values) << "b=" << b << " chunks=" << chunks << " first=" << first;
      }
    }
  }
}

TEST(RangeOps, EncodeDecodeSumAtEveryLengthAndOffset) {
  for (unsigned b = 1; b <= 64; ++b) {
    for (std::uint64_t n : lengths) {
      const auto values = sample_values(n, b, 4);
      std::vector<std::uint64_t> words(sc::word_count(n, b), ~std::uint64_t{0});
      sc::encode(values.data(), n, b, words.data());
      ASSERT_EQ(words, oracle_write(values, b)) << "encode b=" << b << " n=" << n;
      for (std::uint64_t start : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{63}, std::uint64_t{64},
                                  std::uint64_t{65}, n / 2, n - 1}) {
        if (start >= n) continue;
        for (std::uint64_t count : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{64}, std::uint64_t{130}, n}) {
          count = std::min(count, n - start);
          std::vector<std::uint64_t> out(count + 1, 0xABCD);
          sc::decode(words.data(), b, start, count, out.data());
          std::uint64_t total = 0;
          for (std::uint64_t i = 0; i < count; ++i) {
            ASSERT_EQ(out[i], values[start + i]) << "decode b=" << b << " n=" << n << " start=" << start;
            total += values[start + i];
          }
          ASSERT_EQ(out[count], 0xABCDu) << "decode wrote past its range";
          ASSERT_EQ(sc::sum(words.data(), b, start, count), total) << "sum b=" << b << " start=" << start;
        }
      }
    }
  }
}

TEST(RangeOps, EncodeRangeKeepsNeighbours) {
  for (unsigned b = 1; b <= 64; ++b) {
    const std::uint64_t n = 300;
    auto values = sample_values(n, b, 5);
    std::vector<std::uint64_t> words(sc::word_count(n, b));
    sc::encode(values.data(), n, b, words.data());
    for (auto [start, count] : {std::pair<std::uint64_t, std::uint64_t>{3, 5}, {60, 10}, {64, 64}, {70, 200}, {0, 300}}) {
      std::vector<std::uint64_t> patch(count);
      for (std::uint64_t i = 0; i < count; ++i) patch[i] = (values[start + i] ^ 0x5555555555555555ull) & top(b);
      sc::encode_range(patch.data(), start, count, b, words.data());
      for (std::uint64_t i = 0; i < count; ++i) values[start + i] = patch[i];
      for (std::uint64_t i = 0; i < n; ++i) ASSERT_EQ(oracle_read(words, i, b), values[i]) << "b=" << b;
    }
  }
}

TEST(RangeOps, RejectsValuesTooWideAndBadWidths) {
  std::vector<std::uint64_t> words(16, 0);
  const std::vector<std::uint64_t> values{1, 2, 70000};
  try {
    sc::encode(values.data(), values.size(), 16, words.data());
    FAIL() << "no error";
  } catch (const smartarrays::Error& e) {
    EXPECT_EQ(e.code(), smartarrays::ErrorCode::invalid_argument);
    EXPECT_STREQ(e.what(), "value 70000 at index 2 needs 17 bits, array has 16");
  }
  EXPECT_THROW(sc::encode_range(values.data(), 5, 3, 16, words.data()), smartarrays::Error);
  EXPECT_THROW(sc::kernels(0), smartarrays::Error);
  EXPECT_THROW(sc::kernels(65), smartarrays::Error);
  EXPECT_THROW(sc::decode(words.data(), 0, 0, 1, words.data()), smartarrays::Error);
  EXPECT_THROW(sc::sum(words.data(), 65, 0, 1), smartarrays::Error);
  EXPECT_EQ(sc::max_value(values.data(), 3), 70000u);
  EXPECT_EQ(sc::max_value(values.data(), 0), 0u);
}

TEST(RangeOps, TooWideValueNamesTheFirstAndWritesNothing) {
  for (unsigned b = 1; b <= 63; ++b) {
    std::vector<std::uint64_t> values = sample_values(600, b, 5);
    values[321] = top(b) + 1;
    values[590] = ~std::uint64_t{0};
    auto message = [b](std::uint64_t index) {
      return "value " + std::to_string(top(b) + 1) + " at index " + std::to_string(index) + " needs " +
             std::to_string(b + 1) + " bits, array has " + std::to_string(b);
    };
    for (std::uint64_t start : {0u, 37u}) {
      const std::vector<std::uint64_t> before((start + 600 + 63) / 64 * b, 0x1234);
      std::vector<std::uint64_t> words = before;
      try {
        if (start == 0) {
          sc::encode(values.data(), values.size(), b, words.data());
        } else {
          sc::encode_range(values.data(), start, values.size(), b, words.data());
        }
        FAIL() << "no error at b=" << b;
      } catch (const smartarrays::Error& e) {
        EXPECT_EQ(e.code(), smartarrays::ErrorCode::invalid_argument);
        EXPECT_EQ(std::string(e.what()), message(321 + start));
      }
      EXPECT_EQ(words, before) << "b=" << b << ": a rejected encode wrote";
    }
  }
}
