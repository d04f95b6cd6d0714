// Owns the tests of SmartArray's bad-input handling: each mistake becomes an Error with the right
// code and a message naming the offending value, never a truncation, a crash or a leak.
#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/error.hpp"
#include "support/array_values.hpp"

namespace smartarrays {
namespace {

using test::with_bits;

template <typename F>
void expect_error(F&& f, ErrorCode code, const std::string& message_part) {
  try {
    f();
    ADD_FAILURE() << "no error thrown; expected one saying: " << message_part;
  } catch (const Error& e) {
    EXPECT_EQ(static_cast<int>(e.code()), static_cast<int>(code)) << e.what();
    EXPECT_NE(std::string(e.what()).find(message_part), std::string::npos)
        << "message '" << e.what() << "' lacks '" << message_part << "'";
  }
}

TEST(ArrayErrors, ValueTooWideForTheBitsIsRejectedNamingValueIndexAndBits) {
  const std::vector<std::uint64_t> values = {1, 2, 3, 70000};
  expect_error([&] { SmartArray::from_values(values, with_bits(16)); }, ErrorCode::invalid_argument,
               "value 70000 at index 3 needs 17 bits, array has 16");
  const std::vector<std::uint32_t> narrow = {1, 256};
  expect_error([&] { SmartArray::from_values(std::span<const std::uint32_t>(narrow), with_bits(8)); },
               ErrorCode::invalid_argument, "value 256 at index 1 needs 9 bits, array has 8");

  SmartArray array = SmartArray::allocate(10, with_bits(16));
  expect_error([&] { array.init(2, 65536); }, ErrorCode::invalid_argument,
               "value 65536 at index 2 needs 17 bits, array has 16");
  expect_error([&] { array.init(0, ~std::uint64_t{0}); }, ErrorCode::invalid_argument, "needs 64 bits, array has 16");
  SmartArray one_bit = SmartArray::allocate(3, with_bits(1));
  expect_error([&] { one_bit.init(0, 2); }, ErrorCode::invalid_argument, "value 2 at index 0 needs 2 bits, array has 1");
  EXPECT_EQ(array.sum(), 0u) << "a rejected write changes nothing";
}

TEST(ArrayErrors, BitWidthMustBeOneToSixtyFour) {
  expect_error([] { SmartArray::allocate(10, with_bits(0)); }, ErrorCode::invalid_argument, "bits 0");
  expect_error([] { SmartArray::allocate(10, with_bits(65)); }, ErrorCode::invalid_argument,
               "bits 65 out of range 1..64");
  const std::vector<std::uint64_t> values = {1};
  expect_error([&] { SmartArray::from_values(values, with_bits(65)); }, ErrorCode::invalid_argument, "bits 65");
  expect_error([] { SmartArray::memory_estimate(10, with_bits(0)); }, ErrorCode::invalid_argument, "bits 0");
}

TEST(ArrayErrors, OptionsForValuesResolvesBitsOrNamesTheFirstValueTooWide) {
  const std::vector<std::uint64_t> values = {5, 300, 2, 70000, 90000};
  EXPECT_EQ(SmartArray::options_for_values(values, 90000, with_bits(0)).bits, 17u);
  EXPECT_EQ(SmartArray::options_for_values(values, 90000, with_bits(20)).bits, 20u);
  EXPECT_EQ(SmartArray::options_for_values(std::vector<std::uint64_t>{}, 0, with_bits(0)).bits, 1u);
  expect_error([&] { SmartArray::options_for_values(values, 90000, with_bits(16)); }, ErrorCode::invalid_argument,
               "value 70000 at index 3 needs 17 bits, array has 16");
  const std::vector<std::uint32_t> narrow = {1, 256, 512};
  expect_error([&] { SmartArray::options_for_values(std::span<const std::uint32_t>(narrow), 512, with_bits(8)); },
               ErrorCode::invalid_argument, "value 256 at index 1 needs 9 bits, array has 8");
  expect_error([&] { SmartArray::options_for_values(values, 90000, with_bits(65)); }, ErrorCode::invalid_argument,
               "bits 65 out of range 1..64");
}

TEST(ArrayErrors, NodesMustExistHaveMemoryAndBeListedOnce) {
  ArrayOptions single = with_bits(8);
  single.placement = Placement::single_node;
  single.node = 4096;
  expect_error([&] { SmartArray::allocate(10, single); }, ErrorCode::invalid_argument, "node 4096");
  single.node = -1;
  expect_error([&] { SmartArray::allocate(10, single); }, ErrorCode::invalid_argument, "node -1");

  ArrayOptions replicated = with_bits(8);
  replicated.placement = Placement::replicated;
  replicated.nodes = {0, 4096};
  expect_error([&] { SmartArray::allocate(10, replicated); }, ErrorCode::invalid_argument, "node 4096");
  replicated.nodes = {0, 0};
  expect_error([&] { SmartArray::allocate(10, replicated); }, ErrorCode::invalid_argument,
               "node 0 listed twice in options.nodes");

  ArrayOptions misplaced = with_bits(8);
  misplaced.nodes = {0};
  expect_error([&] { SmartArray::allocate(10, misplaced); }, ErrorCode::invalid_argument,
               "options.nodes applies only to interleaved, replicated and partitioned placements, not os_default");
  misplaced.placement = Placement::single_node;
  expect_error([&] { SmartArray::allocate(10, misplaced); }, ErrorCode::invalid_argument, "not single_node");

  ArrayOptions bogus = with_bits(8);
  bogus.placement = static_cast<Placement>(9);
  expect_error([&] { SmartArray::allocate(10, bogus); }, ErrorCode::invalid_argument, "placement 9 is not a placement");
}

TEST(ArrayErrors, LengthsTooLargeForMemoryAreOutOfMemory) {
  // A size that cannot even be represented is refused before any system call.
  expect_error([] { SmartArray::allocate(~std::uint64_t{0}, with_bits(17)); }, ErrorCode::out_of_memory,
               "length 18446744073709551615 at 17 bits needs more than 2^61 bytes per replica");
  expect_error([] { SmartArray::allocate(std::uint64_t{1} << 58, with_bits(64)); }, ErrorCode::out_of_memory,
               "needs more than 2^61 bytes");
  expect_error([] { SmartArray::memory_estimate(~std::uint64_t{0}, with_bits(1)); }, ErrorCode::out_of_memory,
               "needs more than 2^61 bytes");
  // A representable size beyond the address space is refused by the kernel (2^60 bytes).
  expect_error([] { SmartArray::allocate(std::uint64_t{1} << 57, with_bits(64)); }, ErrorCode::out_of_memory, "");
}

TEST(ArrayErrors, IndicesRangesChunksAndReplicasAreChecked) {
  const std::vector<std::uint64_t> values(10, 7);
  const SmartArray array = SmartArray::from_values(values, with_bits(3));
  expect_error([&] { array.get(10); }, ErrorCode::out_of_range, "index 10 out of range for length 10");
  expect_error([&] { array.get(~std::uint64_t{0}); }, ErrorCode::out_of_range, "index 18446744073709551615");

  std::vector<std::uint64_t> out(16);
  expect_error([&] { array.decode(5, 6, out.data()); }, ErrorCode::out_of_range,
               "range of 6 values at index 5 out of range for length 10");
  expect_error([&] { array.decode(2, ~std::uint64_t{0}, out.data()); }, ErrorCode::out_of_range, "at index 2");
  expect_error([&] { array.decode(11, 0, out.data()); }, ErrorCode::out_of_range, "at index 11");
  expect_error([&] { array.sum(9, 2); }, ErrorCode::out_of_range, "range of 2 values at index 9");
  EXPECT_EQ(array.sum(10, 0), 0u) << "an empty range at the end is fine";

  expect_error([&] { array.unpack(1, out.data()); }, ErrorCode::out_of_range,
               "chunk 1 out of range: length 10 has 1 chunks");
  expect_error([&] { array.replica(1); }, ErrorCode::out_of_range, "replica 1 out of range for 1 replicas");
  expect_error([&] { array.replica_node(1); }, ErrorCode::out_of_range, "replica 1");

  expect_error([&] { array.iterate(11); }, ErrorCode::out_of_range, "iterator index 11 out of range for length 10");
  auto it = array.iterate(10);
  EXPECT_TRUE(it.at_end());
  expect_error([&] { it.reset(12); }, ErrorCode::out_of_range, "iterator index 12");

  expect_error([&] { array.view<4>(); }, ErrorCode::invalid_argument, "view<4> of an array with 3 bits");
  expect_error([&] { array.view<3>(1); }, ErrorCode::out_of_range, "replica 1");
  expect_error([&] { array.view<3>().at(10); }, ErrorCode::out_of_range, "index 10 out of range for length 10");

  SmartArray writable = SmartArray::allocate(10, with_bits(3));
  expect_error([&] { writable.init(10, 1); }, ErrorCode::out_of_range, "index 10 out of range for length 10");
}

TEST(Placements, NamesRoundTripAndUnknownNamesAreRejected) {
  for (Placement p : {Placement::os_default, Placement::single_node, Placement::interleaved, Placement::replicated,
                      Placement::partitioned}) {
    EXPECT_EQ(parse_placement(to_string(p)), p);
  }
  EXPECT_STREQ(to_string(Placement::replicated), "replicated");
  expect_error([] { parse_placement("bogus"); }, ErrorCode::invalid_argument,
               "unknown placement 'bogus' (expected one of: os_default, single_node, interleaved, replicated, "
               "partitioned)");
  EXPECT_STREQ(to_string(static_cast<Placement>(42)), "invalid");
}

}  // namespace
}  // namespace smartarrays
