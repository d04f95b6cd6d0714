// Owns the workload profile of the adaptive choice (schema smartarrays.workload/1): the arrays a
// workload reads with their sizes, widths and access hints, and — when it was run — what the run
// measured in the profiling configuration (time, bytes, accesses per second, the compute-only
// cost). Built-in workloads (aggregate, degree, pagerank) can also be derived from their definition.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "smartarrays/array/options.hpp"
#include "smartarrays/export.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::adapt {

/// One array of a workload.
struct ArrayUse {
  std::string name;            ///< e.g. "a1", "rbegin", "contributions"
  std::uint64_t length = 0;    ///< values
  unsigned value_bits = 64;    ///< the fewest bits that hold its values (1..64)
  unsigned natural_bits = 64;  ///< its uncompressed width (64, or 32 for vertex ids)
  AccessHints hints;           ///< read_only, pattern, passes (reads per element over the workload), threads
  bool fixed = false;          ///< placement and bits are not the model's to choose (an output array)
  /// Accesses over the workload: passes * length.
  double accesses() const noexcept { return hints.passes * static_cast<double>(length); }
};

/// What a profiling run measured (the paper's runtime characteristics, without counters).
struct WorkloadMeasurement {
  std::string placement = "interleaved";  ///< configuration it ran in (the paper's: interleaved, uncompressed)
  double seconds = 0;                     ///< wall time of the workload
  double bytes_read = 0;                  ///< bytes of arrays read (from widths and elements touched)
  double accesses_per_s = 0;              ///< array accesses per second
  double compute_seconds = 0;             ///< the same loop body over a cache-resident slice, scaled to the whole
  /// The same with every array the model chooses at its fewest bits (0: not measured, or nothing to compress).
  double compressed_compute_seconds = 0;
  /// Wall time of the workload with every array the model chooses at its fewest bits (0: not measured).
  double compressed_seconds = 0;
};

/// A workload as the model sees it.
struct WorkloadProfile {
  std::string workload = "array";  ///< "aggregate", "degree", "pagerank" or "array"
  unsigned threads = 0;            ///< worker threads (0 = every CPU of the machine profile)
  /// Where the workers run: sparse (round-robin over nodes) or dense (one node's CPUs first).
  runtime::PinPolicy pinning = runtime::PinPolicy::sparse;
  std::vector<ArrayUse> arrays;    ///< the arrays it reads (and writes)
  std::uint64_t edges = 0;         ///< graph workloads: the graph's edges (0 otherwise)
  std::optional<WorkloadMeasurement> measured;  ///< present when the profile was measured by running
};

/// The aggregation sum += a1[i] + a2[i] over two arrays of length values of value_bits, passes times.
SMARTARRAYS_API WorkloadProfile aggregate_workload(std::uint64_t length, unsigned value_bits, unsigned threads,
                                                   double passes = 1);
/// Degree centrality over a graph of vertices and edges (begin, rbegin: n + 1 offsets; the degrees written).
SMARTARRAYS_API WorkloadProfile degree_workload(std::uint64_t vertices, std::uint64_t edges, unsigned threads,
                                                double passes = 1);
/// PageRank over a graph of vertices and edges for iterations: rbegin, redge and begin (whose
/// differences are the out-degrees) read,
/// contributions read at random once per edge and rewritten, ranks written.
SMARTARRAYS_API WorkloadProfile pagerank_workload(std::uint64_t vertices, std::uint64_t edges, unsigned threads,
                                                  unsigned iterations = 15);
/// One array of length values whose largest needs value_bits, read as hints say.
SMARTARRAYS_API WorkloadProfile array_workload(std::uint64_t length, unsigned value_bits, const AccessHints& hints);

/// The profile as smartarrays.workload/1 JSON text.
SMARTARRAYS_API std::string to_json(const WorkloadProfile& profile, int indent = 2);
/// Reads a workload profile; throws Error(invalid_argument) "<source>: <field>: <why>" for the first bad field.
SMARTARRAYS_API WorkloadProfile parse_workload_profile(std::string_view text, std::string_view source);
/// Checks a profile built in code; throws as parse_workload_profile.
SMARTARRAYS_API void validate(const WorkloadProfile& profile);
/// Reads the file at path; Error(os_error) naming path when it cannot.
SMARTARRAYS_API WorkloadProfile read_workload_profile(const std::string& path);
/// Writes to_json(profile) to path; Error(os_error) naming path on failure.
SMARTARRAYS_API void write_workload_profile(const WorkloadProfile& profile, const std::string& path);

/// The fewest bits that hold value (1 for 0).
SMARTARRAYS_API unsigned bits_for(std::uint64_t value) noexcept;

}  // namespace smartarrays::adapt
