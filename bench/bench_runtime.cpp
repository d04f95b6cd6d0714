// Benchmarks the runtime and the aggregation workload against their ratio targets, each pair
// measured side by side in one run: parallel_for empty-body overhead vs a parallel 64-bit sum;
// 64-bit aggregation vs a plain two-thread std::vector sum written with std::thread; 2 vs 1 threads
// for b <= 33; b = 10 vs b = 64; and each bit width against min(memory bound, 2 x decode bound).
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "bench_support.hpp"
#include "measure/report.hpp"
#include "measure/timing.hpp"
#include "smartarrays/algo/aggregate.hpp"
#include "smartarrays/codec/kernels.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace sa = smartarrays;
namespace sb = smartarrays::bench;
namespace sm = smartarrays::measure;
namespace rt = smartarrays::runtime;

namespace {

struct Config {
  std::uint64_t loop_indices = 100'000'000;  // the overhead loop and its 64-bit sum (10^8 indices)
  std::uint64_t agg_length = 1ull << 25;     // values per aggregation array
  int repetitions = 7;
  std::string out_dir = sb::default_out_dir;
  std::vector<unsigned> bits{10, 31, 32, 33, 50, 63, 64};
  /// One warm-up run, then the timed repetitions.
  sm::Trials trials() const { return {.warmup = 1, .repetitions = repetitions}; }
};

int parse(int argc, char** argv, Config& c) {
  CLI::App app("Benchmarks the runtime and the aggregation workload against their ratio targets.",
               "bench_runtime");
  app.add_option("--loop-indices", c.loop_indices, "indices of the overhead loop and its 64-bit sum (default 100000000)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
  app.add_option("--length", c.agg_length, "values per aggregation array (default 33554432, at least 64)")
      ->check(CLI::Range(std::uint64_t{64}, std::uint64_t{1} << 40));
  app.add_option("--reps", c.repetitions, "timed repetitions per measurement, median reported (default 7)")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--bits", c.bits, "aggregation bit widths (default 10,31,32,33,50,63,64; 10 and 64 always run)")
      ->delimiter(',')
      ->check(CLI::Range(1, 64));
  app.add_option("--out", c.out_dir, "where the JSON result goes (default build/bench-results)");
  const int code = sb::parse_command_line(app, argc, argv);
  for (unsigned must : {10u, 64u}) {
    if (std::find(c.bits.begin(), c.bits.end(), must) == c.bits.end()) c.bits.push_back(must);
  }
  std::sort(c.bits.begin(), c.bits.end());
  return code;
}

// The plain baseline: two std::threads, each summing a1[i] + a2[i] over its half.
std::uint64_t vector_sum_threads(const std::vector<std::uint64_t>& a1, const std::vector<std::uint64_t>& a2,
                                 unsigned threads) {
  std::vector<std::uint64_t> partial(threads * 8, 0);  // 8 words apart: one cache line each
  std::vector<std::thread> pool;
  const std::size_t n = a1.size();
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      const std::size_t lo = n * t / threads;
      const std::size_t hi = n * (t + 1) / threads;
      std::uint64_t s = 0;
      for (std::size_t i = lo; i < hi; ++i) s += a1[i] + a2[i];
      partial[t * 8] = s;
    });
  }
  for (std::thread& t : pool) t.join();
  std::uint64_t sum = 0;
  for (unsigned t = 0; t < threads; ++t) sum += partial[t * 8];
  return sum;
}

struct Ratio {
  std::string name;
  std::string target;
  double value;
  bool met;
  double spread;  // the larger spread of the two timings behind the ratio
};

// Scheduling overhead: an empty body over the indices vs a sum of a 64-bit array that long.
struct Overhead {
  sm::Timing empty_loop, sum_loop;
};

Overhead measure_overhead(const Config& cfg, rt::ThreadPool& two) {
  std::vector<std::uint64_t> values(cfg.loop_indices);
  two.parallel_for(0, values.size(), [&](std::uint64_t lo, std::uint64_t hi) {
    for (std::uint64_t i = lo; i < hi; ++i) values[i] = i;
  });
  auto [empty_loop, sum_loop] = sm::run_alternating(
      cfg.trials(), [&] { two.parallel_for(0, cfg.loop_indices, [](std::uint64_t, std::uint64_t) {}); },
      [&] {
        sb::keep(two.parallel_reduce(
            0, values.size(), std::uint64_t{0},
            [&](std::uint64_t lo, std::uint64_t hi) {
              std::uint64_t s = 0;
              for (std::uint64_t i = lo; i < hi; ++i) s += values[i];
              return s;
            },
            [](std::uint64_t a, std::uint64_t b) { return a + b; }));
      });
  return {empty_loop, sum_loop};
}

// The memory and decode limits of this machine, measured now, and the vector baseline's data.
struct Limits {
  std::vector<std::uint64_t> v1, v2;
  sm::Timing vector_two, vector_one;
  double memory_bytes_per_s = 0;
  std::map<unsigned, double> decode_values_per_s;  // one core, data in L1/L2
};

