// Tests byte-size formatting (util/byte_size.hpp), the spelling of every size in messages.
#include <gtest/gtest.h>

#include <cstdint>

#include "smartarrays/util/byte_size.hpp"

namespace smartarrays::util {
namespace {

TEST(ByteSize, UsesTheLargestWholeUnit) {
  EXPECT_EQ(format_bytes(0), "0 bytes");
  EXPECT_EQ(format_bytes(1), "1 byte");
  EXPECT_EQ(format_bytes(1023), "1023 bytes");
  EXPECT_EQ(format_bytes(4096), "4 KiB");
  EXPECT_EQ(format_bytes(std::uint64_t{3} << 19), "1.5 MiB");
  EXPECT_EQ(format_bytes(std::uint64_t{3} << 39), "1.5 TiB");
  EXPECT_EQ(format_bytes(std::uint64_t{1} << 50), "1 PiB");
  EXPECT_EQ(format_bytes(~std::uint64_t{0}), "16 EiB");
}

}  // namespace
}  // namespace smartarrays::util
