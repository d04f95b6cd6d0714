// Owns the Figure 10 grid: pools per thread count, arrays per (bits, placement), each cell timed by
// run_trials with every sum checked against one computed straight from the data generator.
#include "measure/aggregate_bench.hpp"

#include <algorithm>
#include <memory>

#include "smartarrays/adapt/workload.hpp"
#include "smartarrays/algo/aggregate.hpp"
#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays::measure {

namespace {

// The sum the arrays must give, from the generator alone (no array involved).
std::uint64_t expected_sum(const AggregateBenchConfig& config, unsigned bits, runtime::ThreadPool& pool) {
  return pool.parallel_reduce(
      0, config.length, std::uint64_t{0},
      [&](std::uint64_t lo, std::uint64_t hi) {
        std::uint64_t s = 0;
        for (std::uint64_t i = lo; i < hi; ++i) {
          s += algo::aggregation_value(i, bits, config.seed) + algo::aggregation_value(i, bits, config.seed + 1);
        }
        return s;
      },
      [](std::uint64_t a, std::uint64_t b) { return a + b; });
}

// The two arrays of a (bits, placement) pair of the grid.
struct ArrayPair {
  SmartArray a1;
  SmartArray a2;
};

ArrayPair make_arrays(const AggregateBenchConfig& config, unsigned bits, Placement placement, runtime::ThreadPool& builder) {
  ArrayOptions options;
  options.placement = placement;
  options.bits = bits;
  options.huge_pages = config.huge_pages;
  if (placement == Placement::single_node) options.node = config.node;
  return {algo::make_aggregation_array(config.length, options, config.seed, builder),
          algo::make_aggregation_array(config.length, options, config.seed + 1, builder)};
}

AggregateBenchCell time_cell(const AggregateBenchConfig& config, const ArrayPair& arrays, std::uint64_t expected,
                             AggregateBenchCell cell, runtime::ThreadPool& pool) {
  cell.timing = run_trials(
      config.trials, [&] { return algo::aggregate(arrays.a1, arrays.a2, pool); },
      [&](std::uint64_t sum) {
        cell.sum = sum;
        if (sum == expected) return std::string();
        return "aggregate gave " + std::to_string(sum) + ", expected " + std::to_string(expected) + " (" +
               std::to_string(cell.bits) + " bits, " + to_string(cell.placement) + ", " + std::to_string(cell.threads) +
               " threads)";
      });
  const double median = cell.timing.median;
  cell.bytes = 2 * codec::word_count(config.length, cell.bits) * sizeof(std::uint64_t);
  cell.gb_per_s = median > 0 ? static_cast<double>(cell.bytes) / median / 1e9 : 0;
  cell.values_per_s = median > 0 ? 2.0 * static_cast<double>(config.length) / median : 0;
  return cell;
}

void add_speedups(std::vector<AggregateBenchCell>& cells) {
  for (AggregateBenchCell& cell : cells) {
    for (const AggregateBenchCell& base : cells) {
      if (base.bits == 64 && base.placement == cell.placement && base.threads == cell.threads && cell.timing.median > 0) {
        cell.speedup_vs_64 = base.timing.median / cell.timing.median;
      }
    }
  }
}

}  // namespace

void validate(const AggregateBenchConfig& config) {
  auto bad = [](const std::string& why) { throw_error(ErrorCode::invalid_argument, why); };
  if (config.length == 0) bad("length must be at least 1");
  if (config.bits.empty()) bad("no bit width to run");
  for (unsigned b : config.bits) {
    if (b < 1 || b > 64) bad("bit width " + std::to_string(b) + " is outside 1..64");
  }
  if (config.placements.empty()) bad("no placement to run");
  for (std::size_t t : config.threads) {
    if (t < 1 || t > 4096) bad("thread count " + std::to_string(t) + " is outside 1..4096");
  }
  if (config.trials.repetitions < 1) {
    bad("repetitions must be at least 1, got " + std::to_string(config.trials.repetitions));
  }
  if (config.trials.warmup < 0) bad("warm-up runs must be at least 0, got " + std::to_string(config.trials.warmup));
}

std::vector<std::size_t> thread_counts(const AggregateBenchConfig& config) {
  return config.threads.empty() ? std::vector<std::size_t>{runtime::default_thread_count()} : config.threads;
}