Limits measure_limits(const Config& cfg, rt::ThreadPool& two) {
  const std::uint64_t n = cfg.agg_length;
  Limits l{std::vector<std::uint64_t>(n), std::vector<std::uint64_t>(n), {}, {}, 0, {}};
  two.parallel_for(0, n, [&](std::uint64_t lo, std::uint64_t hi) {
    for (std::uint64_t i = lo; i < hi; ++i) {
      l.v1[i] = sa::algo::aggregation_value(i, 64, 1);
      l.v2[i] = sa::algo::aggregation_value(i, 64, 2);
    }
  });
  std::tie(l.vector_two, l.vector_one) = sm::run_alternating(
      cfg.trials(), [&] { sb::keep(vector_sum_threads(l.v1, l.v2, 2)); }, [&] { sb::keep(vector_sum_threads(l.v1, l.v2, 1)); });
  l.memory_bytes_per_s = 2.0 * n * 8 / l.vector_two.median;
  // Decode bound: one core summing 16 Ki values that stay in L1/L2, so memory is out of the way.
  for (unsigned bits : cfg.bits) {
    const sa::codec::Kernels& k = sa::codec::kernels(bits);
    std::vector<std::uint64_t> words(sa::codec::word_count(16384, bits) + 1, 0x5555555555555555ull);
    const int rounds = 2000;
    const sm::Timing t = sm::run_trials(cfg.trials(), [&] {
      std::uint64_t s = 0;
      for (int r = 0; r < rounds; ++r) {
        s += k.sum(words.data(), 0, 16384 / 64);
        sb::keep(s);
      }
    });
    l.decode_values_per_s[bits] = 16384.0 * rounds / t.median;
  }
  return l;
}

// Aggregation per bit width on 1 and 2 workers, and the 64-bit one paired with the vector baseline.
struct Row {
  unsigned bits;
  sm::Timing one, two;
  double bound_s;
};

struct Aggregation {
  std::vector<Row> rows;
  sm::Timing agg64_paired, vector_paired;
  /// The row of a bit width (10 and 64 are always there).
  const Row& row(unsigned bits) const {
    return *std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.bits == bits; });
  }
};

Aggregation measure_aggregation(const Config& cfg, const Limits& l, rt::ThreadPool& one, rt::ThreadPool& two) {
  const std::uint64_t n = cfg.agg_length;
  Aggregation a;
  for (unsigned bits : cfg.bits) {
    sa::ArrayOptions options;
    options.bits = bits;
    const sa::SmartArray a1 = sa::algo::make_aggregation_array(n, options, 1, two);
    const sa::SmartArray a2 = sa::algo::make_aggregation_array(n, options, 2, two);
    Row row{bits, {}, {}, 0};
    std::tie(row.two, row.one) = sm::run_alternating(
        cfg.trials(), [&] { sb::keep(sa::algo::aggregate(a1, a2, two)); }, [&] { sb::keep(sa::algo::aggregate(a1, a2, one)); });
    const double memory_bound = 2.0 * n * bits / 8 / l.memory_bytes_per_s;
    const double decode_bound = 2.0 * n / (2 * l.decode_values_per_s.at(bits));
    row.bound_s = std::max(memory_bound, decode_bound);
    if (bits == 64) {
      // The plain baseline, timed alternately with the 64-bit aggregation on the same data.
      std::tie(a.agg64_paired, a.vector_paired) = sm::run_alternating(
          cfg.trials(), [&] { sb::keep(sa::algo::aggregate(a1, a2, two)); }, [&] { sb::keep(vector_sum_threads(l.v1, l.v2, 2)); });
    }
    a.rows.push_back(row);
    std::cerr << "aggregation " << bits << " bits done\n";
  }
  return a;
}

std::vector<Ratio> ratios(const Overhead& o, const Aggregation& a) {
  std::vector<Ratio> ratios;
  const double overhead = o.empty_loop.median / o.sum_loop.median;
  ratios.push_back({"parallel_for empty body / 64-bit parallel sum (10^8, 2 workers)", "< 0.05", overhead,
                    overhead < 0.05, std::max(o.empty_loop.spread(), o.sum_loop.spread())});
  const double vs_vector = a.vector_paired.median / a.agg64_paired.median;
  ratios.push_back({"aggregation 64-bit 2 threads vs std::thread vector sum (speed)", ">= 0.90", vs_vector,
                    vs_vector >= 0.9, std::max(a.vector_paired.spread(), a.agg64_paired.spread())});
  for (const Row& r : a.rows) {
    if (r.bits > 33) continue;
    const double speedup = r.one.median / r.two.median;
    ratios.push_back({"aggregation " + std::to_string(r.bits) + "-bit: 2 threads vs 1 thread (speedup)", ">= 1.60",
                      speedup, speedup >= 1.6, std::max(r.one.spread(), r.two.spread())});
  }
  const Row& r64 = a.row(64);
  const Row& r10 = a.row(10);
  const double ten_vs_64 = r64.two.median / r10.two.median;
  ratios.push_back({"aggregation 2 threads: 10-bit vs 64-bit (speedup)", ">= 4.00", ten_vs_64, ten_vs_64 >= 4.0,
                    std::max(r64.two.spread(), r10.two.spread())});
  return ratios;
}

