// Benchmarks the bit-compression kernels single-threaded against their physical limits, measured
// side by side in the same run: L1 unpack vs an L1 copy (the store limit) and a naive bit-by-bit
// decoder; a full scan (decode + sum) of a 512 MiB-class smart array vs a plain std::vector sum
// (the memory-bandwidth ceiling); random get from cache and from DRAM vs plain vector reads; the
// per-replica CRC32C of the big array (GB/s on one core); L1 pack through the scalar and the AVX2
// kernels, alternating, as a ratio.
#include <immintrin.h>

#include <cstring>
#include <iomanip>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "measure/report.hpp"
#include "measure/timing.hpp"
#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/codec/kernels.hpp"

namespace sa = smartarrays;
namespace sb = smartarrays::bench;
namespace sm = smartarrays::measure;

namespace {

constexpr std::uint64_t l1_values = 2048;  // 16 KiB decoded: output and input stay in L1
constexpr std::uint64_t lookups = 1u << 22;
constexpr int l1_passes = 2000;

struct Config {
  std::uint64_t scan_bytes = 512ull << 20;  // size of the 64-bit baseline array
  int repetitions = 5;
  std::string out_dir = sb::default_out_dir;
  std::vector<unsigned> bits{1, 7, 10, 17, 31, 32, 33, 50, 63, 64};
  /// One warm-up run, then the timed repetitions.
  sm::Trials trials() const { return {.warmup = 1, .repetitions = repetitions}; }
};

int parse(int argc, char** argv, Config& c) {
  CLI::App app("Benchmarks the bit-compression kernels single-threaded against their physical limits.", "bench_codec");
  std::uint64_t size_mib = c.scan_bytes >> 20;
  app.add_option("--size-mib", size_mib, "bytes of the 64-bit scan array in MiB (default 512)")->check(CLI::Range(1, 1 << 20));
  app.add_option("--reps", c.repetitions, "timed repetitions per measurement, median reported (default 5)")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--bits", c.bits, "bit widths to measure (default 1,7,10,17,31,32,33,50,63,64)")
      ->delimiter(',')
      ->check(CLI::Range(1, 64));
  app.add_option("--out", c.out_dir, "where the JSON result goes (default build/bench-results)");
  const int code = sb::parse_command_line(app, argc, argv);
  c.scan_bytes = size_mib << 20;
  return code;
}

// An L1 copy with 32-byte stores: together with memcpy, the store limit the unpack kernels face.
__attribute__((target("avx2"))) void copy_avx2(const std::uint64_t* src, std::uint64_t* dst, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; i += 4) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i)));
  }
}

// The naive baseline: one bit at a time, no word-level tricks.
void naive_decode(const std::uint64_t* words, unsigned bits, std::uint64_t n, std::uint64_t* out) {
  for (std::uint64_t i = 0; i < n; ++i) {
    std::uint64_t v = 0;
    for (unsigned k = 0; k < bits; ++k) {
      const std::uint64_t bit = i * bits + k;
      v |= ((words[bit >> 6] >> (bit & 63)) & 1u) << k;
    }
    out[i] = v;
  }
}

std::vector<std::uint64_t> random_values(std::uint64_t n, std::uint64_t seed) {
  std::vector<std::uint64_t> v(n);
  std::mt19937_64 rng(seed);
  for (auto& x : v) x = rng();
  return v;
}

std::vector<std::uint64_t> random_indices(std::uint64_t seed, std::uint64_t below) {
  std::vector<std::uint64_t> idx = random_values(lookups, seed);
  for (auto& i : idx) i %= below;
  return idx;
}

double per_second(std::uint64_t items, const sm::Timing& t) { return static_cast<double>(items) / t.median; }

// The inputs every row reads.
struct Data {
  std::uint64_t n;                           // values of the scan array
  std::vector<std::uint64_t> base;           // the 64-bit scan array
  std::vector<std::uint64_t> cache_indices;  // random indices below l1_values
  std::vector<std::uint64_t> dram_indices;   // random indices below n
  std::vector<std::uint64_t> copy_src, copy_dst;
};

Data make_data(const Config& cfg) {
  const std::uint64_t n = cfg.scan_bytes / 8;
  return {n, random_values(n, 42), random_indices(7, l1_values), random_indices(8, n), random_values(l1_values, 9),
          std::vector<std::uint64_t>(l1_values)};
}

