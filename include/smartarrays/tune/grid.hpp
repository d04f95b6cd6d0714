// Owns the grid `smartarrays tune` searches: every combination of the knobs asked for, the default
// configuration it is compared with, the study's order of promise (numa-analytics-strategies §4.6:
// the allocator first, then interleaving, THP off, sparse pinning) used when a time budget cuts the
// grid, the randomised run order, and the system's AutoNUMA switch, restored whatever happens.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "smartarrays/export.hpp"
#include "smartarrays/tune/launch.hpp"

namespace smartarrays::tune {

/// One point of the grid: the launch knobs and, when asked, the system's AutoNUMA setting.
struct GridPoint {
  LaunchOptions options;            ///< what `smartarrays run` applies
  std::optional<bool> autonuma;     ///< kernel.numa_balancing during its runs; unset = unchanged
  /// A short label ("tbbmalloc interleave sparse thp=off").
  std::string label() const;
};

/// The values of each knob the grid combines; an empty list means the knob is left as it is.
struct GridSpec {
  std::vector<Allocator> allocators;
  std::vector<MemoryPolicy> policies;
  std::vector<runtime::PinPolicy> pinnings;
  std::vector<bool> thp;
  std::vector<std::size_t> threads;
  std::vector<bool> autonuma;
};

/// The grid `smartarrays tune` searches when no knob is given: every allocator x first-touch,
/// interleave, localalloc x sparse, dense x THP on, off.
SMARTARRAYS_API GridSpec full_grid_spec();

/// The grid of spec: the default point first (glibc, policy, CPUs, THP and AutoNUMA as inherited),
/// then every combination that differs from it, in knob order.
SMARTARRAYS_API std::vector<GridPoint> make_grid(const GridSpec& spec);

/// How promising a point is by the study's findings (higher first): allocator change, interleave,
/// THP off, sparse pinning, AutoNUMA off.
SMARTARRAYS_API int promise(const GridPoint& point) noexcept;

/// The first `keep` points by promise (stable), always with the default point (index 0) kept.
SMARTARRAYS_API std::vector<std::size_t> most_promising(const std::vector<GridPoint>& grid, std::size_t keep);

/// `rounds` rounds, each every index of points once in an order shuffled with seed.
SMARTARRAYS_API std::vector<std::size_t> run_order(const std::vector<std::size_t>& points, int rounds, std::uint64_t seed);

/// The system's automatic NUMA balancing (/proc/sys/kernel/numa_balancing), read at construction;
/// set() changes it and the destructor puts the first value back.
class SMARTARRAYS_API AutoNumaSwitch {
 public:
  /// Reads the current value from path; throws Error(unsupported) when it cannot be read.
  explicit AutoNumaSwitch(std::string path = "/proc/sys/kernel/numa_balancing");
  ~AutoNumaSwitch();
  AutoNumaSwitch(const AutoNumaSwitch&) = delete;
  AutoNumaSwitch& operator=(const AutoNumaSwitch&) = delete;
  /// Writes 1 or 0; throws Error(os_error) naming the file when the kernel refuses.
  void set(bool on);
  /// The value found at construction ("0", "1", ...).
  const std::string& original() const noexcept { return original_; }

 private:
  std::string path_;
  std::string original_;
  bool changed_ = false;
};

}  // namespace smartarrays::tune
