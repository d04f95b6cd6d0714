// Tests the overflow-checked size helpers (util/checked.hpp): exact results up to 2^64 - 1, and an
// Error(out_of_memory) naming what was being sized one step past it.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "smartarrays/error.hpp"
#include "smartarrays/util/checked.hpp"

namespace smartarrays::util {
namespace {

constexpr std::uint64_t max = ~std::uint64_t{0};

// The message of the Error f throws, expecting code out_of_memory.
template <typename F>
std::string overflow_message(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::out_of_memory);
    return e.what();
  }
  ADD_FAILURE() << "expected an overflow error";
  return "";
}

TEST(Checked, AddsAndMultipliesExactlyUpToTheLargestCount) {
  EXPECT_EQ(checked_add(max - 1, 1, "x"), max);
  EXPECT_EQ(checked_add(0, 0, "x"), 0u);
  EXPECT_EQ(checked_mul(max, 1, "x"), max);
  EXPECT_EQ(checked_mul(std::uint64_t{1} << 32, (std::uint64_t{1} << 32) - 1, "x"), max - ((std::uint64_t{1} << 32) - 1));
  EXPECT_EQ(checked_mul(0, max, "x"), 0u);
}

TEST(Checked, OverflowNamesWhatWasSizedAndTheOperands) {
  EXPECT_EQ(overflow_message([] { checked_add(max, 1, "the offsets of a graph"); }),
            "the offsets of a graph: 18446744073709551615 + 1 does not fit in 64 bits");
  EXPECT_EQ(overflow_message([] { checked_mul(std::uint64_t{1} << 62, 8, "bytes"); }),
            "bytes: 4611686018427387904 * 8 does not fit in 64 bits");
}

}  // namespace
}  // namespace smartarrays::util
