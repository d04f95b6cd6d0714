// Benchmarks the runtime and the aggregation workload against the ratio targets, each pair
// measured side by side in one run: parallel_for empty-body overhead vs a parallel 64-bit sum;
// 64-bit aggregation vs a plain two-thread std::vector sum written with std::thread; 2 vs 1 threads
// for b <= 33; b = 10 vs b = 64; and each bit width against min(memory bound, 2 x decode bound).
#include <chrono>
#include <cstdio>
#include <functional>
#include <tuple>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_support.hpp"
#include "smartarrays/algo/aggregate.hpp"
#include "smartarrays/codec/kernels.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace sa = smartarrays;
namespace sb = smartarrays::bench;
namespace rt = smartarrays::runtime;

namespace {

struct Config {
  std::uint64_t loop_indices = 100'000'000;  // the overhead loop and its 64-bit sum (issue: 10^8)
  std::uint64_t agg_length = 1ull << 25;     // values per aggregation array
  int repetitions = 7;
  std::string out_dir = "build/bench-results";
  std::vector<unsigned> bits{10, 31, 32, 33, 50, 63, 64};
};

Config parse(int argc, char** argv) {
  Config c;
  const std::string usage =
      "usage: bench_runtime [--loop-indices N] [--length N] [--reps R] [--bits b1,b2,...] [--out DIR]\n"
      "  --loop-indices N  indices of the overhead loop and its 64-bit sum (default 100000000)\n"
      "  --length N        values per aggregation array (default 33554432, at least 64)\n"
      "  --reps R          timed repetitions per measurement, median reported (default 7)\n"
      "  --bits LIST       aggregation bit widths (default 10,31,32,33,50,63,64; 10 and 64 always run)\n"
      "  --out DIR         where the JSON result goes (default build/bench-results)\n";
  auto at_least = [](const std::string& v, unsigned long long least) {
    const unsigned long long n = std::stoull(v);
    if (n < least) throw std::invalid_argument("too small");
    return n;
  };
  sb::parse_flags(argc, argv, "bench_runtime", usage,
                  {{"--loop-indices", [&](const std::string& v) { c.loop_indices = at_least(v, 1); }},
                   {"--length", [&](const std::string& v) { c.agg_length = at_least(v, 64); }},
                   {"--reps", [&](const std::string& v) { c.repetitions = static_cast<int>(at_least(v, 1)); }},
                   {"--bits", [&](const std::string& v) { c.bits = sb::parse_bits_list(v); }},
                   {"--out", [&](const std::string& v) { c.out_dir = v; }}});
  for (unsigned must : {10u, 64u}) {
    if (std::find(c.bits.begin(), c.bits.end(), must) == c.bits.end()) c.bits.push_back(must);
  }
  std::sort(c.bits.begin(), c.bits.end());
  return c;
}

// The baseline the issue names: two std::threads, each summing a1[i] + a2[i] over its half.
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

sb::Timing timing_of(std::vector<double> seconds) {
  std::sort(seconds.begin(), seconds.end());
  return {seconds[seconds.size() / 2], seconds.front(), seconds.back()};
}

// Times a and b alternately (after one warm-up of each), so that on a shared, noisy machine both
// sides of a ratio see the same load.
std::pair<sb::Timing, sb::Timing> time_pair(int repetitions, const std::function<void()>& a,
                                            const std::function<void()>& b) {
  a();
  b();
  std::vector<double> ta;
  std::vector<double> tb;
  auto once = [](const std::function<void()>& f) {
    const auto start = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  for (int r = 0; r < repetitions; ++r) {
    ta.push_back(once(a));
    tb.push_back(once(b));
  }
  return {timing_of(ta), timing_of(tb)};
}

std::string fmt(double v, int precision = 2) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", precision, v);
  return buf;
}

std::string timing_json(const sb::Timing& t) {
  return "{\"median_s\": " + fmt(t.median, 6) + ", \"min_s\": " + fmt(t.min, 6) + ", \"max_s\": " + fmt(t.max, 6) +
         ", \"spread\": " + fmt(t.spread(), 4) + "}";
}

struct Ratio {
  std::string name;
  std::string target;
  double value;
  bool met;
  double spread;  // the larger spread of the two timings behind the ratio
};

}  // namespace

