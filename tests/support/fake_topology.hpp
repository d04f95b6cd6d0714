// Owns the tests' scoped fake topology: installs a spec for one test and restores the real topology after.
#pragma once

#include <string_view>

#include "smartarrays/os/topology.hpp"

namespace smartarrays::test {

/// Activates a fake topology (e.g. "nodes=4") for its lifetime; create it while no other test thread runs.
class ScopedFakeTopology {
 public:
  /// Installs spec as the process-wide topology.
  explicit ScopedFakeTopology(std::string_view spec) { os::set_fake_topology(spec); }
  /// Restores the machine's real topology.
  ~ScopedFakeTopology() { os::set_fake_topology(""); }
  ScopedFakeTopology(const ScopedFakeTopology&) = delete;
  ScopedFakeTopology& operator=(const ScopedFakeTopology&) = delete;
};

}  // namespace smartarrays::test
