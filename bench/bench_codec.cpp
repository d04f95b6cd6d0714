// Benchmarks the bit-compression kernels single-threaded against their physical limits, measured
// side by side in the same run: L1 unpack vs an L1 copy (the store limit) and a naive bit-by-bit
// decoder; a full scan (decode + sum) of a 512 MiB-class smart array vs a plain std::vector sum
// (the memory-bandwidth ceiling); random get from cache and from DRAM vs plain vector reads.
#include <immintrin.h>

#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/codec/kernels.hpp"

namespace sa = smartarrays;
namespace sb = smartarrays::bench;

namespace {

struct Config {
  std::uint64_t scan_bytes = 512ull << 20;  // size of the 64-bit baseline array
  int repetitions = 5;
  std::string out_dir = "build/bench-results";
  std::vector<unsigned> bits{1, 7, 10, 17, 31, 32, 33, 50, 63, 64};
};

Config parse(int argc, char** argv) {
  Config c;
  const std::string usage =
      "usage: bench_codec [--size-mib N] [--reps R] [--bits b1,b2,...] [--out DIR]\n"
      "  --size-mib N  bytes of the 64-bit scan array in MiB (default 512, at least 1)\n"
      "  --reps R      timed repetitions per measurement, median reported (default 5)\n"
      "  --bits LIST   bit widths to measure (default 1,7,10,17,31,32,33,50,63,64)\n"
      "  --out DIR     where the JSON result goes (default build/bench-results)\n";
  auto positive = [](const std::string& v) {
    const unsigned long long n = std::stoull(v);
    if (n == 0) throw std::invalid_argument("must be positive");
    return n;
  };
  sb::parse_flags(argc, argv, "bench_codec", usage,
                  {{"--size-mib", [&](const std::string& v) { c.scan_bytes = positive(v) << 20; }},
                   {"--reps", [&](const std::string& v) { c.repetitions = static_cast<int>(positive(v)); }},
                   {"--bits", [&](const std::string& v) { c.bits = sb::parse_bits_list(v); }},
                   {"--out", [&](const std::string& v) { c.out_dir = v; }}});
  return c;
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

struct Row {
  unsigned bits = 0;
  double unpack_vps = 0, unpack_vs_store = 0, naive_vps = 0;
  double scan_vps = 0, scan_vs_vector = 0, scan_target = 0, scan_spread = 0;
  double get_cache_ns = 0, get_cache_vs_vector = 0, get_dram_ns = 0, get_dram_vs_vector = 0;
};

std::vector<std::uint64_t> random_values(std::uint64_t n, std::uint64_t seed) {
  std::vector<std::uint64_t> v(n);
  std::mt19937_64 rng(seed);
  for (auto& x : v) x = rng();
  return v;
}

double per_second(std::uint64_t items, const sb::Timing& t) { return static_cast<double>(items) / t.median; }

}  // namespace

int main(int argc, char** argv) {
  const Config cfg = parse(argc, argv);
  const std::uint64_t n = cfg.scan_bytes / 8;
  constexpr std::uint64_t l1_values = 2048;  // 16 KiB decoded: output and input stay in L1
  constexpr std::uint64_t lookups = 1u << 22;

  std::cerr << "bench_codec: kernels " << sa::codec::isa_name(sa::codec::active_isa()) << ", scan array "
            << (cfg.scan_bytes >> 20) << " MiB (" << n << " values), " << cfg.repetitions << " repetitions\n";
  const std::vector<std::uint64_t> base = random_values(n, 42);
  const std::vector<std::uint64_t> cache_indices = [&] {
    std::vector<std::uint64_t> idx = random_values(lookups, 7);
    for (auto& i : idx) i %= l1_values;
    return idx;
  }();
  const std::vector<std::uint64_t> dram_indices = [&] {
    std::vector<std::uint64_t> idx = random_values(lookups, 8);
    for (auto& i : idx) i %= n;
    return idx;
  }();

  // Baselines that do not depend on the bit width, measured once at the start and again at the
  // end; the row ratios use the mean of the two so drift on a shared machine is visible.
  std::vector<std::uint64_t> copy_src = random_values(l1_values, 9), copy_dst(l1_values);
  constexpr int l1_passes = 2000;
  // The store limit is the faster of memcpy and a 32-byte-store loop (when the CPU has AVX2).
  auto measure_store = [&] {
    const sb::Timing with_memcpy = sb::time_it(cfg.repetitions, [&] {
      for (int p = 0; p < l1_passes; ++p) {
        std::memcpy(copy_dst.data(), copy_src.data(), l1_values * 8);
        sb::keep(copy_dst[static_cast<std::size_t>(p) % l1_values]);
      }
    });
    if (!sa::codec::isa_supported(sa::codec::Isa::avx2)) return with_memcpy;
    const sb::Timing with_avx2 = sb::time_it(cfg.repetitions, [&] {
      for (int p = 0; p < l1_passes; ++p) {
        copy_avx2(copy_src.data(), copy_dst.data(), l1_values);
        sb::keep(copy_dst[static_cast<std::size_t>(p) % l1_values]);
      }
    });
    return with_avx2.median < with_memcpy.median ? with_avx2 : with_memcpy;
  };
  auto measure_vector_sum = [&] {
    return sb::time_it(cfg.repetitions, [&] {
      std::uint64_t s = 0;
      for (std::uint64_t v : base) s += v;
      sb::keep(s);
    });
  };
  const sb::Timing store_before = measure_store();
  const sb::Timing vector_before = measure_vector_sum();

  std::vector<Row> rows;
  for (unsigned b : cfg.bits) {
    std::cerr << "  b=" << b << ": building\r" << std::flush;
    Row row;
    row.bits = b;
    const std::uint64_t mask = sa::codec::value_mask(b);

    // L1 unpack through the dispatched kernel, and the naive decoder on the same stream.
    std::vector<std::uint64_t> l1_values_b(l1_values);
    for (std::uint64_t i = 0; i < l1_values; ++i) l1_values_b[i] = copy_src[i] & mask;
    std::vector<std::uint64_t> l1_words(sa::codec::word_count(l1_values, b));
    sa::codec::encode(l1_values_b.data(), l1_values, b, l1_words.data());
    std::vector<std::uint64_t> out(l1_values);
    const sa::codec::Kernels& k = sa::codec::kernels(b);
    const sb::Timing unpack = sb::time_it(cfg.repetitions, [&] {
      for (int p = 0; p < l1_passes; ++p) {
        k.unpack(l1_words.data(), 0, l1_values / 64, out.data());
        sb::keep(out[static_cast<std::size_t>(p) % l1_values]);
      }
    });
    row.unpack_vps = per_second(l1_values * l1_passes, unpack);
    const sb::Timing naive = sb::time_it(1, [&] {
      for (int p = 0; p < 20; ++p) naive_decode(l1_words.data(), b, l1_values, out.data());
      sb::keep(out[0]);
    });
    row.naive_vps = per_second(l1_values * 20, naive);

    // Scan: decode + sum over the big smart array, beside the plain vector sum.
    std::cerr << "  b=" << b << ": scanning\r" << std::flush;
    sa::SmartArray array = [&] {
      std::vector<std::uint64_t> masked(n);
      for (std::uint64_t i = 0; i < n; ++i) masked[i] = base[i] & mask;
      sa::ArrayOptions o;
      o.bits = b;
      return sa::SmartArray::from_values(masked, o);
    }();
    const sb::Timing scan = sb::time_it(cfg.repetitions, [&] { sb::keep(array.sum()); });
    const sb::Timing vector_sum = measure_vector_sum();
    row.scan_vps = per_second(n, scan);
    row.scan_vs_vector = vector_sum.median / scan.median;
    row.scan_spread = scan.spread();
    row.scan_target = b == 64 ? 0.95 : (b >= 17 ? 0.85 * 64.0 / b : 0);

    // Random get through the statically-typed view, beside plain vector reads of the same indices.
    std::cerr << "  b=" << b << ": random get\r" << std::flush;
    sa::SmartArray small = [&] {
      sa::ArrayOptions o;
      o.bits = b;
      return sa::SmartArray::from_values(l1_values_b, o);
    }();
    const std::vector<std::uint64_t>& small_vector = l1_values_b;
    auto lookup = [&](const auto& get, const std::vector<std::uint64_t>& idx) {
      std::uint64_t s = 0;
      for (std::uint64_t i : idx) s += get(i);
      sb::keep(s);
    };
    sa::codec::with_bits(b, [&](auto width) {
      constexpr unsigned B = decltype(width)::value;
      const auto small_view = small.view<B>();
      const auto big_view = array.view<B>();
      const sb::Timing g_cache = sb::time_it(cfg.repetitions, [&] {
        lookup([&](std::uint64_t i) { return small_view.get(i); }, cache_indices);
      });
      const sb::Timing v_cache = sb::time_it(cfg.repetitions, [&] {
        lookup([&](std::uint64_t i) { return small_vector[i]; }, cache_indices);
      });
      const sb::Timing g_dram = sb::time_it(cfg.repetitions, [&] {
        lookup([&](std::uint64_t i) { return big_view.get(i); }, dram_indices);
      });
      const sb::Timing v_dram = sb::time_it(cfg.repetitions, [&] {
        lookup([&](std::uint64_t i) { return base[i]; }, dram_indices);
      });
      row.get_cache_ns = g_cache.median / lookups * 1e9;
      row.get_cache_vs_vector = v_cache.median / g_cache.median;
      row.get_dram_ns = g_dram.median / lookups * 1e9;
      row.get_dram_vs_vector = v_dram.median / g_dram.median;
    });
    rows.push_back(row);
    std::cerr << "                                   \r";
  }

  const sb::Timing store_after = measure_store();
  const sb::Timing vector_after = measure_vector_sum();
  const double store_vps = (per_second(l1_values * l1_passes, store_before) + per_second(l1_values * l1_passes, store_after)) / 2;
  const double vector_vps = (per_second(n, vector_before) + per_second(n, vector_after)) / 2;
  for (Row& r : rows) r.unpack_vs_store = r.unpack_vps / store_vps;

  std::cout << "\nbit-compression kernels (" << sa::codec::isa_name(sa::codec::active_isa())
            << "), single thread; ratios are measured side by side in this run\n"
            << "store limit (L1 copy): " << std::fixed << std::setprecision(2) << store_vps / 1e9
            << " G words/s   plain vector sum: " << vector_vps / 1e9 << " G values/s ("
            << vector_vps * 8 / 1e9 << " GB/s)\n\n";
  std::cout << " bits | L1 unpack | /store | naive  | scan     | /vector | target | spread | get L1 | /vector | get DRAM | /vector\n"
            << "      |  G val/s  |        | G v/s  | G val/s  |         |        |        |   ns   |         |    ns    |\n"
            << "------+-----------+--------+--------+----------+---------+--------+--------+--------+---------+----------+--------\n";
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
              << std::setw(6) << r.get_dram_vs_vector << "\n";
  }

  std::ostringstream json;
  json << "{\"scan_values\": " << n << ", \"repetitions\": " << cfg.repetitions << ", \"store_limit_words_per_s\": "
       << store_vps << ", \"vector_sum_values_per_s\": " << vector_vps << ", \"rows\": [";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    json << (i ? ", " : "") << "{\"bits\": " << r.bits << ", \"l1_unpack_values_per_s\": " << r.unpack_vps
         << ", \"l1_unpack_vs_store\": " << r.unpack_vs_store << ", \"naive_values_per_s\": " << r.naive_vps
         << ", \"scan_values_per_s\": " << r.scan_vps << ", \"scan_vs_vector\": " << r.scan_vs_vector
         << ", \"scan_target\": " << r.scan_target << ", \"scan_spread\": " << r.scan_spread
         << ", \"get_cache_ns\": " << r.get_cache_ns << ", \"get_cache_vs_vector\": " << r.get_cache_vs_vector
         << ", \"get_dram_ns\": " << r.get_dram_ns << ", \"get_dram_vs_vector\": " << r.get_dram_vs_vector << "}";
  }
  json << "]}";
  std::cout << "\nJSON: " << sb::write_result_file(cfg.out_dir, "codec", json.str()) << "\n";
  return 0;
}