// The store limit: the faster of memcpy and a 32-byte-store loop (when the CPU has AVX2).
sm::Timing measure_store(const Config& cfg, Data& d) {
  const sm::Timing with_memcpy = sm::run_trials(cfg.trials(), [&] {
    for (int p = 0; p < l1_passes; ++p) {
      std::memcpy(d.copy_dst.data(), d.copy_src.data(), l1_values * 8);
      sb::keep(d.copy_dst[static_cast<std::size_t>(p) % l1_values]);
    }
  });
  if (!sa::codec::isa_supported(sa::codec::Isa::avx2)) return with_memcpy;
  const sm::Timing with_avx2 = sm::run_trials(cfg.trials(), [&] {
    for (int p = 0; p < l1_passes; ++p) {
      copy_avx2(d.copy_src.data(), d.copy_dst.data(), l1_values);
      sb::keep(d.copy_dst[static_cast<std::size_t>(p) % l1_values]);
    }
  });
  return with_avx2.median < with_memcpy.median ? with_avx2 : with_memcpy;
}

sm::Timing measure_vector_sum(const Config& cfg, const Data& d) {
  return sm::run_trials(cfg.trials(), [&] {
    std::uint64_t s = 0;
    for (std::uint64_t v : d.base) s += v;
    sb::keep(s);
  });
}

struct Row {
  unsigned bits = 0;
  double unpack_vps = 0, unpack_vs_store = 0, naive_vps = 0;
  double scan_vps = 0, scan_vs_vector = 0, scan_target = 0, scan_spread = 0;
  double get_cache_ns = 0, get_cache_vs_vector = 0, get_dram_ns = 0, get_dram_vs_vector = 0;
  double crc_gb_per_s = 0;
  double pack_scalar_vps = 0, pack_avx2_vps = 0, pack_avx2_vs_scalar = 0;  // avx2 0 when the CPU lacks it
};

// L1 unpack through the dispatched kernel, and the naive decoder on the same stream.
void measure_unpack(const Config& cfg, const std::vector<std::uint64_t>& values, Row& row) {
  std::vector<std::uint64_t> words(sa::codec::word_count(l1_values, row.bits));
  sa::codec::encode(values.data(), l1_values, row.bits, words.data());
  std::vector<std::uint64_t> out(l1_values);
  const sa::codec::Kernels& k = sa::codec::kernels(row.bits);
  const sm::Timing unpack = sm::run_trials(cfg.trials(), [&] {
    for (int p = 0; p < l1_passes; ++p) {
      k.unpack(words.data(), 0, l1_values / 64, out.data());
      sb::keep(out[static_cast<std::size_t>(p) % l1_values]);
    }
  });
  row.unpack_vps = per_second(l1_values * l1_passes, unpack);
  const sm::Timing naive = sm::run_trials({.warmup = 1, .repetitions = 1}, [&] {
    for (int p = 0; p < 20; ++p) naive_decode(words.data(), row.bits, l1_values, out.data());
    sb::keep(out[0]);
  });
  row.naive_vps = per_second(l1_values * 20, naive);
}

// L1 pack (values in L1 into words in L1) through the scalar kernels and, when the CPU has them,
// the AVX2 ones, alternating run by run; both must produce the same words.
void measure_pack(const Config& cfg, const std::vector<std::uint64_t>& values, Row& row) {
  std::vector<std::uint64_t> words(sa::codec::word_count(l1_values, row.bits));
  auto timed_pack = [&](const sa::codec::Kernels& k) {
    return [&words, &values, &k] {
      for (int p = 0; p < l1_passes; ++p) {
        k.pack(values.data(), 0, l1_values / 64, words.data());
        sb::keep(words[static_cast<std::size_t>(p) % words.size()]);
      }
    };
  };
  const sa::codec::Kernels& scalar = sa::codec::kernels(row.bits, sa::codec::Isa::scalar);
  // Thread CPU time: a run of a few milliseconds preempted by another process on a shared machine
  // would otherwise count that process's time (one side of the ratio far more often than the other).
  sm::Trials trials = cfg.trials();
  trials.clock = sm::Clock::thread_cpu;
  if (!sa::codec::isa_supported(sa::codec::Isa::avx2)) {
    row.pack_scalar_vps = per_second(l1_values * l1_passes, sm::run_round_robin(trials, {timed_pack(scalar)})[0]);
    return;
  }
  const sa::codec::Kernels& avx2 = sa::codec::kernels(row.bits, sa::codec::Isa::avx2);
  const auto [by_scalar, by_avx2] = sm::run_alternating(trials, timed_pack(scalar), timed_pack(avx2));
  std::vector<std::uint64_t> expected(words.size());
  scalar.pack(values.data(), 0, l1_values / 64, expected.data());
  if (words != expected) throw std::runtime_error("the AVX2 pack differs from the scalar pack at " + std::to_string(row.bits) + " bits");
  row.pack_scalar_vps = per_second(l1_values * l1_passes, by_scalar);
  row.pack_avx2_vps = per_second(l1_values * l1_passes, by_avx2);
  row.pack_avx2_vs_scalar = by_scalar.median / by_avx2.median;
}

