// Tests SmartArray::mutable_replica: bulk writes into each replica's words are what reads see.
#include <gtest/gtest.h>

#include <vector>

#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/codec/kernels.hpp"
#include "smartarrays/error.hpp"
#include "support/fake_topology.hpp"

namespace sa = smartarrays;

TEST(MutableReplica, EncodedWordsWrittenPerReplicaAreRead) {
  const sa::test::ScopedFakeTopology two_nodes("nodes=2");
  const std::vector<std::uint64_t> values{5, 0, 1023, 17, 999};
  sa::ArrayOptions options;
  options.bits = 10;
  for (sa::Placement placement : {sa::Placement::os_default, sa::Placement::replicated}) {
    options.placement = placement;
    sa::SmartArray array = sa::SmartArray::allocate(values.size(), options);
    for (std::size_t r = 0; r < array.replicas(); ++r) {
      sa::codec::encode(values.data(), values.size(), 10, array.mutable_replica(r));
      EXPECT_EQ(array.mutable_replica(r), array.replica(r));
    }
    for (std::size_t i = 0; i < values.size(); ++i) EXPECT_EQ(array.get(i), values[i]);
    EXPECT_EQ(array.replicas(), placement == sa::Placement::replicated ? 2u : 1u);
    EXPECT_THROW(array.mutable_replica(array.replicas()), sa::Error);
  }
}
