// Benchmarks the bulk operations on the default pool against their limits, measured side by side
// in the same run (alternating): copy_from at equal widths vs a parallel memcpy of the same words;
// re-encoding copies vs the decode-to-buffer bound (the same source decoded into 64-bit values in
// memory; docs/bit-layout.md, Measured, gives the target) and, for the record, vs decoding alone
// (into cache-resident buffers); crc32c in GB/s per core (one thread, and the pool divided by its workers); and
// sync of a primary-write replicated array after 1% of its groups were written vs re-copying the
// whole primary replica (a parallel memcpy on every worker). On a one-node machine the replicated array
// lives on a fake two-node topology, so both replicas share the real node's memory bandwidth.
#include <algorithm>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bench_support.hpp"
#include "measure/report.hpp"
#include "measure/timing.hpp"
#include "smartarrays/build/bulk.hpp"
#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/codec/kernels.hpp"
#include "smartarrays/os/topology.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace sa = smartarrays;
namespace sb = smartarrays::bench;
namespace sm = smartarrays::measure;

namespace {

struct Config {
  std::uint64_t bytes = 1ull << 30;  // bytes of the 64-bit arrays (the synced one per replica)
  int repetitions = 5;
  std::string out_dir = sb::default_out_dir;
  std::vector<std::pair<unsigned, unsigned>> pairs{{17, 33}, {33, 17}, {7, 64}, {64, 20}, {31, 32}};
  double dirty_fraction = 0.01;
  sm::Trials trials() const { return {.warmup = 1, .repetitions = repetitions}; }
};

int parse(int argc, char** argv, Config& c) {
  CLI::App app("Benchmarks copy_from, crc32c and sync on the default pool against their limits.", "bench_bulk");
  std::uint64_t size_mib = c.bytes >> 20;
  app.add_option("--size-mib", size_mib, "MiB of the 64-bit arrays, the synced one per replica (default 1024)")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--reps", c.repetitions, "timed repetitions per measurement, median reported (default 5)")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--out", c.out_dir, "where the JSON result goes (default build/bench-results)");
  const int code = sb::parse_command_line(app, argc, argv);
  c.bytes = size_mib << 20;
  return code;
}

double gb_per_s(std::uint64_t bytes, const sm::Timing& t) { return t.median > 0 ? static_cast<double>(bytes) / t.median / 1e9 : 0; }

struct Row {
  std::string name;     // what was measured
  std::string against;  // its limit or baseline
  double seconds = 0;   // median of the operation
  double baseline_seconds = 0;
  double gb_per_s = 0;  // bytes the operation moves (or checksums) per second
  double ratio = 0;     // the target's direction: baseline / operation time (>= target is good)
  double target = 0;
  double spread = 0;
  double cache_decode_ratio = 0;  // re-encoding copies: cache-resident decode time / operation time
};

sa::ArrayOptions bits_options(unsigned bits) {
  sa::ArrayOptions o;
  o.bits = bits;
  return o;
}

sa::SmartArray ramp(std::uint64_t n, unsigned bits) {
  return sa::build::build_array(n, bits_options(bits), [&](std::uint64_t lo, std::uint64_t hi, std::uint64_t* out) {
    for (std::uint64_t i = lo; i < hi; ++i) out[i - lo] = (i * 0x9E3779B97F4A7C15ull >> 7) & sa::codec::value_mask(bits);
  });
}

// The same words moved by the pool's workers with memcpy, in the copy's batches: the bandwidth limit.
void parallel_memcpy(std::uint64_t* to, const std::uint64_t* from, std::uint64_t words) {
  sa::runtime::parallel_for(0, words, [&](std::uint64_t lo, std::uint64_t hi) {
    std::memcpy(to + lo, from + lo, (hi - lo) * sizeof(std::uint64_t));
  });
}

// Decodes src on the pool into out (a 64-bit value per index, in memory): the decode-to-buffer bound.
void decode_to_memory(const sa::SmartArray& src, std::uint64_t* out) {
  const sa::codec::Kernels& kernels = sa::codec::kernels(src.bits());
  sa::runtime::parallel_for(0, src.length(), [&](std::uint64_t lo, std::uint64_t hi) {
    const std::uint64_t first = lo / 64;
    kernels.unpack(src.replica(0), first, sa::codec::chunk_count(hi) - first, out + first * 64);
  });
}

