// Owns the process-wide default pool: made on first use, remade when the topology was replaced or
// the process forked (a forked child has none of the parent's worker threads).
#include <pthread.h>

#include <memory>
#include <mutex>

#include "smartarrays/os/topology.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::runtime {

namespace {

std::mutex mutex;
std::unique_ptr<ThreadPool> pool;
const os::Topology* built_for = nullptr;

// Fork handlers: the mutex is held across fork() so the child never inherits it locked mid-update.
void lock_before_fork() noexcept { mutex.lock(); }
void unlock_in_parent() noexcept { mutex.unlock(); }
void forget_pool_in_child() noexcept {
  // The child has only the forking thread: the pool's workers are gone, so the pool can be neither
  // used nor destroyed (its destructor would join them). It is abandoned; next use makes a new one.
  static_cast<void>(pool.release());
  built_for = nullptr;
  mutex.unlock();
}

}  // namespace

ThreadPool& default_pool() {
  static const int fork_handlers = pthread_atfork(lock_before_fork, unlock_in_parent, forget_pool_in_child);
  static_cast<void>(fork_handlers);
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
