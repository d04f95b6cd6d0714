// Benchmarks the start overhead of `smartarrays run` (target: < 2 ms per start): a trivial program
// started directly, through `smartarrays run` with no knob, and through it with every knob
// (allocator, interleave, sparse pinning, threads, THP off), alternated so all three see the same
// load; each trial starts the program --starts times and reports the wall time per start and the
// CPU time (user + system, from wait4) per start: on a loaded machine the wall time is mostly
// waiting for a CPU, the CPU time is what the launcher itself costs.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "measure/report.hpp"
#include "measure/timing.hpp"
#include "smartarrays/tune/spawn.hpp"

namespace sb = smartarrays::bench;
namespace sm = smartarrays::measure;
namespace tune = smartarrays::tune;

namespace {

struct Config {
  int starts = 100;  // program starts per timed trial
  int repetitions = 7;
  std::string program = "/bin/true";
  std::string cli;  // the smartarrays command; default: next to this program
  std::string allocator = "jemalloc";
  std::string out_dir = sb::default_out_dir;
};

int parse(int argc, char** argv, Config& c) {
  CLI::App app("Benchmarks the start overhead of `smartarrays run` (target < 2 ms per start).", "bench_run");
  app.add_option("--starts", c.starts, "program starts per timed trial (default 100)")->check(CLI::Range(1, 100000));
  app.add_option("--reps", c.repetitions, "timed trials, median reported (default 7)")->check(CLI::Range(1, 10000));
  app.add_option("--program", c.program, "the program started (default /bin/true)");
  app.add_option("--cli", c.cli, "the smartarrays command (default: bin/smartarrays next to this program)");
  app.add_option("--allocator", c.allocator, "the allocator of the all-knobs case (default jemalloc)");
  app.add_option("--out", c.out_dir, "where the JSON result goes (default build/bench-results)");
  const int code = sb::parse_command_line(app, argc, argv);
  if (c.cli.empty()) c.cli = (std::filesystem::read_symlink("/proc/self/exe").parent_path() / "smartarrays").string();
  return code;
}

// Starts argv `starts` times and fails loudly when a start does not succeed; adds the children's
// CPU seconds to cpu.
void start_many(const std::vector<std::string>& argv, int starts, std::vector<double>& cpu) {
  double seconds = 0;
  for (int i = 0; i < starts; ++i) {
    const tune::ChildRun run = tune::run_child({}, argv, 0, false);
    if (!run.succeeded()) {
      throw std::runtime_error(argv[0] + " did not succeed: " + tune::describe_end(run, 0));
    }
    seconds += run.cpu_seconds;
  }
  cpu.push_back(seconds);
}

}  // namespace

int main(int argc, char** argv) {
  Config cfg;
  if (const int code = parse(argc, argv, cfg); code >= 0) return code;
  const std::vector<std::string> direct{cfg.program};
  const std::vector<std::string> plain{cfg.cli, "run", "--", cfg.program};
  const std::vector<std::string> knobs{cfg.cli,      "run",        "--allocator", cfg.allocator, "--policy", "interleave",
                                       "--pinning", "sparse",     "--threads",   "2",           "--thp",    "off",
                                       "--",        cfg.program};
  try {
    const sm::Trials trials{.warmup = 1, .repetitions = cfg.repetitions};
    std::vector<double> direct_cpu, plain_cpu, knobs_cpu;  // warm-up included: CPU time needs no warm cache argument
    // Not a structured binding: clang 14 (the fuzz build) cannot capture one in the lambda below.
    const std::pair<sm::Timing, sm::Timing> alternated = sm::run_alternating(
        trials, [&] { start_many(direct, cfg.starts, direct_cpu); }, [&] { start_many(plain, cfg.starts, plain_cpu); });
    const sm::Timing& direct_t = alternated.first;
    const sm::Timing& plain_t = alternated.second;
    const sm::Timing knobs_t = sm::run_trials(trials, [&] { start_many(knobs, cfg.starts, knobs_cpu); });
    const double direct_c = sm::summarize(direct_cpu).median, plain_c = sm::summarize(plain_cpu).median,
                 knobs_c = sm::summarize(knobs_cpu).median;
    const double per = 1e3 / cfg.starts;  // seconds per trial -> ms per start
    std::printf("start of %s, %d starts per trial, median of %d trials (spread = (max-min)/median)\n",
                cfg.program.c_str(), cfg.starts, cfg.repetitions);
    std::printf("%-40s %10s %7s %12s %12s %12s\n", "how", "ms/start", "spread", "overhead ms", "CPU ms/start",
                "CPU overhead");
    const auto row = [&](const std::string& how, const sm::Timing& t, double cpu) {
      std::printf("%-40s %10.3f %6.0f%% %12.3f %12.3f %12.3f\n", how.c_str(), t.median * per, 100 * t.spread(),
                  (t.median - direct_t.median) * per, cpu * per, (cpu - direct_c) * per);
    };
    row("direct", direct_t, direct_c);
    row("smartarrays run --", plain_t, plain_c);
    row("smartarrays run (every knob, " + cfg.allocator + ")", knobs_t, knobs_c);
    std::printf("target: smartarrays run adds < 2 ms per start: wall %s, CPU %s (load average: see the JSON)\n",
                (plain_t.median - direct_t.median) * per < 2 ? "met" : "missed", (plain_c - direct_c) * per < 2 ? "met" : "missed");
    sm::Report report("smartarrays.bench.run/1");
    report.fields = {{"program", cfg.program},
                     {"starts_per_trial", cfg.starts},
                     {"direct", sm::timing_json(direct_t)},
                     {"run_no_knobs", sm::timing_json(plain_t)},
                     {"run_every_knob", sm::timing_json(knobs_t)},
                     {"every_knob_allocator", cfg.allocator},
                     {"overhead_ms_per_start", (plain_t.median - direct_t.median) * per},
                     {"overhead_every_knob_ms_per_start", (knobs_t.median - direct_t.median) * per},
                     {"cpu_ms_per_start", {{"direct", direct_c * per}, {"run_no_knobs", plain_c * per},
                                           {"run_every_knob", knobs_c * per}}},
                     {"cpu_overhead_ms_per_start", (plain_c - direct_c) * per}};
    const std::string path = sm::result_path(cfg.out_dir, "run");
    sm::write_report(report, path);
    std::printf("wrote %s\n", path.c_str());
  } catch (const std::exception& e) {
    std::cerr << "bench_run: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
