// Owns running the built-in workloads in the profiling configuration for their measured profile.
#include "measure/workload_profile.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iomanip>
#include <memory>
#include <optional>
#include <sstream>

#include "smartarrays/adapt/calibrate.hpp"
#include "smartarrays/algo/aggregate.hpp"
#include "smartarrays/algo/degree_centrality.hpp"
#include "smartarrays/algo/pagerank.hpp"
#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/graph/source.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::measure {

namespace {

// The profiling configuration of an array: interleaved, without huge pages (the model adds what huge
// pages change from the calibrated latency ratio; measured with them, it would count them twice).
ArrayOptions interleaved(unsigned bits) {
  ArrayOptions o;
  o.placement = Placement::interleaved;
  o.bits = bits;
  o.huge_pages = HugePages::off;
  return o;
}

// Reads a buffer twice the last-level cache before each timed run of a full-size workload, so every
// run starts cold, as a workload run once does (and as runs taken in turn with others do). Reads, not
// writes: dirty lines left in the cache would be written back during the timed run.
class Evictor {
 public:
  explicit Evictor(std::uint64_t llc_bytes) : lines_(2 * llc_bytes / sizeof(std::uint64_t), 1) {}
  void evict() {
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < lines_.size(); i += 8) sum += lines_[i];
    sink_ = sum;
  }

 private:
  std::vector<std::uint64_t> lines_;
  volatile std::uint64_t sink_ = 0;
};

// The seconds of trials of kernel: with an evictor (each run cold, after evictor->evict()) their
// median; without (a cache-resident slice, whose runs take microseconds) their fastest, since what
// disturbs so short a run (a late worker wake-up on a busy machine) only adds, and scaled to the
// whole workload it would be multiplied.
template <typename Kernel>
double typical_seconds(const Trials& trials, Evictor* evictor, Kernel&& kernel) {
  std::vector<double> seconds;
  for (int run = 0; run < trials.warmup + trials.repetitions; ++run) {
    if (evictor != nullptr) evictor->evict();
    const double s = time_once(kernel);
    if (run >= trials.warmup) seconds.push_back(s);
  }
  const Timing t = summarize(std::move(seconds));
  return evictor != nullptr ? t.median : t.min;
}

// The width an array runs at: its fewest bits when compressed and the model chooses it, else its natural width.
unsigned width_of(const adapt::ArrayUse& a, bool compressed) {
  return compressed && !a.fixed ? a.value_bits : a.natural_bits;
}

// The graph layout of the profile's graph arrays, interleaved, each at width_of.
graph::GraphLayout layout_of(const adapt::WorkloadProfile& w, bool compressed) {
  graph::GraphLayout layout = graph::GraphLayout::for_variant(graph::Variant::U, interleaved(0));
  for (const adapt::ArrayUse& a : w.arrays) {
    for (std::size_t k = 0; k < graph::graph_array_count; ++k) {
      const auto array = static_cast<graph::GraphArray>(k);
      if (a.name == graph::to_string(array)) layout[array].bits = width_of(a, compressed);
    }
  }
  return layout;
}

// The graph of a graph workload at this size (a uniform random graph of its vertices and edges),
// generated once and built in each layout measured; none for aggregation.
std::optional<graph::GraphSource> graph_of(const adapt::WorkloadProfile& w, double scale, runtime::ThreadPool& pool) {
  if (w.workload == "aggregate") return std::nullopt;
  const std::uint64_t all_vertices = std::max<std::uint64_t>(1, w.arrays[0].length - 1);
  graph::UniformOptions u;
  u.vertices = std::max<std::uint64_t>(64, static_cast<std::uint64_t>(static_cast<double>(all_vertices) * scale));
  u.average_degree = static_cast<double>(w.edges) / static_cast<double>(all_vertices);
  return graph::GraphSource::uniform(u, false, pool);
}

