// Owns CPU affinity masks: reading the process's allowed CPUs and restricting the calling thread.
#pragma once

#include <vector>

namespace smartarrays::os {

/// CPUs the process may run on (the main thread's affinity mask, as taskset/cgroups leave it), ascending.
std::vector<int> process_affinity();

/// CPUs the calling thread may run on now, ascending.
std::vector<int> thread_affinity();

/// Restricts the calling thread to cpus (non-empty); throws Error(os_error) when the kernel refuses.
void set_thread_affinity(const std::vector<int>& cpus);

}  // namespace smartarrays::os
