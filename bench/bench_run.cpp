// Benchmarks the start overhead of `smartarrays run` (target: < 2 ms per start): a trivial program
// started directly, through `smartarrays run` with no knob, and through it with every knob
// (allocator, interleave, sparse pinning, threads, THP off), alternated so all three see the same
// load (with --baseline-cli, also through another build's `smartarrays run`, for a before/after
// ratio measured in the same run); each trial starts the program --starts times and reports the wall time per start and the
// CPU time (user + system, from wait4) per start: on a loaded machine the wall time is mostly
// waiting for a CPU, the CPU time is what the launcher itself costs.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <functional>
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
  std::string baseline_cli;  // another smartarrays to compare with (before a change); "" = none
  std::string allocator = "jemalloc";
  std::string out_dir = sb::default_out_dir;
};

int parse(int argc, char** argv, Config& c) {
  CLI::App app("Benchmarks the start overhead of `smartarrays run` (target < 2 ms per start).", "bench_run");
  app.add_option("--starts", c.starts, "program starts per timed trial (default 100)")->check(CLI::Range(1, 100000));
  app.add_option("--reps", c.repetitions, "timed trials, median reported (default 7)")->check(CLI::Range(1, 10000));
  app.add_option("--program", c.program, "the program started (default /bin/true)");
  app.add_option("--cli", c.cli, "the smartarrays command (default: bin/smartarrays next to this program)");
  app.add_option("--baseline-cli", c.baseline_cli,
                 "another smartarrays (e.g. before a change) whose run is measured alongside");
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
  struct Case {
    std::string how, key;
    std::vector<std::string> argv;
    std::vector<double> cpu;  // warm-up included: CPU time needs no warm cache argument
  };
  std::vector<Case> cases{{"direct", "direct", direct, {}},
                          {"smartarrays run --", "run_no_knobs", plain, {}},
                          {"smartarrays run (every knob, " + cfg.allocator + ")", "run_every_knob", knobs, {}}};
  if (!cfg.baseline_cli.empty()) {
    cases.push_back({"baseline run -- (" + cfg.baseline_cli + ")", "baseline_run_no_knobs", {cfg.baseline_cli, "run", "--", cfg.program}, {}});
  }
  try {
    const sm::Trials trials{.warmup = 1, .repetitions = cfg.repetitions};
    std::vector<std::function<void()>> kernels;
    for (Case& c : cases) kernels.emplace_back([&cfg, &c] { start_many(c.argv, cfg.starts, c.cpu); });
    // Every case in turn, so all of them see the same load.
    const std::vector<sm::Timing> timings = sm::run_round_robin(trials, kernels);
    std::vector<double> cpu;
    for (const Case& c : cases) cpu.push_back(sm::summarize(c.cpu).median);
    const double per = 1e3 / cfg.starts;  // seconds per trial -> ms per start
    const auto overhead = [&](std::size_t k) { return (timings[k].median - timings[0].median) * per; };
    const auto cpu_overhead = [&](std::size_t k) { return (cpu[k] - cpu[0]) * per; };
    std::printf("start of %s, %d starts per trial, median of %d trials (spread = (max-min)/median)\n",
                cfg.program.c_str(), cfg.starts, cfg.repetitions);
    std::printf("%-40s %10s %7s %12s %12s %12s\n", "how", "ms/start", "spread", "overhead ms", "CPU ms/start",
                "CPU overhead");
    for (std::size_t k = 0; k < cases.size(); ++k) {
      std::printf("%-40s %10.3f %6.0f%% %12.3f %12.3f %12.3f\n", cases[k].how.c_str(), timings[k].median * per,
                  100 * timings[k].spread(), overhead(k), cpu[k] * per, cpu_overhead(k));
    }
    std::printf("target: smartarrays run adds < 2 ms per start: wall %s, CPU %s (load average: see the JSON)\n",
                overhead(1) < 2 ? "met" : "missed", cpu_overhead(1) < 2 ? "met" : "missed");
    if (cases.size() > 3) {
      std::printf("baseline / this run's overhead: wall %.2fx, CPU %.2fx\n", overhead(3) / overhead(1),
                  cpu_overhead(3) / cpu_overhead(1));
    }
    sm::Report report("smartarrays.bench.run/1");
    report.fields = {{"program", cfg.program},
                     {"starts_per_trial", cfg.starts},
                     {"every_knob_allocator", cfg.allocator},
                     {"overhead_ms_per_start", overhead(1)},
                     {"overhead_every_knob_ms_per_start", overhead(2)},
                     {"cpu_overhead_ms_per_start", cpu_overhead(1)},
                     {"cpu_ms_per_start", sm::Json::object()}};
    for (std::size_t k = 0; k < cases.size(); ++k) {
      report.fields[cases[k].key] = sm::timing_json(timings[k]);
      report.fields["cpu_ms_per_start"][cases[k].key] = cpu[k] * per;
    }
    if (cases.size() > 3) {
      report.fields["baseline_cli"] = cfg.baseline_cli;
      report.fields["baseline_overhead_ms_per_start"] = overhead(3);
      report.fields["baseline_cpu_overhead_ms_per_start"] = cpu_overhead(3);
    }
    const std::string path = sm::result_path(cfg.out_dir, "run");
    sm::write_report(report, path);
    std::printf("wrote %s\n", path.c_str());
  } catch (const std::exception& e) {
    std::cerr << "bench_run: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