// Scan (decode + sum) of the big smart array, beside the plain vector sum.
void measure_scan(const Config& cfg, const Data& d, const sa::SmartArray& array, Row& row) {
  const sm::Timing scan = sm::run_trials(cfg.trials(), [&] { sb::keep(array.sum()); });
  const sm::Timing vector_sum = measure_vector_sum(cfg, d);
  row.scan_vps = per_second(d.n, scan);
  row.scan_vs_vector = vector_sum.median / scan.median;
  row.scan_spread = scan.spread();
  row.scan_target = row.bits == 64 ? 0.95 : (row.bits >= 17 ? 0.85 * 64.0 / row.bits : 0);
}

// Random get through the statically-typed view, beside plain vector reads of the same indices.
void measure_get(const Config& cfg, const Data& d, const sa::SmartArray& small, const std::vector<std::uint64_t>& small_vector,
                 const sa::SmartArray& big, Row& row) {
  auto lookup = [&](const auto& get, const std::vector<std::uint64_t>& idx) {
    std::uint64_t s = 0;
    for (std::uint64_t i : idx) s += get(i);
    sb::keep(s);
  };
  sa::codec::with_bits(row.bits, [&](auto width) {
    constexpr unsigned B = decltype(width)::value;
    const auto small_view = small.view<B>();
    const auto big_view = big.view<B>();
    auto timed = [&](auto get, const std::vector<std::uint64_t>& idx) {
      return sm::run_trials(cfg.trials(), [&] { lookup(get, idx); });
    };
    const sm::Timing g_cache = timed([&](std::uint64_t i) { return small_view.get(i); }, d.cache_indices);
    const sm::Timing v_cache = timed([&](std::uint64_t i) { return small_vector[i]; }, d.cache_indices);
    const sm::Timing g_dram = timed([&](std::uint64_t i) { return big_view.get(i); }, d.dram_indices);
    const sm::Timing v_dram = timed([&](std::uint64_t i) { return d.base[i]; }, d.dram_indices);
    row.get_cache_ns = g_cache.median / lookups * 1e9;
    row.get_cache_vs_vector = v_cache.median / g_cache.median;
    row.get_dram_ns = g_dram.median / lookups * 1e9;
    row.get_dram_vs_vector = v_dram.median / g_dram.median;
  });
}

sa::SmartArray array_of(const std::vector<std::uint64_t>& values, unsigned bits) {
  sa::ArrayOptions o;
  o.bits = bits;
  return sa::SmartArray::from_values(values, o);
}

Row measure_row(const Config& cfg, const Data& d, unsigned b) {
  std::cerr << "  b=" << b << ": building\r" << std::flush;
  Row row;
  row.bits = b;
  const std::uint64_t mask = sa::codec::value_mask(b);
  std::vector<std::uint64_t> small_values(l1_values);
  for (std::uint64_t i = 0; i < l1_values; ++i) small_values[i] = d.copy_src[i] & mask;
  measure_unpack(cfg, small_values, row);
  measure_pack(cfg, small_values, row);
  std::cerr << "  b=" << b << ": scanning\r" << std::flush;
  const sa::SmartArray big = [&] {
    std::vector<std::uint64_t> masked(d.n);
    for (std::uint64_t i = 0; i < d.n; ++i) masked[i] = d.base[i] & mask;
    return array_of(masked, b);
  }();
  measure_scan(cfg, d, big, row);
  const sm::Timing crc = sm::run_trials(cfg.trials(), [&] { sb::keep(big.crc32c(0)); });
  row.crc_gb_per_s = static_cast<double>(big.words_per_replica() * 8) / crc.median / 1e9;
  std::cerr << "  b=" << b << ": random get\r" << std::flush;
  measure_get(cfg, d, array_of(small_values, b), small_values, big, row);
  std::cerr << "                                   \r";
  return row;
}

// The width-independent limits, measured at the start and again at the end: the rows use the
// mean of the two so drift on a shared machine is visible.
struct Limits {
  double store_words_per_s = 0;
  double vector_values_per_s = 0;
};

