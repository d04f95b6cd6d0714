// Owns what the process can be given in memory: SMARTARRAYS_MEMORY_LIMIT_MB when set, else the
// smallest of the machine's physical memory, the cgroup's memory limit and the address-space and
// data rlimits, so the library can refuse a size it could never hold before it allocates instead of
// after the kernel kills the process.
#pragma once

#include <cstdint>
#include <string>

#include "smartarrays/export.hpp"

namespace smartarrays::os {

/// The most memory the process can use, and what sets it.
struct MemoryLimit {
  std::uint64_t bytes = 0;  ///< the limit
  std::string source;       ///< "physical memory", "cgroup memory limit", "RLIMIT_AS", "RLIMIT_DATA" or "SMARTARRAYS_MEMORY_LIMIT_MB"
};

/// The process's memory limit, read once (thread-safe); throws Error(invalid_argument) naming a bad
/// SMARTARRAYS_MEMORY_LIMIT_MB.
SMARTARRAYS_API const MemoryLimit& memory_limit();

}  // namespace smartarrays::os
