// Owns the process-wide default pool: made on first use, remade when the topology was replaced.
#include <memory>
#include <mutex>

#include "smartarrays/os/topology.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::runtime {

ThreadPool& default_pool() {
  static std::mutex mutex;
  static std::unique_ptr<ThreadPool> pool;
  static const os::Topology* built_for = nullptr;
  std::lock_guard lock(mutex);
  // Topology objects are never freed or reused, so a new address means set_fake_topology() ran
  // and the workers' nodes (and the per-node queue count) are stale.
  const os::Topology* now = &os::topology();
  if (!pool || built_for != now) {
    pool.reset();
    pool = std::make_unique<ThreadPool>();
    built_for = now;
  }
  return *pool;
}

}  // namespace smartarrays::runtime
