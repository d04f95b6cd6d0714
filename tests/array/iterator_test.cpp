// Owns the tests of SmartArray::Iterator as a cursor (get/next/reset), as a C++20 forward iterator
// (range-for, copies, std::ranges algorithms), and of BitsView<B> / visit against get().
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <numeric>
#include <ranges>
#include <utility>
#include <vector>

#include "smartarrays/array/smart_array.hpp"
#include "support/array_values.hpp"

namespace smartarrays {
namespace {

using test::array_of;

static_assert(std::forward_iterator<SmartArray::Iterator>);
static_assert(std::sentinel_for<std::default_sentinel_t, SmartArray::Iterator>);
static_assert(std::ranges::forward_range<const SmartArray&>);

std::vector<std::uint64_t> pattern(std::uint64_t n, unsigned bits) {
  std::vector<std::uint64_t> values(n);
  for (std::uint64_t i = 0; i < n; ++i) values[i] = (i * 0x9E3779B97F4A7C15u >> 7) & codec::value_mask(bits);
  return values;
}

TEST(Iterator, WorksAsAnExplicitCursor) {
  for (unsigned bits : {1u, 7u, 32u, 33u, 64u}) {
    SCOPED_TRACE(bits);
    const std::vector<std::uint64_t> values = pattern(200, bits);
    const SmartArray array = array_of(values, bits);
    // The paper's Function 4 loop.
    auto it = array.iterate(0);
    std::uint64_t sum = 0;
    for (std::uint64_t i = 0; i < array.length(); ++i) {
      ASSERT_EQ(it.index(), i);
      ASSERT_EQ(it.get(), values[i]);
      sum += it.get();
      it.next();
    }
    EXPECT_TRUE(it.at_end());
    EXPECT_EQ(sum, std::accumulate(values.begin(), values.end(), std::uint64_t{0}));

    for (std::uint64_t target : {std::uint64_t{130}, std::uint64_t{0}, std::uint64_t{63}, std::uint64_t{64},
                                 std::uint64_t{199}}) {
      it.reset(target);
      EXPECT_EQ(it.index(), target);
      EXPECT_EQ(it.get(), values[target]) << "after reset to " << target;
      it.next();
      if (target + 1 < values.size()) {
        EXPECT_EQ(it.get(), values[target + 1]);
      }
    }
    it.reset(200);
    EXPECT_TRUE(it.at_end());
    EXPECT_EQ(it, array.end());
  }
}

TEST(Iterator, CopiesKeepTheirOwnPositionAndChunk) {
  for (unsigned bits : {5u, 64u}) {
    SCOPED_TRACE(bits);
    const std::vector<std::uint64_t> values = pattern(300, bits);
    const SmartArray array = array_of(values, bits);
    auto a = array.iterate(60);
    auto b = a;  // copies the decoded chunk (or the in-place pointer for 64 bits)
    for (int k = 0; k < 10; ++k) ++a;
    EXPECT_EQ(a.get(), values[70]);
    EXPECT_EQ(b.get(), values[60]) << "the copy did not move with the original";
    EXPECT_EQ(*b++, values[60]);
    EXPECT_EQ(*b, values[61]);
    b = a;
    EXPECT_EQ(b, a);
    EXPECT_EQ(*b, values[70]);
    // The original's buffer is reused for a new chunk; the copy must not see it.
    auto c = array.iterate(10);
    auto d = c;
    c.reset(250);
    EXPECT_EQ(*d, values[10]);
    EXPECT_EQ(*c, values[250]);
  }
}

TEST(Iterator, ServesStdAlgorithmsAndRanges) {
  const std::vector<std::uint64_t> values = pattern(1000, 11);
  const SmartArray array = array_of(values, 11);
  EXPECT_TRUE(std::ranges::equal(array, values));
  EXPECT_EQ(std::ranges::distance(array), 1000);
  const auto largest = std::ranges::max_element(array);
  EXPECT_EQ(*largest, *std::max_element(values.begin(), values.end()));
  auto it = std::ranges::find(array, values[777]);
  EXPECT_EQ(*it, values[777]);
  std::vector<std::uint64_t> evens;
#if defined(__clang__) && __clang_major__ < 15
  // clang 14 cannot instantiate libstdc++ 12's view adaptors (view_interface's constraints): the
  // same loop without the adaptor.
  for (std::uint64_t v : array) {
    if (v % 2 == 0) evens.push_back(v);
  }
#else
  for (std::uint64_t v : array | std::views::filter([](std::uint64_t x) { return x % 2 == 0; })) evens.push_back(v);
#endif
  EXPECT_EQ(evens.size(), static_cast<std::size_t>(std::ranges::count_if(values, [](std::uint64_t x) { return x % 2 == 0; })));
  EXPECT_EQ(SmartArray::Iterator(), std::default_sentinel) << "a default iterator is at its end";
}

// What a BitsView<B> of an array reads, collected per width so that the checks below are one
// ordinary loop (instantiating them per width made this file costly to compile).
struct ViewReadings {
  std::uint64_t length = 0;
  std::uint64_t chunks = 0;
  const std::uint64_t* words = nullptr;
  const std::uint64_t* words_of_replica_0 = nullptr;
  std::vector<std::uint64_t> get, index, at, unpacked;
};

template <unsigned B>
ViewReadings read_view(const SmartArray& array) {
  const BitsView<B> view = array.view<B>();
  ViewReadings r{view.length(), view.chunks(), view.words(), array.view<B>(0).words(), {}, {}, {}, {}};
  for (std::uint64_t i = 0; i < view.length(); ++i) {
    r.get.push_back(view.get(i));
    r.index.push_back(view[i]);
    r.at.push_back(view.at(i));
  }
  r.unpacked.resize(view.chunks() * 64);
  for (std::uint64_t c = 0; c < view.chunks(); ++c) view.unpack(c, r.unpacked.data() + c * 64);
  return r;
}

template <std::size_t... I>
std::vector<ViewReadings (*)(const SmartArray&)> view_readers(std::index_sequence<I...>) {
  return {&read_view<I + 1>...};
}

TEST(BitsView, AgreesWithGetAndUnpackForEveryWidth) {
  const auto readers = view_readers(std::make_index_sequence<64>{});
  for (unsigned B = 1; B <= 64; ++B) {
    SCOPED_TRACE(B);
    const std::vector<std::uint64_t> values = pattern(150, B);
    const SmartArray array = array_of(values, B);
    const ViewReadings r = readers[B - 1](array);
    EXPECT_EQ(r.length, array.length());
    EXPECT_EQ(r.chunks, 3u);
    EXPECT_EQ(r.words, array.replica(0));
    EXPECT_EQ(r.words_of_replica_0, array.replica(0));
    std::vector<std::uint64_t> gets(values.size());
    for (std::uint64_t i = 0; i < values.size(); ++i) gets[i] = array.get(i);
    EXPECT_EQ(r.get, gets);
    EXPECT_EQ(r.index, values);
    EXPECT_EQ(r.at, values);
    std::vector<std::uint64_t> theirs(r.unpacked.size());
    for (std::uint64_t c = 0; c < r.chunks; ++c) array.unpack(c, theirs.data() + c * 64);
    EXPECT_EQ(r.unpacked, theirs);
  }
}

TEST(BitsView, VisitDispatchesOnceToTheArraysWidth) {
  const std::vector<std::uint64_t> values = pattern(500, 23);
  const SmartArray array = array_of(values, 23);
  const std::uint64_t sum = array.visit([](auto view) {
    static_assert(decltype(view)::bits >= 1 && decltype(view)::bits <= 64);
    std::uint64_t s = 0;
    for (std::uint64_t i = 0; i < view.length(); ++i) s += view.get(i);
    return s;
  });
  EXPECT_EQ(sum, array.sum());
  unsigned seen_bits = 0;
  array.visit([&](auto view) { seen_bits = decltype(view)::bits; });
  EXPECT_EQ(seen_bits, 23u);
}

}  // namespace
}  // namespace smartarrays
