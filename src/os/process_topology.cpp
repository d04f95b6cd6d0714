// Owns the process-wide topology: chosen once (SMARTARRAYS_TOPOLOGY or the machine), replaceable by
// set_fake_topology(), and never freed so every reference handed out stays valid.
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "os/process_topology.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/os/topology.hpp"
#include "smartarrays/util/settings.hpp"

namespace smartarrays::os {
namespace {

struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<const Topology>> kept;  // only grows: old references never dangle
  const Topology* real = nullptr;
  std::atomic<const Topology*> current{nullptr};
  std::atomic<std::uint64_t> generation{0};
};

// Heap-allocated and never destroyed, so threads still running during static destruction can use it.
Registry& registry() {
  static Registry* const instance = new Registry;
  return *instance;
}

const Topology* keep(Registry& r, Topology topology) {
  r.kept.push_back(std::make_unique<const Topology>(std::move(topology)));
  return r.kept.back().get();
}

const Topology& real_topology_locked(Registry& r) {
  if (r.real == nullptr) r.real = keep(r, Topology::from_system());
  return *r.real;
}

}  // namespace

const Topology& topology() {
  Registry& r = registry();
  if (const Topology* current = r.current.load(std::memory_order_acquire)) return *current;
  std::lock_guard lock(r.mutex);
  if (const Topology* current = r.current.load(std::memory_order_relaxed)) return *current;
  const Topology& real = real_topology_locked(r);
  const Topology* chosen = &real;
  const std::string_view spec = util::setting_text("SMARTARRAYS_TOPOLOGY");
  if (!spec.empty()) {
    try {
      chosen = keep(r, Topology::from_spec(spec, real));
    } catch (const Error& e) {
      util::bad_setting("SMARTARRAYS_TOPOLOGY", spec, e.what(), e.code());
    }
  }
  r.current.store(chosen, std::memory_order_release);
  return *chosen;
}

void set_fake_topology(std::string_view spec) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  const Topology& real = real_topology_locked(r);
  const Topology* chosen = spec.empty() ? &real : keep(r, Topology::from_spec(spec, real));
  r.current.store(chosen, std::memory_order_release);
  r.generation.fetch_add(1, std::memory_order_acq_rel);
}

std::uint64_t topology_generation() noexcept { return registry().generation.load(std::memory_order_acquire); }

}  // namespace smartarrays::os