std::vector<AggregateBenchCell> run_aggregate_bench(const AggregateBenchConfig& config,
                                                    const std::function<void(const AggregateBenchProgress&)>& progress) {
  validate(config);
  const std::vector<std::size_t> threads = thread_counts(config);
  std::vector<std::unique_ptr<runtime::ThreadPool>> pools;
  for (std::size_t t : threads) pools.push_back(std::make_unique<runtime::ThreadPool>(runtime::PoolOptions{t, config.pinning}));
  // Arrays are built by the largest pool: construction is not what the grid measures.
  runtime::ThreadPool& builder = **std::max_element(pools.begin(), pools.end(), [](const auto& a, const auto& b) {
    return a->size() < b->size();
  });

  AggregateBenchProgress state;
  state.cells_total = config.bits.size() * config.placements.size() * threads.size();
  auto report = [&](const char* phase, unsigned bits, Placement placement, std::size_t t) {
    if (!progress) return;
    state.phase = phase;
    state.bits = bits;
    state.placement = placement;
    state.threads = t;
    progress(state);
  };

  std::vector<AggregateBenchCell> cells;
  for (unsigned bits : config.bits) {
    const std::uint64_t expected = expected_sum(config, bits, builder);
    for (Placement placement : config.placements) {
      report("building", bits, placement, 0);
      const ArrayPair arrays = make_arrays(config, bits, placement, builder);
      for (std::size_t p = 0; p < pools.size(); ++p) {
        report("running", bits, placement, threads[p]);
        AggregateBenchCell cell;
        cell.bits = bits;
        cell.placement = placement;
        cell.threads = threads[p];
        cells.push_back(time_cell(config, arrays, expected, std::move(cell), *pools[p]));
        ++state.cells_done;
      }
    }
  }
  add_speedups(cells);
  report("done", 0, Placement::os_default, 0);
  return cells;
}

}  // namespace smartarrays::measure

namespace smartarrays::measure {

std::vector<AdaptiveAggregateCell> run_adaptive_aggregate(const AggregateBenchConfig& config,
                                                          const adapt::MachineProfile& machine, bool auto_placement,
                                                          bool auto_bits,
                                                          const std::function<void(const AggregateBenchProgress&)>& progress) {
  validate(config);
  const std::vector<std::size_t> threads = thread_counts(config);
  std::vector<AdaptiveAggregateCell> cells;
  AggregateBenchProgress state;
  state.cells_total = config.bits.size() * threads.size();
  for (unsigned width : config.bits) {
    const std::uint64_t expected = [&] {
      runtime::ThreadPool pool(runtime::PoolOptions{threads.back(), config.pinning});
      return expected_sum(config, width, pool);
    }();
    for (std::size_t t : threads) {
      // With placement auto and no thread counts given, the decision picks the threads and pinning too.
      const bool decide_threads = auto_placement && config.threads.empty();
      adapt::WorkloadProfile w = adapt::aggregate_workload(config.length, width, decide_threads ? 0 : static_cast<unsigned>(t));
      if (!auto_bits) {
        for (adapt::ArrayUse& a : w.arrays) a.natural_bits = width;
      }
      AdaptiveAggregateCell cell;
      cell.data_bits = width;
      cell.decision = adapt::decide(machine, w);
      cell.threads = decide_threads ? cell.decision.threads : t;
      runtime::ThreadPool pool(
          runtime::PoolOptions{cell.threads, decide_threads ? cell.decision.pinning : config.pinning});
      ArrayOptions chosen[2];
      for (std::size_t k = 0; k < 2; ++k) {
        const adapt::ArrayConfig& c = cell.decision.arrays[k].choice;
        chosen[k].placement = auto_placement ? c.placement : config.placements.front();
        chosen[k].node = auto_placement ? c.node : config.node;
        chosen[k].huge_pages = auto_placement ? c.huge_page_mode() : config.huge_pages;
        chosen[k].bits = auto_bits ? c.bits : width;
      }
      cell.a1 = chosen[0];
      cell.a2 = chosen[1];
      state.bits = width;
      state.placement = chosen[0].placement;
      state.threads = cell.threads;
      state.phase = "building";
      if (progress) progress(state);
      std::vector<SmartArray> arrays;
      for (std::size_t k = 0; k < 2; ++k) {
        const std::uint64_t seed = config.seed + k;
        arrays.push_back(build::build_array(
            config.length, chosen[k],
            [width, seed](std::uint64_t lo, std::uint64_t hi, std::uint64_t* out) {
              for (std::uint64_t i = lo; i < hi; ++i) out[i - lo] = algo::aggregation_value(i, width, seed);
            },
            pool));
      }
      state.phase = "running";
      if (progress) progress(state);
      cell.timing = run_trials(
          config.trials, [&] { return algo::aggregate(arrays[0], arrays[1], pool); },
          [&](std::uint64_t sum) {
            cell.sum = sum;
            return sum == expected ? std::string()
                                   : "aggregate gave " + std::to_string(sum) + ", expected " + std::to_string(expected);
          });
      const double bytes = static_cast<double>((codec::word_count(config.length, chosen[0].bits) +
                                                codec::word_count(config.length, chosen[1].bits)) *
                                               sizeof(std::uint64_t));
      cell.gb_per_s = cell.timing.median > 0 ? bytes / cell.timing.median / 1e9 : 0;
      cells.push_back(std::move(cell));
      ++state.cells_done;
    }
  }
  state.phase = "done";
  if (progress) progress(state);
  return cells;
}

}  // namespace smartarrays::measure
