// Benchmarks live re-layout (build::LiveArray) against its target, measured side by side in one
// run: two reader threads pin the array, decode blocks and check every value against its generator,
// in windows that alternate between "a relayout runs" and "nothing else runs" (each quiet window as
// long as the relayout window before it); their throughput during relayouts must stay >= 50% of
// the quiet one, with no wrong value. Also times a partition-aware loop (LoopOptions::layout = the
// stripes) against the weighted split over the same partitioned arrays on a fake 2-node topology:
// on a one-node machine that shows the mechanism's cost, not a locality gain.
#include <atomic>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "bench_support.hpp"
#include "measure/report.hpp"
#include "measure/timing.hpp"
#include "smartarrays/build/live_array.hpp"
#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/os/topology.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace sa = smartarrays;
namespace sb = smartarrays::bench;
namespace sm = smartarrays::measure;
namespace rt = smartarrays::runtime;

namespace {

struct Config {
  std::uint64_t mib = 1024;            // size of the array at 64 bits
  int repetitions = 5;                 // relayout windows (each followed by a quiet one)
  std::size_t relayout_threads = 1;    // workers of the pool that re-lays out
  std::uint64_t loop_mib = 256;        // the partition-aware loop's arrays, at 64 bits
  std::string out_dir = sb::default_out_dir;
};

int parse(int argc, char** argv, Config& c) {
  CLI::App app("Benchmarks live re-layout: reader throughput during relayouts vs without.", "bench_relayout");
  app.add_option("--mib", c.mib, "MiB of the array at 64 bits (default 1024)")->check(CLI::Range(1, 1 << 20));
  app.add_option("--reps", c.repetitions, "relayout windows, each followed by a quiet one (default 5)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--relayout-threads", c.relayout_threads, "workers of the relayout pool (default 1)")
      ->check(CLI::Range(1, 4096));
  app.add_option("--loop-mib", c.loop_mib, "MiB of each partition-aware loop array at 64 bits (default 256)")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--out", c.out_dir, "where the JSON result goes (default build/bench-results)");
  return sb::parse_command_line(app, argc, argv);
}

// The value at index i: below 2^27, so the fewest bits is 27 and every width from 27 to 64 holds it.
std::uint64_t value_at(std::uint64_t i) { return (i * 0x9E3779B97F4A7C15ull >> 37); }

// Values per reader block: 32 KiB of decoded values, the block pinned once.
constexpr std::uint64_t block = 4096;

// One window: two readers verify blocks until stop; returns values verified per second per reader
// (the slower reader's, so neither may starve), and counts wrong values.
struct Window {
  double slower_rate = 0;
  double seconds = 0;
};

template <typename During>
Window read_while(const sa::build::LiveArray& live, std::atomic<std::uint64_t>& wrong, During&& during) {
  std::atomic<bool> stop{false};
  std::uint64_t counts[2] = {0, 0};
  auto reader = [&](int k) {
    std::vector<std::uint64_t> buffer(block);
    const std::uint64_t n = live.length();
    std::uint64_t start = (n / 2) * static_cast<std::uint64_t>(k) / block * block;
    std::uint64_t bad = 0;
    while (!stop.load(std::memory_order_relaxed)) {
      const std::uint64_t count = std::min(block, n - start);
      const sa::build::LiveArray::Snapshot snapshot = live.pin();
      snapshot->decode(start, count, buffer.data());
      for (std::uint64_t j = 0; j < count; ++j) bad += buffer[j] != value_at(start + j) ? 1 : 0;
      counts[k] += count;
      start = start + count >= n ? 0 : start + count;
    }
    wrong += bad;
  };
  const double seconds = sm::time_once([&] {
    std::thread a(reader, 0);
    std::thread b(reader, 1);
    during();
    stop.store(true, std::memory_order_relaxed);
    a.join();
    b.join();
  });
  return {static_cast<double>(std::min(counts[0], counts[1])) / seconds, seconds};
}

struct Relayout {
  std::vector<double> during, quiet, relayout_seconds;
  std::uint64_t wrong = 0;
  std::uint64_t versions = 0;
};

Relayout measure_relayout(const Config& cfg) {
  const std::uint64_t n = cfg.mib << 17;  // 64-bit values
  rt::ThreadPool pool(rt::PoolOptions{.threads = cfg.relayout_threads});
  sa::ArrayOptions start;
  start.bits = 64;
  sa::build::LiveArray live(sa::build::build_array(
      n, start, [](std::uint64_t lo, std::uint64_t hi, std::uint64_t* out) {
        for (std::uint64_t i = lo; i < hi; ++i) out[i - lo] = value_at(i);
      }, pool));
  // Layouts cycled through: width changes (64 <-> fewest) and placement changes on this machine.
  std::vector<sa::ArrayOptions> layouts(4);
  layouts[0].bits = 0;
  layouts[1].placement = sa::Placement::interleaved;
  layouts[1].bits = 64;
  layouts[2].placement = sa::Placement::partitioned;
  layouts[2].bits = 32;
  layouts[3].bits = 64;
  std::atomic<std::uint64_t> wrong{0};
  Relayout r;
  for (int rep = 0; rep <= cfg.repetitions; ++rep) {  // rep 0 warms up
    double relayout_s = 0;
    const Window during = read_while(live, wrong, [&] {
      relayout_s = sm::time_once([&] { live.relayout(layouts[static_cast<std::size_t>(rep) % layouts.size()], pool); });
    });
    const Window quiet = read_while(live, wrong, [&] {
      std::this_thread::sleep_for(std::chrono::duration<double>(during.seconds));
    });
    if (rep == 0) continue;
    r.during.push_back(during.slower_rate);
    r.quiet.push_back(quiet.slower_rate);
    r.relayout_seconds.push_back(relayout_s);
    std::cerr << "relayout window " << rep << ": " << relayout_s << " s\n";
  }
  r.wrong = wrong.load();
  r.versions = live.version();
  return r;
}

// A partitioned loop's sum with the stripes as its layout vs the weighted split, on fake nodes=2.
struct Loops {
  sm::Timing aware, split;
  bool sums_agree = false;
};

Loops measure_loops(const Config& cfg) {
  sa::os::set_fake_topology("nodes=2");
  Loops l;
  {
    rt::ThreadPool pool(rt::PoolOptions{.threads = 2});
    sa::ArrayOptions options;
    options.placement = sa::Placement::partitioned;
    options.bits = 64;
    const std::uint64_t n = cfg.loop_mib << 17;
    const sa::SmartArray array = sa::build::build_array(
        n, options, [](std::uint64_t lo, std::uint64_t hi, std::uint64_t* out) {
          for (std::uint64_t i = lo; i < hi; ++i) out[i - lo] = value_at(i);
        }, pool);
    auto sum = [&](const rt::LoopOptions& loop) {
      return pool.parallel_reduce(
          0, n, std::uint64_t{0}, [&](std::uint64_t lo, std::uint64_t hi) { return array.sum(lo, hi - lo); },
          [](std::uint64_t a, std::uint64_t b) { return a + b; }, loop);
    };
    rt::LoopOptions aware;
    aware.layout = sa::build::stripe_parts(array);
    l.sums_agree = sum(aware) == sum({});
    std::tie(l.aware, l.split) = sm::run_alternating({.warmup = 1, .repetitions = cfg.repetitions * 2},
                                                      [&] { sb::keep(sum(aware)); }, [&] { sb::keep(sum({})); });
  }
  sa::os::set_fake_topology("");
  return l;
}

double median_of(std::vector<double> values) { return sm::summarize(std::move(values)).median; }

}  // namespace