// Decodes src on the pool into per-worker buffers of 64 chunks (cache resident, nothing written to
// memory): the bound of the decoding alone.
std::uint64_t decode_in_cache(const sa::SmartArray& src) {
  const sa::codec::Kernels& kernels = sa::codec::kernels(src.bits());
  sa::runtime::ThreadPool& pool = sa::runtime::default_pool();
  std::vector<std::vector<std::uint64_t>> buffers(pool.size(), std::vector<std::uint64_t>(64 * 64));
  return pool.parallel_reduce(
      0, src.length(), std::uint64_t{0},
      [&](std::uint64_t lo, std::uint64_t hi, const sa::runtime::WorkerContext& ctx) {
        std::uint64_t* values = buffers[ctx.worker].data();
        const std::uint64_t end = sa::codec::chunk_count(hi);
        std::uint64_t seen = 0;
        for (std::uint64_t c = lo / 64; c < end; c += 64) {
          kernels.unpack(src.replica(0), c, std::min<std::uint64_t>(64, end - c), values);
          seen += values[c % 64];
        }
        return seen;
      },
      [](std::uint64_t a, std::uint64_t b) { return a + b; });
}

Row measure_same_width_copy(const Config& cfg) {
  const std::uint64_t n = cfg.bytes / 8;
  const sa::SmartArray src = ramp(n, 64);
  sa::SmartArray dst = sa::SmartArray::allocate(n, bits_options(64));
  const auto [copy, memcpy_time] = sm::run_alternating(
      cfg.trials(), [&] { sa::build::copy_from(dst, src); },
      [&] { parallel_memcpy(dst.mutable_replica(0), src.replica(0), src.words_per_replica()); });
  return {"copy_from 64 -> 64 bits", "parallel memcpy", copy.median, memcpy_time.median, gb_per_s(cfg.bytes, copy),
          memcpy_time.median / copy.median, 0.8, copy.spread()};
}

Row measure_reencoding_copy(const Config& cfg, unsigned from, unsigned to) {
  const std::uint64_t n = cfg.bytes / 8;
  // Values must fit the narrower width: a ramp of the narrower width, stored in the source's.
  sa::SmartArray source = sa::SmartArray::allocate(n, bits_options(from));
  sa::build::copy_from(source, ramp(n, std::min(from, to)));
  sa::SmartArray dst = sa::SmartArray::allocate(n, bits_options(to));
  sa::SmartArray decoded = sa::SmartArray::allocate(n, bits_options(64));
  const auto [copy, decode] = sm::run_alternating(
      cfg.trials(), [&] { sa::build::copy_from(dst, source); },
      [&] { decode_to_memory(source, decoded.mutable_replica(0)); });
  const auto [copy_again, in_cache] = sm::run_alternating(
      cfg.trials(), [&] { sa::build::copy_from(dst, source); }, [&] { sb::keep(decode_in_cache(source)); });
  return {"copy_from " + std::to_string(from) + " -> " + std::to_string(to) + " bits",
          "decode to memory",
          copy.median,
          decode.median,
          gb_per_s(source.words_per_replica() * 8 + dst.words_per_replica() * 8, copy),
          decode.median / copy.median,
          0.8,
          copy.spread(),
          in_cache.median / copy_again.median};
}

std::pair<Row, Row> measure_crc(const Config& cfg) {
  const std::uint64_t n = cfg.bytes / 8;
  const sa::SmartArray a = ramp(n, 64);
  const std::uint32_t expected = a.crc32c(0);
  const auto [serial, parallel] = sm::run_alternating(
      cfg.trials(), [&] { sb::keep(a.crc32c(0)); },
      [&] {
        if (sa::build::crc32c(a, 0) != expected) throw std::runtime_error("parallel crc32c differs from the serial one");
      });
  const double workers = static_cast<double>(sa::runtime::default_pool().size());
  return {Row{"crc32c, one thread", "5 GB/s per core", serial.median, 0, gb_per_s(cfg.bytes, serial),
              gb_per_s(cfg.bytes, serial) / 5, 1, serial.spread()},
          Row{"crc32c, pool / " + std::to_string(static_cast<int>(workers)) + " workers", "5 GB/s per core",
              parallel.median, 0, gb_per_s(cfg.bytes, parallel) / workers, gb_per_s(cfg.bytes, parallel) / workers / 5, 1,
              parallel.spread()}};
}

// Writes one value in every step-th group of a (its first), so those groups are dirty.
void dirty_groups(sa::SmartArray& a, std::uint64_t step, std::uint64_t value) {
  for (std::uint64_t i = 0; i < a.length(); i += step * a.dirty_group_values()) a.init_unchecked(i, value);
}

