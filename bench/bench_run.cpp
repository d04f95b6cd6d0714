// Benchmarks the start overhead of `smartarrays run` (target: < 2 ms per start): a trivial program
// started directly, through `smartarrays run` with no knob, and through it with every knob
// (allocator, interleave, sparse pinning, threads, THP off), alternated so all three see the same
// load; each trial starts the program --starts times and reports the time per start.
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

// Starts argv `starts` times and fails loudly when a start does not succeed.
void start_many(const std::vector<std::string>& argv, int starts) {
  for (int i = 0; i < starts; ++i) {
    const tune::ChildRun run = tune::run_child({}, argv, 0, false);
    if (!run.succeeded()) {
      throw std::runtime_error(argv[0] + " did not succeed: " + tune::describe_end(run, 0));
    }
  }
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
    const auto [direct_t, plain_t] =
        sm::run_alternating(trials, [&] { start_many(direct, cfg.starts); }, [&] { start_many(plain, cfg.starts); });
    const sm::Timing knobs_t = sm::run_trials(trials, [&] { start_many(knobs, cfg.starts); });
    const double per = 1e3 / cfg.starts;  // seconds per trial -> ms per start
    std::printf("start of %s, %d starts per trial, median of %d trials (spread = (max-min)/median)\n",
                cfg.program.c_str(), cfg.starts, cfg.repetitions);
    std::printf("%-44s %12s %8s %14s\n", "how", "ms/start", "spread", "overhead ms");
    std::printf("%-44s %12.3f %7.0f%% %14s\n", "direct", direct_t.median * per, 100 * direct_t.spread(), "-");
    std::printf("%-44s %12.3f %7.0f%% %14.3f\n", "smartarrays run --", plain_t.median * per, 100 * plain_t.spread(),
                (plain_t.median - direct_t.median) * per);
    const std::string all = "smartarrays run (every knob, " + cfg.allocator + ")";
    std::printf("%-44s %12.3f %7.0f%% %14.3f\n", all.c_str(), knobs_t.median * per, 100 * knobs_t.spread(),
                (knobs_t.median - direct_t.median) * per);
    std::printf("target: smartarrays run adds < 2 ms per start: %s\n",
                (plain_t.median - direct_t.median) * per < 2 ? "met" : "missed");
    sm::Report report("smartarrays.bench.run/1");
    report.fields = {{"program", cfg.program},
                     {"starts_per_trial", cfg.starts},
                     {"direct", sm::timing_json(direct_t)},
                     {"run_no_knobs", sm::timing_json(plain_t)},
                     {"run_every_knob", sm::timing_json(knobs_t)},
                     {"every_knob_allocator", cfg.allocator},
                     {"overhead_ms_per_start", (plain_t.median - direct_t.median) * per},
                     {"overhead_every_knob_ms_per_start", (knobs_t.median - direct_t.median) * per}};
    const std::string path = sm::result_path(cfg.out_dir, "run");
    sm::write_report(report, path);
    std::printf("wrote %s\n", path.c_str());
  } catch (const std::exception& e) {
    std::cerr << "bench_run: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
