// Tests the kernel node mask handed to mbind: bit layout and the maxnode argument.
#include <gtest/gtest.h>

#include <sys/mman.h>

#include <cerrno>
#include <cstring>

#include "os/syscalls.hpp"
#include "smartarrays/os/topology.hpp"

namespace smartarrays::os::sys {
namespace {

TEST(NodeMask, SetsBitsAcrossWords) {
  NodeMask mask;
  mask.add(0);
  mask.add(3);
  mask.add(3);
  EXPECT_EQ(mask.data()[0], 0b1001UL);
  EXPECT_EQ(mask.max_node(), 65UL) << "one word of bits, plus the bit the kernel drops";
  mask.add(70);
  EXPECT_EQ(mask.data()[0], 0b1001UL);
  EXPECT_EQ(mask.data()[1], 1UL << 6);
  EXPECT_EQ(mask.max_node(), 129UL);
}

TEST(NodeMask, KernelBindsToTheMaskedNode) {
  const Topology t = Topology::from_system();
  const int os_node = t.node(static_cast<std::size_t>(t.memory_nodes().front())).os_node;
  const long page = ::sysconf(_SC_PAGESIZE);
  void* memory = ::mmap(nullptr, static_cast<std::size_t>(page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(memory, MAP_FAILED);
  NodeMask mask;
  mask.add(os_node);
  EXPECT_EQ(mbind(memory, static_cast<std::size_t>(page), MPOL_BIND, mask, MPOL_MF_STRICT), 0) << std::strerror(errno);
  static_cast<char*>(memory)[0] = 1;
  int node = -1;
  EXPECT_EQ(node_of_address(memory, &node), 0);
  EXPECT_EQ(node, os_node);
  ::munmap(memory, static_cast<std::size_t>(page));
}

}  // namespace
}  // namespace smartarrays::os::sys
