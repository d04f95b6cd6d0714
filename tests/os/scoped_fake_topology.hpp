// Owns the test helper that installs a fake process-wide topology and restores the real one.
#pragma once

#include <string_view>

#include "smartarrays/os/topology.hpp"

namespace smartarrays::os::testing {

/// Installs spec with set_fake_topology() for one scope, then restores the machine's topology.
class ScopedFakeTopology {
 public:
  /// Installs the fake topology described by spec.
  explicit ScopedFakeTopology(std::string_view spec) { set_fake_topology(spec); }
  ScopedFakeTopology(const ScopedFakeTopology&) = delete;
  ScopedFakeTopology& operator=(const ScopedFakeTopology&) = delete;
  ~ScopedFakeTopology() { set_fake_topology(""); }
};

}  // namespace smartarrays::os::testing
