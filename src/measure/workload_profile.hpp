// Owns measuring a built-in workload's profile by running it (the paper's runtime characteristics,
// without counters): the workload runs in the profiling configuration (every array interleaved at its
// natural width), each run cold, then on a cache-resident instance for its compute-only cost, at
// natural widths and at the fewest bits; the result fills adapt::WorkloadProfile::measured.
#pragma once

#include "measure/timing.hpp"
#include "smartarrays/adapt/workload.hpp"

namespace smartarrays::measure {

/// The most PageRank iterations a pagerank profile's passes may ask a measurement to run (as
/// `advise --iterations` takes).
inline constexpr unsigned max_measured_iterations = 1000000;

/// profile (from adapt::aggregate_workload, degree_workload or pagerank_workload) with `measured`
/// filled by running it on this machine with profile.threads workers (0 = the default count).
/// Graphs are uniform random graphs of the profile's vertices and edges. Throws Error for a
/// workload it cannot run ("array"), or a pagerank one whose passes are not 1..max_measured_iterations.
adapt::WorkloadProfile measure_workload(adapt::WorkloadProfile profile, const Trials& trials = {1, 3});

}  // namespace smartarrays::measure
