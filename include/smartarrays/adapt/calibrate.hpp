// Owns calibration: measuring this machine for the model (read bandwidth matrices with all workers
// and one thread, dependent-load latency, independent-load parallelism, replica copy rate, per-width
// decode and random-get costs, huge-page latency), and the per-machine cache of the result under
// the user's cache directory.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "smartarrays/adapt/machine_profile.hpp"
#include "smartarrays/export.hpp"

namespace smartarrays::adapt {

/// How long and how precisely to calibrate.
struct CalibrationOptions {
  bool quick = false;  ///< smaller buffers and shorter runs (about 5 s on a 2-CPU machine), for CI and first use
  /// Called from the calling thread before each measurement with what is measured and the fraction done.
  std::function<void(const std::string& what, double fraction)> progress;
};

/// Measures this machine (its current topology, fake ones included) and returns its profile.
SMARTARRAYS_API MachineProfile calibrate(const CalibrationOptions& options = {});

/// A key naming this machine: CPU model, codec kernel set, per-node CPU counts and whether each has
/// memory, topology spec.
SMARTARRAYS_API std::string machine_key();

/// The cache directory: $XDG_CACHE_HOME/smartarrays, else $HOME/.cache/smartarrays.
/// Throws Error(unsupported) when neither variable is set.
SMARTARRAYS_API std::string cache_directory();

/// Where this machine's calibrated profile is cached: cache_directory()/machine-<machine_key()>.json.
SMARTARRAYS_API std::string cached_profile_path();

/// This machine's cached profile, if one was written; a cached file that does not validate throws
/// Error(invalid_argument) naming it and the field.
SMARTARRAYS_API std::optional<MachineProfile> load_cached_profile();

/// A profile of this machine estimated from its topology alone (no measurement; calibration
/// "estimated"): used by auto options until `smartarrays calibrate` has cached a measured one.
SMARTARRAYS_API MachineProfile estimated_profile();

/// The profile auto options decide with: the one set by set_machine_profile, else the cached
/// calibration of this machine (its free memory refreshed from the topology), else estimated_profile().
SMARTARRAYS_API MachineProfile current_machine_profile();

/// Makes profile the one current_machine_profile returns (std::nullopt: back to the cache or estimate).
SMARTARRAYS_API void set_machine_profile(std::optional<MachineProfile> profile);

}  // namespace smartarrays::adapt
