// Owns the round-trip tests of SmartArray for every bit width 1..64 at chunk-boundary lengths: every
// read path (get, iterator, range decode, chunk unpack, typed view, visit, sum) agrees with the values
// written and with an independent bit reader over the raw replica words.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "smartarrays/array/smart_array.hpp"
#include "support/reference_layout.hpp"

namespace smartarrays {
namespace {

using test::reference_tail_is_zero;
using test::reference_value;

constexpr std::uint64_t kLengths[] = {1, 63, 64, 65, 127, 128, 129, 1000};

// Random values of varied magnitude, with 0 and 2^b - 1 at the chunk boundaries and at the end.
std::vector<std::uint64_t> test_values(unsigned bits, std::uint64_t n, std::mt19937_64& rng) {
  const std::uint64_t top = codec::value_mask(bits);
  std::vector<std::uint64_t> values(n);
  for (std::uint64_t i = 0; i < n; ++i) values[i] = (rng() & top) >> (rng() % bits);
  for (std::uint64_t edge : {std::uint64_t{0}, std::uint64_t{62}, std::uint64_t{63}, std::uint64_t{64},
                             std::uint64_t{127}, std::uint64_t{128}, n - 1}) {
    if (edge < n) values[edge] = top;
  }
  if (n > 1) values[1] = 0;
  if (n > 65) values[65] = 0;
  return values;
}

std::uint64_t wrapping_sum(const std::vector<std::uint64_t>& values, std::uint64_t start, std::uint64_t count) {
  std::uint64_t total = 0;
  for (std::uint64_t i = start; i < start + count; ++i) total += values[i];
  return total;
}

class RoundTrip : public ::testing::TestWithParam<unsigned> {};

TEST_P(RoundTrip, EveryReadPathAgreesWithTheValuesAndTheReferenceReader) {
  const unsigned bits = GetParam();
  std::mt19937_64 rng(bits * 7919);
  for (std::uint64_t n : kLengths) {
    SCOPED_TRACE("bits " + std::to_string(bits) + " length " + std::to_string(n));
    const std::vector<std::uint64_t> values = test_values(bits, n, rng);
    ArrayOptions options;
    options.bits = bits;
    const SmartArray array = SmartArray::from_values(values, options);
    ASSERT_EQ(array.length(), n);
    ASSERT_EQ(array.bits(), bits);
    ASSERT_EQ(array.words_per_replica(), codec::word_count(n, bits));

    // The layout: the independent reader sees every value; the padded tail and the padding word are zero.
    const std::uint64_t* words = array.replica(0);
    for (std::uint64_t i = 0; i < n; ++i) ASSERT_EQ(reference_value(words, bits, i), values[i]) << "index " << i;
    EXPECT_TRUE(reference_tail_is_zero(words, array.words_per_replica(), n * bits));
    EXPECT_EQ(words[array.words_per_replica()], 0u) << "padding word";

    for (std::uint64_t i = 0; i < n; ++i) {
      ASSERT_EQ(array.get(i), values[i]) << "get " << i;
      ASSERT_EQ(array.get_unchecked(i), values[i]) << "get_unchecked " << i;
    }

    std::vector<std::uint64_t> iterated;
    for (std::uint64_t v : array) iterated.push_back(v);
    EXPECT_EQ(iterated, values) << "range-for";

    std::vector<std::uint64_t> decoded(n);
    array.decode(0, n, decoded.data());
    EXPECT_EQ(decoded, values) << "decode";

    std::vector<std::uint64_t> unpacked(array.chunks() * codec::chunk_values);
    for (std::uint64_t c = 0; c < array.chunks(); ++c) array.unpack(c, unpacked.data() + c * codec::chunk_values);
    EXPECT_TRUE(std::all_of(unpacked.begin() + static_cast<std::ptrdiff_t>(n), unpacked.end(),
                            [](std::uint64_t v) { return v == 0; }))
        << "partial last chunk unpacks zeros past the end";
    unpacked.resize(n);
    EXPECT_EQ(unpacked, values) << "unpack";

    const std::vector<std::uint64_t> visited = array.visit([&](auto view) {
      EXPECT_EQ(view.bits, bits);
      std::vector<std::uint64_t> out(view.length());
      for (std::uint64_t i = 0; i < view.length(); ++i) out[i] = view.get(i);
      return out;
    });
    EXPECT_EQ(visited, values) << "visit";

    EXPECT_EQ(array.sum(), wrapping_sum(values, 0, n));
  }
}

TEST_P(RoundTrip, RangesFromAnyStartDecodeAndSum) {
  const unsigned bits = GetParam();
  std::mt19937_64 rng(bits * 104729);
  const std::uint64_t n = 1000;
  const std::vector<std::uint64_t> values = test_values(bits, n, rng);
  ArrayOptions options;
  options.bits = bits;
  const SmartArray array = SmartArray::from_values(values, options);
  for (std::uint64_t start : {0, 1, 31, 63, 64, 65, 127, 500, 937, 999, 1000}) {
    for (std::uint64_t count : {0, 1, 2, 63, 64, 65, 130, 1000}) {
      if (start + count > n) continue;
      SCOPED_TRACE("start " + std::to_string(start) + " count " + std::to_string(count));
      std::vector<std::uint64_t> out(count + 1, 0xdeadbeef);
      array.decode(start, count, out.data());
      for (std::uint64_t i = 0; i < count; ++i) ASSERT_EQ(out[i], values[start + i]) << "decode at " << i;
      EXPECT_EQ(out[count], 0xdeadbeefu) << "decode wrote past its range";
      EXPECT_EQ(array.sum(start, count), wrapping_sum(values, start, count));

      auto it = array.iterate(start);
      for (std::uint64_t i = 0; i < count; ++i, it.next()) ASSERT_EQ(it.get(), values[start + i]) << "iterator at " << i;
    }
  }
}

TEST_P(RoundTrip, InitWritesTheSameStreamAsFromValues) {
  const unsigned bits = GetParam();
  std::mt19937_64 rng(bits * 15485863);
  for (std::uint64_t n : kLengths) {
    SCOPED_TRACE("bits " + std::to_string(bits) + " length " + std::to_string(n));
    const std::vector<std::uint64_t> values = test_values(bits, n, rng);
    ArrayOptions options;
    options.bits = bits;
    const SmartArray packed = SmartArray::from_values(values, options);
    SmartArray written = SmartArray::allocate(n, options);
    EXPECT_EQ(written.sum(), 0u) << "allocate zero-fills";
    // Reverse order, so each write must preserve neighbours written before it in the same words.
    for (std::uint64_t i = n; i-- > 0;) {
      if (i % 2 == 0) {
        written.init(i, values[i]);
      } else {
        written.init_unchecked(i, values[i]);
      }
    }
    EXPECT_TRUE(std::equal(packed.replica(0), packed.replica(0) + packed.words_per_replica(), written.replica(0)));
    // Overwrite with all ones then zeros: a set must clear old bits, not only OR new ones.
    written.init(n - 1, codec::value_mask(bits));
    written.init(n - 1, 0);
    EXPECT_EQ(written.get(n - 1), 0u);
    if (n > 1) {
      EXPECT_EQ(written.get(n - 2), values[n - 2]) << "neighbour kept";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllWidths, RoundTrip, ::testing::Range(1u, 65u),
                         [](const ::testing::TestParamInfo<unsigned>& param) { return std::to_string(param.param) + "bits"; });

TEST(FromValues, ThirtyTwoBitInputPacksLikeSixtyFourBitInput) {
  for (unsigned bits = 1; bits <= 32; ++bits) {
    SCOPED_TRACE(bits);
    std::mt19937_64 rng(bits);
    const std::vector<std::uint64_t> wide = test_values(bits, 5000, rng);
    const std::vector<std::uint32_t> narrow(wide.begin(), wide.end());
    ArrayOptions options;
    options.bits = bits;
    const SmartArray from_wide = SmartArray::from_values(wide, options);
    const SmartArray from_narrow = SmartArray::from_values(std::span<const std::uint32_t>(narrow), options);
    ASSERT_EQ(from_narrow.words_per_replica(), from_wide.words_per_replica());
    EXPECT_TRUE(std::equal(from_wide.replica(0), from_wide.replica(0) + from_wide.words_per_replica(),
                           from_narrow.replica(0)));
  }
}

TEST(FromValues, DerivesTheFewestBitsFromTheLargestValue) {
  const std::vector<std::uint64_t> values = {3, 70000, 5};
  const SmartArray array = SmartArray::from_values(values, {});
  EXPECT_EQ(array.bits(), 17u);
  EXPECT_EQ(array.options().bits, 17u);
  const std::vector<std::uint64_t> zeros(10, 0);
  EXPECT_EQ(SmartArray::from_values(zeros, {}).bits(), 1u) << "all zeros still need one bit";
  const std::vector<std::uint64_t> top = {~std::uint64_t{0}};
  EXPECT_EQ(SmartArray::from_values(top, {}).bits(), 64u);
  const std::vector<std::uint32_t> narrow = {1, 2, 0xffffffffu};
  EXPECT_EQ(SmartArray::from_values(std::span<const std::uint32_t>(narrow), {}).bits(), 32u);
}

TEST(FromValues, AnEmptyArrayHasNoValuesAndNoChunks) {
  const SmartArray array = SmartArray::from_values(std::span<const std::uint64_t>(), {});
  EXPECT_EQ(array.length(), 0u);
  EXPECT_EQ(array.bits(), 1u);
  EXPECT_EQ(array.chunks(), 0u);
  EXPECT_EQ(array.words_per_replica(), 0u);
  EXPECT_EQ(array.sum(), 0u);
  EXPECT_EQ(array.begin(), array.end());
  EXPECT_TRUE(array.partitions().empty());
  array.decode(0, 0, nullptr);
  EXPECT_GT(array.memory_bytes(), 0u) << "the padding word is still mapped";
}

TEST(FromValues, SumWrapsAroundModuloTwoToTheSixtyFour) {
  const std::vector<std::uint64_t> values = {~std::uint64_t{0}, 2, ~std::uint64_t{0}};
  const SmartArray array = SmartArray::from_values(values, {});
  // (2^64 - 1) + 2 + (2^64 - 1) = 2^65, which is 0 modulo 2^64.
  EXPECT_EQ(array.sum(), 0u);
  EXPECT_EQ(array.sum(1, 2), 1u);
}

TEST(SmartArrayMove, LeavesTheSourceEmptyAndKeepsTheData) {
  const std::vector<std::uint64_t> values = {1, 2, 3};
  SmartArray a = SmartArray::from_values(values, {});
  const std::uint64_t* words = a.replica(0);
  SmartArray b = std::move(a);
  EXPECT_EQ(b.replica(0), words) << "moving keeps the memory in place";
  EXPECT_EQ(b.get(2), 3u);
  EXPECT_EQ(a.length(), 0u);     // NOLINT(bugprone-use-after-move): the moved-from state is specified
  EXPECT_EQ(a.replicas(), 0u);   // NOLINT(bugprone-use-after-move)
  SmartArray c = SmartArray::from_values(std::vector<std::uint64_t>{9}, {});
  c = std::move(b);
  EXPECT_EQ(c.length(), 3u);
  EXPECT_EQ(c.replica(0), words);
  EXPECT_EQ(b.length(), 0u);     // NOLINT(bugprone-use-after-move)
}

}  // namespace
}  // namespace smartarrays