int main(int argc, char** argv) {
  const Config cfg = parse(argc, argv);
  rt::ThreadPool one(rt::PoolOptions{.threads = 1});
  rt::ThreadPool two(rt::PoolOptions{.threads = 2});
  std::vector<Ratio> ratios;
  std::ostringstream results;
  results << "{";

  // 1. Scheduling overhead: an empty body over 10^8 indices vs a sum of a 64-bit array that long.
  sb::Timing empty_loop;
  sb::Timing sum_loop;
  {
    std::vector<std::uint64_t> values(cfg.loop_indices);
    two.parallel_for(0, values.size(), [&](std::uint64_t lo, std::uint64_t hi) {
      for (std::uint64_t i = lo; i < hi; ++i) values[i] = i;
    });
    std::tie(empty_loop, sum_loop) = time_pair(
        cfg.repetitions, [&] { two.parallel_for(0, cfg.loop_indices, [](std::uint64_t, std::uint64_t) {}); },
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
  }
  const double overhead = empty_loop.median / sum_loop.median;
  ratios.push_back({"parallel_for empty body / 64-bit parallel sum (10^8, 2 workers)", "< 0.05", overhead,
                    overhead < 0.05, std::max(empty_loop.spread(), sum_loop.spread())});
  results << "\"overhead\": {\"indices\": " << cfg.loop_indices << ", \"empty_loop\": " << timing_json(empty_loop)
          << ", \"sum_loop\": " << timing_json(sum_loop) << ", \"ratio\": " << fmt(overhead, 5) << "}";

  // 2. The memory and decode limits of this machine, measured now.
  const std::uint64_t n = cfg.agg_length;
  sb::Timing vector_two;
  sb::Timing vector_one;
  std::vector<std::uint64_t> v1(n);
  std::vector<std::uint64_t> v2(n);
  two.parallel_for(0, n, [&](std::uint64_t lo, std::uint64_t hi) {
    for (std::uint64_t i = lo; i < hi; ++i) {
      v1[i] = sa::algo::aggregation_value(i, 64, 1);
      v2[i] = sa::algo::aggregation_value(i, 64, 2);
    }
  });
  std::tie(vector_two, vector_one) = time_pair(
      cfg.repetitions, [&] { sb::keep(vector_sum_threads(v1, v2, 2)); },
      [&] { sb::keep(vector_sum_threads(v1, v2, 1)); });
  const double memory_bytes_per_s = 2.0 * n * 8 / vector_two.median;
  // Decode bound: one core summing 16 Ki values that stay in L1/L2, so memory is out of the way.
  std::map<unsigned, double> decode_values_per_s;
  for (unsigned bits : cfg.bits) {
    const sa::codec::Kernels& k = sa::codec::kernels(bits);
    std::vector<std::uint64_t> words(sa::codec::word_count(16384, bits) + 1, 0x5555555555555555ull);
    const int rounds = 2000;
    const sb::Timing t = sb::time_it(cfg.repetitions, [&] {
      std::uint64_t s = 0;
      for (int r = 0; r < rounds; ++r) {
        s += k.sum(words.data(), 0, 16384 / 64);
        sb::keep(s);
      }
    });
    decode_values_per_s[bits] = 16384.0 * rounds / t.median;
  }

  // 3. Aggregation per bit width on 1 and 2 workers.
  struct Row {
    unsigned bits;
    sb::Timing one, two;
    double bound_s;
  };
  std::vector<Row> rows;
  sb::Timing agg64_paired;
  sb::Timing vector_paired;
  for (unsigned bits : cfg.bits) {
    sa::ArrayOptions options;
    options.bits = bits;
    const sa::SmartArray a1 = sa::algo::make_aggregation_array(n, options, 1, two);
    const sa::SmartArray a2 = sa::algo::make_aggregation_array(n, options, 2, two);
    Row row{bits, {}, {}, 0};
    std::tie(row.two, row.one) = time_pair(
        cfg.repetitions, [&] { sb::keep(sa::algo::aggregate(a1, a2, two)); },
        [&] { sb::keep(sa::algo::aggregate(a1, a2, one)); });
    const double memory_bound = 2.0 * n * bits / 8 / memory_bytes_per_s;
    const double decode_bound = 2.0 * n / (2 * decode_values_per_s[bits]);
    row.bound_s = std::max(memory_bound, decode_bound);
    if (bits == 64) {
      // The baseline, timed alternately with the 64-bit aggregation on the same data.
      std::tie(agg64_paired, vector_paired) = time_pair(
          cfg.repetitions, [&] { sb::keep(sa::algo::aggregate(a1, a2, two)); },
          [&] { sb::keep(vector_sum_threads(v1, v2, 2)); });
    }
    rows.push_back(row);
    std::cerr << "aggregation " << bits << " bits done\n";
  }
  auto row_of = [&](unsigned bits) -> const Row& {
    return *std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.bits == bits; });
  };
  const Row& r64 = row_of(64);
  const double vs_vector = vector_paired.median / agg64_paired.median;
  ratios.push_back({"aggregation 64-bit 2 threads vs std::thread vector sum (speed)", ">= 0.90", vs_vector,
                    vs_vector >= 0.9, std::max(vector_paired.spread(), agg64_paired.spread())});
  for (const Row& r : rows) {
    if (r.bits > 33) continue;
    const double speedup = r.one.median / r.two.median;
    ratios.push_back({"aggregation " + std::to_string(r.bits) + "-bit: 2 threads vs 1 thread (speedup)", ">= 1.60",
                      speedup, speedup >= 1.6, std::max(r.one.spread(), r.two.spread())});
  }
  const double ten_vs_64 = r64.two.median / row_of(10).two.median;
  ratios.push_back({"aggregation 2 threads: 10-bit vs 64-bit (speedup)", ">= 4.00", ten_vs_64, ten_vs_64 >= 4.0,
                    std::max(r64.two.spread(), row_of(10).two.spread())});

  // Tables.
  std::printf("\nbench_runtime: %llu-value arrays x 2, %d repetitions (median), codec ISA %s\n",
              static_cast<unsigned long long>(n), cfg.repetitions, sa::codec::isa_name(sa::codec::active_isa()));
  std::printf("memory bound (2-thread std::vector sum): %.2f GB/s; 1-thread vector sum %.2f GB/s\n",
              memory_bytes_per_s / 1e9, 2.0 * n * 8 / vector_one.median / 1e9);
  std::printf("\n bits | 1 thread ms | 2 threads ms | spread | GB/s (2t) | Gvalues/s (2t) | 2t/1t | vs 64-bit | "
              "decode Gv/s/core | bound ms | of bound\n");
  std::printf("------+-------------+--------------+--------+-----------+----------------+-------+-----------+-"
              "-----------------+----------+---------\n");
  for (const Row& r : rows) {
    std::printf(" %4u | %11.2f | %12.2f | %5.1f%% | %9.2f | %14.2f | %5.2f | %8.2fx | %16.2f | %8.2f | %6.0f%%\n",
                r.bits, r.one.median * 1e3, r.two.median * 1e3, r.two.spread() * 100,
                2.0 * n * r.bits / 8 / r.two.median / 1e9, 2.0 * n / r.two.median / 1e9, r.one.median / r.two.median,
                r64.two.median / r.two.median, decode_values_per_s[r.bits] / 1e9, r.bound_s * 1e3,
                r.bound_s / r.two.median * 100);
  }
  std::printf("\n%-66s | %-7s | %8s | %6s | %s\n", "ratio", "target", "measured", "spread", "met");
  std::printf("%s\n", std::string(100, '-').c_str());
  for (const Ratio& r : ratios) {
    std::printf("%-66s | %-7s | %8.3f | %5.1f%% | %s\n", r.name.c_str(), r.target.c_str(), r.value, r.spread * 100,
                r.met ? "yes" : "NO");
  }

  results << ", \"memory_bound_bytes_per_s\": " << fmt(memory_bytes_per_s, 0)
          << ", \"vector_sum\": {\"length\": " << n << ", \"two_threads\": " << timing_json(vector_two)
          << ", \"one_thread\": " << timing_json(vector_one) << ", \"paired_with_64_bit_aggregation\": "
          << timing_json(vector_paired) << ", \"aggregation_64_bit_paired\": " << timing_json(agg64_paired)
          << "}, \"aggregation\": [";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    results << (i ? ", " : "") << "{\"bits\": " << r.bits << ", \"length\": " << n
            << ", \"one_thread\": " << timing_json(r.one) << ", \"two_threads\": " << timing_json(r.two)
            << ", \"decode_values_per_s_per_core\": " << fmt(decode_values_per_s[r.bits], 0)
            << ", \"bound_s\": " << fmt(r.bound_s, 6) << "}";
  }
  results << "], \"ratios\": [";
  for (std::size_t i = 0; i < ratios.size(); ++i) {
    const Ratio& r = ratios[i];
    results << (i ? ", " : "") << "{\"name\": " << sb::json_string(r.name) << ", \"target\": "
            << sb::json_string(r.target) << ", \"value\": " << fmt(r.value, 4) << ", \"met\": "
            << (r.met ? "true" : "false") << ", \"spread\": " << fmt(r.spread, 4) << "}";
  }
  results << "]}";
  std::printf("\nresults: %s\n", sb::write_result_file(cfg.out_dir, "bench_runtime", results.str()).c_str());
  return 0;
}
