// Owns running the built-in workloads in the profiling configuration for their measured profile.
#include "measure/workload_profile.hpp"

#include <algorithm>
#include <functional>
#include <memory>

#include "smartarrays/algo/aggregate.hpp"
#include "smartarrays/algo/degree_centrality.hpp"
#include "smartarrays/algo/pagerank.hpp"
#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/graph/source.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::measure {

namespace {

ArrayOptions interleaved(unsigned bits) {
  ArrayOptions o;
  o.placement = Placement::interleaved;
  o.bits = bits;
  return o;
}

// Seconds of one run of the workload at this size, in the profiling configuration.
double run_once(const adapt::WorkloadProfile& w, double scale, const Trials& trials, runtime::ThreadPool& pool) {
  if (w.workload == "aggregate") {
    const std::uint64_t length = std::max<std::uint64_t>(64, static_cast<std::uint64_t>(w.arrays[0].length * scale));
    const unsigned width = w.arrays[0].value_bits;
    std::vector<SmartArray> arrays;
    for (std::uint64_t seed : {1, 2}) {
      arrays.push_back(build::build_array(
          length, interleaved(64),
          [width, seed](std::uint64_t lo, std::uint64_t hi, std::uint64_t* out) {
            for (std::uint64_t i = lo; i < hi; ++i) out[i - lo] = algo::aggregation_value(i, width, seed);
          },
          pool));
    }
    const double passes = w.arrays[0].hints.passes;
    return passes * run_trials(trials, [&] { algo::aggregate(arrays[0], arrays[1], pool); }).median;
  }
  const std::uint64_t all_vertices = std::max<std::uint64_t>(1, w.arrays[0].length - 1);
  graph::UniformOptions u;
  u.vertices = std::max<std::uint64_t>(64, static_cast<std::uint64_t>(static_cast<double>(all_vertices) * scale));
  u.average_degree = static_cast<double>(w.edges) / static_cast<double>(all_vertices);
  const graph::GraphSource source = graph::GraphSource::uniform(u, false, pool);
  graph::BuildOptions options;
  options.layout = graph::GraphLayout::for_variant(graph::Variant::U, interleaved(0));
  const graph::CsrGraph g = source.build(options, pool);
  if (w.workload == "degree") {
    SmartArray out = SmartArray::allocate(g.vertices(), interleaved(adapt::bits_for(2 * g.edges())));
    return w.arrays[0].hints.passes *
           run_trials(trials, [&] { algo::degree_centrality(g.begin(), g.rbegin(), out, pool); }).median;
  }
  algo::PageRankOptions pr;
  pr.tolerance = 0;
  pr.max_iterations = std::max(1u, static_cast<unsigned>(w.arrays[0].hints.passes));
  pr.contributions = interleaved(0);
  return run_trials(trials, [&] { algo::pagerank(g.rbegin(), g.redge(), g.begin(), pr, pool); }).median;
}

}  // namespace

adapt::WorkloadProfile measure_workload(adapt::WorkloadProfile profile, const Trials& trials) {
  if (profile.workload != "aggregate" && profile.workload != "degree" && profile.workload != "pagerank") {
    throw_error(ErrorCode::invalid_argument, "only the aggregate, degree and pagerank workloads can be measured");
  }
  runtime::ThreadPool pool(runtime::PoolOptions{profile.threads});
  adapt::WorkloadMeasurement m;
  m.placement = "interleaved";
  m.seconds = run_once(profile, 1.0, trials, pool);
  // The compute-only cost: the same loops over an instance small enough to stay in the caches
  // (about 1 MiB of arrays), scaled to the whole.
  double bytes = 0, accesses = 0;
  for (const adapt::ArrayUse& a : profile.arrays) {
    bytes += a.accesses() * a.natural_bits / 8.0;
    accesses += a.accesses();
  }
  double footprint = 0;
  for (const adapt::ArrayUse& a : profile.arrays) footprint += static_cast<double>(a.length) * a.natural_bits / 8.0;
  const double scale = std::min(1.0, (1 << 20) / std::max(footprint, 1.0));
  m.compute_seconds = run_once(profile, scale, trials, pool) / scale;
  m.bytes_read = bytes;
  m.accesses_per_s = m.seconds > 0 ? accesses / m.seconds : 0;
  profile.measured = m;
  return profile;
}

}  // namespace smartarrays::measure