Row measure_sync(const Config& cfg) {
  sa::os::set_fake_topology("nodes=2");
  const std::uint64_t n = cfg.bytes / 8;
  sa::ArrayOptions o = bits_options(64);
  o.placement = sa::Placement::replicated;
  o.write_mode = sa::WriteMode::primary;
  sa::SmartArray a = sa::build::build_array(n, o, [](std::uint64_t lo, std::uint64_t hi, std::uint64_t* out) {
    for (std::uint64_t i = lo; i < hi; ++i) out[i - lo] = i;
  });
  const auto step = static_cast<std::uint64_t>(1 / cfg.dirty_fraction);
  std::vector<double> partial, full;
  for (int run = 0; run < cfg.trials().warmup + cfg.repetitions; ++run) {
    dirty_groups(a, step, static_cast<std::uint64_t>(run));
    const double p = sm::time_once([&] { sa::build::sync(a); });
    if (!sa::build::replicas_equal(a)) throw std::runtime_error("replicas differ after sync");
    const double f = sm::time_once([&] { parallel_memcpy(a.mutable_replica(1), a.replica(0), a.words_per_replica()); });
    if (run >= cfg.trials().warmup) {
      partial.push_back(p);
      full.push_back(f);
    }
  }
  sa::os::set_fake_topology("");
  const sm::Timing ps = sm::summarize(partial);
  const sm::Timing fs = sm::summarize(full);
  return {"sync, " + std::to_string(100 / step) + "% of groups dirty (fake 2 nodes)", "re-copy (parallel memcpy)",
          ps.median, fs.median, gb_per_s(cfg.bytes / step, ps), fs.median / ps.median, 10, ps.spread()};
}

void print_table(const std::vector<Row>& rows) {
  std::cout << "\nbulk operations on the default pool (" << sa::runtime::default_pool().size()
            << " workers); ratios measured side by side in this run (ratio = baseline time / operation time,\n"
            << "crc32c rows: GB/s per core / 5)\n\n"
            << std::left << std::setw(44) << "operation" << std::setw(30) << "against" << std::right
            << " | median ms | baseline ms |  GB/s  | ratio | target | spread | vs cache decode\n"
            << std::string(150, '-') << "\n"
            << std::fixed << std::setprecision(2);
  for (const Row& r : rows) {
    std::cout << std::left << std::setw(44) << r.name << std::setw(30) << r.against << std::right << " | " << std::setw(9)
              << r.seconds * 1e3 << " | " << std::setw(11) << r.baseline_seconds * 1e3 << " | " << std::setw(6)
              << r.gb_per_s << " | " << std::setw(5) << r.ratio << " | " << std::setw(6) << r.target << " | "
              << std::setw(6) << r.spread << " | ";
    if (r.cache_decode_ratio > 0) {
      std::cout << std::setw(15) << r.cache_decode_ratio;
    } else {
      std::cout << std::setw(15) << "-";
    }
    std::cout << (r.ratio >= r.target ? "" : "  below target") << "\n";
  }
}

sm::Report report(const Config& cfg, const std::vector<Row>& rows) {
  sm::Report report("smartarrays.bench.bulk/1");
  report.fields["benchmark"] = "bulk";
  sm::Json results = {{"bytes", cfg.bytes},
                      {"repetitions", cfg.repetitions},
                      {"workers", sa::runtime::default_pool().size()},
                      {"dirty_fraction", cfg.dirty_fraction},
                      {"rows", sm::Json::array()}};
  for (const Row& r : rows) {
    results["rows"].push_back({{"operation", r.name},
                               {"against", r.against},
                               {"median_s", r.seconds},
                               {"baseline_median_s", r.baseline_seconds},
                               {"gb_per_s", r.gb_per_s},
                               {"ratio", r.ratio},
                               {"target", r.target},
                               {"spread", r.spread},
                               {"vs_cache_resident_decode", r.cache_decode_ratio}});
  }
  report.fields["results"] = results;
  return report;
}

}  // namespace

int main(int argc, char** argv) {
  Config cfg;
  if (const int code = parse(argc, argv, cfg); code >= 0) return code;
  std::cerr << "bench_bulk: arrays of " << (cfg.bytes >> 20) << " MiB at 64 bits, " << cfg.repetitions << " repetitions\n";
  std::vector<Row> rows;
  rows.push_back(measure_same_width_copy(cfg));
  for (const auto& [from, to] : cfg.pairs) rows.push_back(measure_reencoding_copy(cfg, from, to));
  const auto [serial_crc, parallel_crc] = measure_crc(cfg);
  rows.push_back(serial_crc);
  rows.push_back(parallel_crc);
  rows.push_back(measure_sync(cfg));
  print_table(rows);
  const std::string path = sm::result_path(cfg.out_dir, "bulk");
  sm::write_report(report(cfg, rows), path);
  std::cout << "\nJSON: " << path << "\n";
  return 0;
}