void print_tables(const Config& cfg, const Limits& l, const Aggregation& a, const std::vector<Ratio>& ratios) {
  const std::uint64_t n = cfg.agg_length;
  std::printf("\nbench_runtime: %llu-value arrays x 2, %d repetitions (median), codec ISA %s\n",
              static_cast<unsigned long long>(n), cfg.repetitions, sa::codec::isa_name(sa::codec::active_isa()));
  std::printf("memory bound (2-thread std::vector sum): %.2f GB/s; 1-thread vector sum %.2f GB/s\n",
              l.memory_bytes_per_s / 1e9, 2.0 * n * 8 / l.vector_one.median / 1e9);
  std::printf("\n bits | 1 thread ms | 2 threads ms | spread | GB/s (2t) | Gvalues/s (2t) | 2t/1t | vs 64-bit | "
              "decode Gv/s/core | bound ms | of bound\n");
  std::printf("------+-------------+--------------+--------+-----------+----------------+-------+-----------+-"
              "-----------------+----------+---------\n");
  const Row& r64 = a.row(64);
  for (const Row& r : a.rows) {
    std::printf(" %4u | %11.2f | %12.2f | %5.1f%% | %9.2f | %14.2f | %5.2f | %8.2fx | %16.2f | %8.2f | %6.0f%%\n",
                r.bits, r.one.median * 1e3, r.two.median * 1e3, r.two.spread() * 100,
                2.0 * n * r.bits / 8 / r.two.median / 1e9, 2.0 * n / r.two.median / 1e9, r.one.median / r.two.median,
                r64.two.median / r.two.median, l.decode_values_per_s.at(r.bits) / 1e9, r.bound_s * 1e3,
                r.bound_s / r.two.median * 100);
  }
  std::printf("\n%-66s | %-7s | %8s | %6s | %s\n", "ratio", "target", "measured", "spread", "met");
  std::printf("%s\n", std::string(100, '-').c_str());
  for (const Ratio& r : ratios) {
    std::printf("%-66s | %-7s | %8.3f | %5.1f%% | %s\n", r.name.c_str(), r.target.c_str(), r.value, r.spread * 100,
                r.met ? "yes" : "NO");
  }
}

sm::Report report(const Config& cfg, const Overhead& o, const Limits& l, const Aggregation& a,
                  const std::vector<Ratio>& ratios) {
  sm::Json results;
  results["overhead"] = {{"indices", cfg.loop_indices},
                         {"empty_loop", sm::timing_json(o.empty_loop)},
                         {"sum_loop", sm::timing_json(o.sum_loop)},
                         {"ratio", o.empty_loop.median / o.sum_loop.median}};
  results["memory_bound_bytes_per_s"] = l.memory_bytes_per_s;
  results["vector_sum"] = {{"length", cfg.agg_length},
                           {"two_threads", sm::timing_json(l.vector_two)},
                           {"one_thread", sm::timing_json(l.vector_one)},
                           {"paired_with_64_bit_aggregation", sm::timing_json(a.vector_paired)},
                           {"aggregation_64_bit_paired", sm::timing_json(a.agg64_paired)}};
  results["aggregation"] = sm::Json::array();
  for (const Row& r : a.rows) {
    results["aggregation"].push_back({{"bits", r.bits},
                                      {"length", cfg.agg_length},
                                      {"one_thread", sm::timing_json(r.one)},
                                      {"two_threads", sm::timing_json(r.two)},
                                      {"decode_values_per_s_per_core", l.decode_values_per_s.at(r.bits)},
                                      {"bound_s", r.bound_s}});
  }
  results["ratios"] = sm::Json::array();
  for (const Ratio& r : ratios) {
    results["ratios"].push_back(
        {{"name", r.name}, {"target", r.target}, {"value", r.value}, {"met", r.met}, {"spread", r.spread}});
  }
  sm::Report report("smartarrays.bench.runtime/1");
  report.fields["benchmark"] = "bench_runtime";
  report.fields["results"] = results;
  return report;
}

}  // namespace

int main(int argc, char** argv) {
  Config cfg;
  if (const int code = parse(argc, argv, cfg); code >= 0) return code;
  rt::ThreadPool one(rt::PoolOptions{.threads = 1});
  rt::ThreadPool two(rt::PoolOptions{.threads = 2});
  const Overhead overhead = measure_overhead(cfg, two);
  const Limits limits = measure_limits(cfg, two);
  const Aggregation aggregation = measure_aggregation(cfg, limits, one, two);
  const std::vector<Ratio> met = ratios(overhead, aggregation);
  print_tables(cfg, limits, aggregation, met);
  const std::string path = sm::result_path(cfg.out_dir, "bench_runtime");
  sm::write_report(report(cfg, overhead, limits, aggregation, met), path);
  std::printf("\nresults: %s\n", path.c_str());
  return 0;
}