void print_table(const std::vector<Row>& rows, const Limits& limits) {
  std::cout << "\nbit-compression kernels (" << sa::codec::isa_name(sa::codec::active_isa())
            << "), single thread; ratios are measured side by side in this run\n"
            << "store limit (L1 copy): " << std::fixed << std::setprecision(2) << limits.store_words_per_s / 1e9
            << " G words/s   plain vector sum: " << limits.vector_values_per_s / 1e9 << " G values/s ("
            << limits.vector_values_per_s * 8 / 1e9 << " GB/s)\n\n";
  std::cout << " bits | L1 unpack | /store | naive  | scan     | /vector | target | spread | get L1 | /vector | get DRAM | /vector | crc32c | pack scalar | pack avx2 | avx2/scalar\n"
            << "      |  G val/s  |        | G v/s  | G val/s  |         |        |        |   ns   |         |    ns    |         |  GB/s  |   G val/s   |  G val/s  |\n"
            << "------+-----------+--------+--------+----------+---------+--------+--------+--------+---------+----------+---------+--------+-------------+-----------+------------\n";
  for (const Row& r : rows) {
    std::cout << std::setw(5) << r.bits << " | " << std::setw(9) << r.unpack_vps / 1e9 << " | " << std::setw(6)
              << r.unpack_vs_store << " | " << std::setw(6) << r.naive_vps / 1e9 << " | " << std::setw(8)
              << r.scan_vps / 1e9 << " | " << std::setw(7) << r.scan_vs_vector << " | " << std::setw(6);
    if (r.scan_target > 0) {
      std::cout << r.scan_target;
    } else {
      std::cout << "-";
    }
    std::cout << " | " << std::setw(6) << r.scan_spread << " | " << std::setw(6) << r.get_cache_ns << " | "
              << std::setw(7) << r.get_cache_vs_vector << " | " << std::setw(8) << r.get_dram_ns << " | "
              << std::setw(7) << r.get_dram_vs_vector << " | " << std::setw(6) << r.crc_gb_per_s << " | " << std::setw(11)
              << r.pack_scalar_vps / 1e9 << " | ";
    if (r.pack_avx2_vps > 0) {
      std::cout << std::setw(9) << r.pack_avx2_vps / 1e9 << " | " << std::setw(11) << r.pack_avx2_vs_scalar << "\n";
    } else {
      std::cout << std::setw(9) << "-" << " | " << std::setw(11) << "-" << "\n";
    }
  }
}

sm::Report report(const Config& cfg, const Data& d, const std::vector<Row>& rows, const Limits& limits) {
  sm::Report report("smartarrays.bench.codec/1");
  report.fields["benchmark"] = "codec";
  sm::Json results = {{"scan_values", d.n},
                      {"repetitions", cfg.repetitions},
                      {"store_limit_words_per_s", limits.store_words_per_s},
                      {"vector_sum_values_per_s", limits.vector_values_per_s},
                      {"rows", sm::Json::array()}};
  for (const Row& r : rows) {
    results["rows"].push_back({{"bits", r.bits},
                               {"l1_unpack_values_per_s", r.unpack_vps},
                               {"l1_unpack_vs_store", r.unpack_vs_store},
                               {"naive_values_per_s", r.naive_vps},
                               {"scan_values_per_s", r.scan_vps},
                               {"scan_vs_vector", r.scan_vs_vector},
                               {"scan_target", r.scan_target},
                               {"scan_spread", r.scan_spread},
                               {"get_cache_ns", r.get_cache_ns},
                               {"get_cache_vs_vector", r.get_cache_vs_vector},
                               {"get_dram_ns", r.get_dram_ns},
                               {"get_dram_vs_vector", r.get_dram_vs_vector},
                               {"crc32c_gb_per_s", r.crc_gb_per_s},
                               {"l1_pack_scalar_values_per_s", r.pack_scalar_vps},
                               {"l1_pack_avx2_values_per_s", r.pack_avx2_vps},
                               {"l1_pack_avx2_vs_scalar", r.pack_avx2_vs_scalar}});
  }
  report.fields["results"] = results;
  return report;
}

}  // namespace

int main(int argc, char** argv) {
  Config cfg;
  if (const int code = parse(argc, argv, cfg); code >= 0) return code;
  std::cerr << "bench_codec: kernels " << sa::codec::isa_name(sa::codec::active_isa()) << ", scan array "
            << (cfg.scan_bytes >> 20) << " MiB (" << cfg.scan_bytes / 8 << " values), " << cfg.repetitions
            << " repetitions\n";
  Data data = make_data(cfg);
  const sm::Timing store_before = measure_store(cfg, data);
  const sm::Timing vector_before = measure_vector_sum(cfg, data);
  std::vector<Row> rows;
  for (unsigned b : cfg.bits) rows.push_back(measure_row(cfg, data, b));
  const sm::Timing store_after = measure_store(cfg, data);
  const sm::Timing vector_after = measure_vector_sum(cfg, data);
  const std::uint64_t stored = l1_values * l1_passes;
  const Limits limits{(per_second(stored, store_before) + per_second(stored, store_after)) / 2,
                      (per_second(data.n, vector_before) + per_second(data.n, vector_after)) / 2};
  for (Row& r : rows) r.unpack_vs_store = r.unpack_vps / limits.store_words_per_s;
  print_table(rows, limits);
  const std::string path = sm::result_path(cfg.out_dir, "codec");
  sm::write_report(report(cfg, data, rows, limits), path);
  std::cout << "\nJSON: " << path << "\n";
  return 0;
}