int main(int argc, char** argv) {
  Config cfg;
  if (const int code = parse(argc, argv, cfg); code >= 0) return code;
  const Relayout r = measure_relayout(cfg);
  const Loops loops = measure_loops(cfg);

  const sm::Timing during = sm::summarize(r.during);
  const sm::Timing quiet = sm::summarize(r.quiet);
  std::vector<double> kept;
  for (std::size_t k = 0; k < r.during.size(); ++k) kept.push_back(r.during[k] / r.quiet[k]);
  const double keep_ratio = median_of(kept);
  const bool met = keep_ratio >= 0.5 && r.wrong == 0;
  const double loop_ratio = loops.split.median / loops.aware.median;

  std::printf("\nbench_relayout: %llu MiB array (64-bit), 2 readers verifying every value, relayout pool of %zu, "
              "%d windows (median)\n",
              static_cast<unsigned long long>(cfg.mib), cfg.relayout_threads, cfg.repetitions);
  std::printf("\n window | relayout s | reader Mvalues/s during | quiet | kept\n");
  std::printf("--------+------------+-------------------------+-------+------\n");
  for (std::size_t k = 0; k < r.during.size(); ++k) {
    std::printf(" %6zu | %10.3f | %23.1f | %5.1f | %3.0f%%\n", k + 1, r.relayout_seconds[k], r.during[k] / 1e6,
                r.quiet[k] / 1e6, kept[k] * 100);
  }
  std::printf("\n%-62s | %-7s | %8s | %6s | %s\n", "ratio", "target", "measured", "spread", "met");
  std::printf("%s\n", std::string(100, '-').c_str());
  std::printf("%-62s | %-7s | %8.3f | %5.1f%% | %s\n", "reader throughput during relayout / without (slower reader)",
              ">= 0.50", keep_ratio, std::max(during.spread(), quiet.spread()) * 100, met ? "yes" : "NO");
  std::printf("%-62s | %-7s | %8llu | %6s | %s\n", "wrong values read", "0", static_cast<unsigned long long>(r.wrong),
              "", r.wrong == 0 ? "yes" : "NO");
  std::printf("%-62s | %-7s | %8.3f | %5.1f%% | %s\n", "partition-aware loop vs weighted split (speed, fake 2 nodes)",
              "info", loop_ratio, std::max(loops.aware.spread(), loops.split.spread()) * 100,
              loops.sums_agree ? "sums agree" : "SUMS DIFFER");

  sm::Json results;
  results["array_mib"] = cfg.mib;
  results["relayout_threads"] = cfg.relayout_threads;
  results["windows"] = sm::Json::array();
  for (std::size_t k = 0; k < r.during.size(); ++k) {
    results["windows"].push_back({{"relayout_s", r.relayout_seconds[k]},
                                  {"reader_values_per_s_during", r.during[k]},
                                  {"reader_values_per_s_quiet", r.quiet[k]}});
  }
  results["kept_ratio"] = keep_ratio;
  results["wrong_values"] = r.wrong;
  results["versions"] = r.versions;
  results["target_met"] = met;
  results["partition_aware_loop"] = {{"array_mib", cfg.loop_mib},
                                     {"aware", sm::timing_json(loops.aware)},
                                     {"weighted_split", sm::timing_json(loops.split)},
                                     {"speed_ratio", loop_ratio},
                                     {"sums_agree", loops.sums_agree}};
  sm::Report report("smartarrays.bench.relayout/1");
  report.fields["benchmark"] = "bench_relayout";
  report.fields["results"] = results;
  const std::string path = sm::result_path(cfg.out_dir, "bench_relayout");
  sm::write_report(report, path);
  std::printf("\nresults: %s\n", path.c_str());
  return r.wrong == 0 && loops.sums_agree ? 0 : 1;
}