// Seconds of one run of the workload at this size (source: its graph, from graph_of) in the profiling
// placement (interleaved), every array at its natural width, or (compressed) every array the model
// chooses at its fewest bits; each run cold when evictor is set.
double run_once(const adapt::WorkloadProfile& w, double scale, const std::optional<graph::GraphSource>& source,
                bool compressed, const Trials& trials, Evictor* evictor, runtime::ThreadPool& pool) {
  if (w.workload == "aggregate") {
    const std::uint64_t length = std::max<std::uint64_t>(64, static_cast<std::uint64_t>(w.arrays[0].length * scale));
    const unsigned width = w.arrays[0].value_bits;
    std::vector<SmartArray> arrays;
    for (std::uint64_t seed : {1, 2}) {
      arrays.push_back(build::build_array(
          length, interleaved(width_of(w.arrays[seed - 1], compressed)),
          [width, seed](std::uint64_t lo, std::uint64_t hi, std::uint64_t* out) {
            for (std::uint64_t i = lo; i < hi; ++i) out[i - lo] = algo::aggregation_value(i, width, seed);
          },
          pool));
    }
    const double passes = w.arrays[0].hints.passes;
    return passes * typical_seconds(trials, evictor, [&] { algo::aggregate(arrays[0], arrays[1], pool); });
  }
  graph::BuildOptions options;
  options.layout = layout_of(w, compressed);
  const graph::CsrGraph g = source->build(options, pool);
  if (w.workload == "degree") {
    SmartArray out = SmartArray::allocate(g.vertices(), interleaved(adapt::bits_for(2 * g.edges())));
    return w.arrays[0].hints.passes *
           typical_seconds(trials, evictor, [&] { algo::degree_centrality(g.begin(), g.rbegin(), out, pool); });
  }
  algo::PageRankOptions pr;
  pr.tolerance = 0;
  pr.max_iterations = static_cast<unsigned>(w.arrays[0].hints.passes);
  pr.contributions = interleaved(0);
  return typical_seconds(trials, evictor, [&] { algo::pagerank(g.rbegin(), g.redge(), g.begin(), pr, pool); });
}

}  // namespace

adapt::WorkloadProfile measure_workload(adapt::WorkloadProfile profile, const Trials& trials) {
  if (profile.workload != "aggregate" && profile.workload != "degree" && profile.workload != "pagerank") {
    throw_error(ErrorCode::invalid_argument, "only the aggregate, degree and pagerank workloads can be measured");
  }
  if (profile.workload == "pagerank") {
    // Its passes are the iterations the measurement runs, as many as `advise --iterations` takes.
    const double iterations = profile.arrays.at(0).hints.passes;
    if (!(iterations >= 1 && iterations <= max_measured_iterations) || iterations != std::floor(iterations)) {
      std::ostringstream why;
      why << std::setprecision(17) << "workload: arrays[0].passes: a pagerank workload runs its passes as iterations when "
          << "measured: expected a whole number from 1 to " << max_measured_iterations << ", got " << iterations;
      throw_error(ErrorCode::invalid_argument, why.str());
    }
  }
  runtime::ThreadPool pool(runtime::PoolOptions{profile.threads});
  adapt::WorkloadMeasurement m;
  m.placement = "interleaved";
  Evictor evictor(adapt::estimated_profile().llc_bytes);
  const std::optional<graph::GraphSource> whole = graph_of(profile, 1.0, pool);
  m.seconds = run_once(profile, 1.0, whole, false, trials, &evictor, pool);
  // The compute-only cost: the same loops over an instance small enough to stay in the caches
  // (about 4 MiB of arrays), the fastest of many runs on one thread, scaled to the whole and shared
  // by the workload's threads. One thread: split among several, so short a loop measures waking them.
  runtime::ThreadPool one(runtime::PoolOptions{1});
  const double workers = static_cast<double>(pool.size());
  double bytes = 0, accesses = 0, footprint = 0;
  for (const adapt::ArrayUse& a : profile.arrays) {
    bytes += a.accesses() * a.natural_bits / 8.0;
    accesses += a.accesses();
    footprint += static_cast<double>(a.length) * a.natural_bits / 8.0;
  }
  const double scale = std::min(1.0, (4 << 20) / std::max(footprint, 1.0));
  const std::optional<graph::GraphSource> slice = graph_of(profile, scale, pool);
  const Trials slice_trials{2, std::max(15, trials.repetitions)};
  m.compute_seconds = run_once(profile, scale, slice, false, slice_trials, nullptr, one) / scale / workers;
  // The same at the fewest bits, when any array the model chooses has fewer bits than its natural
  // width: what decoding costs in this loop body, which the calibrated fused decode+sum rate does not say.
  const bool compressible = std::any_of(profile.arrays.begin(), profile.arrays.end(), [](const adapt::ArrayUse& a) {
    return !a.fixed && a.value_bits < a.natural_bits;
  });
  if (compressible) {
    m.compressed_compute_seconds = run_once(profile, scale, slice, true, slice_trials, nullptr, one) / scale / workers;
    // And the whole workload at the fewest bits, cold: with the first run, how this loop's compute
    // and memory overlap, which the machine's calibrated overlap (a fused decode+sum) does not say.
    m.compressed_seconds = run_once(profile, 1.0, whole, true, trials, &evictor, pool);
  }
  m.bytes_read = bytes;
  m.accesses_per_s = m.seconds > 0 ? accesses / m.seconds : 0;
  profile.measured = m;
  return profile;
}

}  // namespace smartarrays::measure
