// Tests combining CRC32Cs of pieces into the CRC32C of their concatenation (codec::crc32c_combine).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "codec/crc32c.hpp"

namespace smartarrays::codec {
namespace {

TEST(Crc32cCombine, GivesTheCrcOfTheConcatenation) {
  std::vector<std::uint8_t> bytes(100'003);
  std::uint64_t x = 7;
  for (std::uint8_t& b : bytes) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    b = static_cast<std::uint8_t>(x >> 56);
  }
  const std::uint32_t whole = crc32c(bytes.data(), bytes.size());
  for (std::size_t cut : {std::size_t{0}, std::size_t{1}, std::size_t{4096}, std::size_t{50'001}, bytes.size()}) {
    SCOPED_TRACE(cut);
    const std::uint32_t a = crc32c(bytes.data(), cut);
    const std::uint32_t b = crc32c(bytes.data() + cut, bytes.size() - cut);
    EXPECT_EQ(crc32c_combine(a, b, bytes.size() - cut), whole);
  }
  // Three pieces folded left to right, as the parallel checksum does.
  const std::uint32_t first = crc32c(bytes.data(), 1000);
  const std::uint32_t second = crc32c(bytes.data() + 1000, 30'000);
  const std::uint32_t third = crc32c(bytes.data() + 31'000, bytes.size() - 31'000);
  EXPECT_EQ(crc32c_combine(crc32c_combine(first, second, 30'000), third, bytes.size() - 31'000), whole);
}

}  // namespace
}  // namespace smartarrays::codec
