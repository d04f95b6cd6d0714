// Owns the Figure 10 grid: pools per thread count, arrays per (bits, placement), timed runs checked
// against a sum computed straight from the data generator, and the per-cell statistics.
#include "smartarrays/algo/aggregate_bench.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>

#include "smartarrays/algo/aggregate.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays::algo {

namespace {

std::vector<std::size_t> thread_counts(const AggregateBenchConfig& config) {
  return config.threads.empty() ? std::vector<std::size_t>{runtime::default_thread_count()} : config.threads;
}

// The sum the arrays must give, from the generator alone (no array involved).
std::uint64_t expected_sum(const AggregateBenchConfig& config, unsigned bits, runtime::ThreadPool& pool) {
  return pool.parallel_reduce(
      0, config.length, std::uint64_t{0},
      [&](std::uint64_t lo, std::uint64_t hi) {
        std::uint64_t s = 0;
        for (std::uint64_t i = lo; i < hi; ++i) {
          s += aggregation_value(i, bits, config.seed) + aggregation_value(i, bits, config.seed + 1);
        }
        return s;
      },
      [](std::uint64_t a, std::uint64_t b) { return a + b; });
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
  if (config.repetitions < 1) bad("repetitions must be at least 1, got " + std::to_string(config.repetitions));
  if (config.warmup < 0) bad("warm-up runs must be at least 0, got " + std::to_string(config.warmup));
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
      ArrayOptions options;
      options.placement = placement;
      options.bits = bits;
      options.huge_pages = config.huge_pages;
      if (placement == Placement::single_node) options.node = config.node;
      const SmartArray a1 = make_aggregation_array(config.length, options, config.seed, builder);
      const SmartArray a2 = make_aggregation_array(config.length, options, config.seed + 1, builder);
      for (std::size_t p = 0; p < pools.size(); ++p) {
        report("running", bits, placement, threads[p]);
        AggregateBenchCell cell;
        cell.bits = bits;
        cell.placement = placement;
        cell.threads = threads[p];
        for (int run = 0; run < config.warmup + config.repetitions; ++run) {
          const auto start = std::chrono::steady_clock::now();
          const std::uint64_t sum = aggregate(a1, a2, *pools[p]);
          const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          if (sum != expected) {
            throw_error(ErrorCode::internal, "aggregate gave " + std::to_string(sum) + ", expected " +
                                                 std::to_string(expected) + " (" + std::to_string(bits) + " bits, " +
                                                 to_string(placement) + ", " + std::to_string(threads[p]) + " threads)");
          }
          cell.sum = sum;
          if (run >= config.warmup) cell.seconds.push_back(seconds);
        }
        std::vector<double> sorted = cell.seconds;
        std::sort(sorted.begin(), sorted.end());
        cell.median_s = sorted[sorted.size() / 2];
        cell.min_s = sorted.front();
        cell.max_s = sorted.back();
        cell.spread = cell.median_s > 0 ? (cell.max_s - cell.min_s) / cell.median_s : 0;
        cell.bytes = 2 * codec::word_count(config.length, bits) * sizeof(std::uint64_t);
        cell.gb_per_s = cell.median_s > 0 ? static_cast<double>(cell.bytes) / cell.median_s / 1e9 : 0;
        cell.values_per_s = cell.median_s > 0 ? 2.0 * static_cast<double>(config.length) / cell.median_s : 0;
        cells.push_back(std::move(cell));
        ++state.cells_done;
      }
    }
  }
  for (AggregateBenchCell& cell : cells) {
    for (const AggregateBenchCell& base : cells) {
      if (base.bits == 64 && base.placement == cell.placement && base.threads == cell.threads && cell.median_s > 0) {
        cell.speedup_vs_64 = base.median_s / cell.median_s;
      }
    }
  }
  report("done", 0, Placement::os_default, 0);
  return cells;
}

}  // namespace smartarrays::algo
