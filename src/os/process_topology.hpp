// Owns the internal view of the process-wide topology that thread pinning needs beyond the public API.
#pragma once

#include <cstdint>

namespace smartarrays::os {

/// Changes each time set_fake_topology() installs a topology; per-thread caches compare against it.
std::uint64_t topology_generation() noexcept;

}  // namespace smartarrays::os
