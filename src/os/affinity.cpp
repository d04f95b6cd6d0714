// Owns CPU affinity masks through sched_getaffinity/sched_setaffinity, sized dynamically because
// machines may have more CPUs than the fixed cpu_set_t holds.
#include "os/affinity.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

#include "os/cpu_list.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays::os {
namespace {

struct CpuSetDeleter {
  void operator()(cpu_set_t* set) const noexcept { CPU_FREE(set); }
};
using CpuSet = std::unique_ptr<cpu_set_t, CpuSetDeleter>;

CpuSet allocate_cpu_set(int cpus) {
  CpuSet set(CPU_ALLOC(cpus));
  if (!set) throw_error(ErrorCode::out_of_memory, "cannot allocate a CPU set for " + std::to_string(cpus) + " CPUs");
  return set;
}

std::vector<int> affinity_of(pid_t pid) {
  // The kernel refuses (EINVAL) a mask smaller than its CPU count, so grow until it fits.
  for (int capacity = 1024;; capacity *= 2) {
    CpuSet set = allocate_cpu_set(capacity);
    const std::size_t bytes = CPU_ALLOC_SIZE(capacity);
    CPU_ZERO_S(bytes, set.get());
    if (::sched_getaffinity(pid, bytes, set.get()) == 0) {
      std::vector<int> cpus;
      for (int cpu = 0; cpu < capacity; ++cpu) {
        if (CPU_ISSET_S(cpu, bytes, set.get())) cpus.push_back(cpu);
      }
      return cpus;
    }
    if (errno != EINVAL || capacity >= (1 << 22)) {
      throw_error(ErrorCode::os_error, std::string("sched_getaffinity failed: ") + std::strerror(errno));
    }
  }
}

}  // namespace

std::vector<int> process_affinity() { return affinity_of(::getpid()); }

std::vector<int> thread_affinity() { return affinity_of(0); }

void set_thread_affinity(const std::vector<int>& cpus) {
  if (cpus.empty()) throw_error(ErrorCode::invalid_argument, "cannot pin a thread to an empty CPU set");
  const int capacity = *std::max_element(cpus.begin(), cpus.end()) + 1;
  CpuSet set = allocate_cpu_set(capacity);
  const std::size_t bytes = CPU_ALLOC_SIZE(capacity);
  CPU_ZERO_S(bytes, set.get());
  for (int cpu : cpus) CPU_SET_S(cpu, bytes, set.get());
  if (::sched_setaffinity(0, bytes, set.get()) != 0) {
    throw_error(ErrorCode::os_error,
                "sched_setaffinity to cpus " + format_cpu_list(cpus) + " failed: " + std::strerror(errno));
  }
}

}  // namespace smartarrays::os
