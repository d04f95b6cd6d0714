// Owns `smartarrays tune`, the command over the tune layer's grid search (tune/tuner.hpp): its
// flags, the progress on stderr, the ranked table, the best configuration's `smartarrays run` line,
// the JSON file and the figure (docs/tune.md).
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string_view>

#include "cli/commands.hpp"
#include "cli/launch_options.hpp"
#include "measure/progress.hpp"
#include "measure/report.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/tune/spawn.hpp"
#include "smartarrays/tune/tuner.hpp"
#include "smartarrays/util/statistics.hpp"

namespace smartarrays::cli {

namespace {

const char* const tune_usage = "smartarrays tune [options] -- COMMAND [ARGS...]";

const char* const tune_header =
    "usage: smartarrays tune [options] -- COMMAND [ARGS...]\n"
    "\n"
    "Runs COMMAND under every combination of the knobs asked for (default: every allocator x\n"
    "first-touch, interleave, localalloc x sparse, dense x THP on, off), each configuration\n"
    "launched as 'smartarrays run' launches it, in shuffled rounds after a warm-up. Records the\n"
    "wall time (or the number --metric reads from COMMAND's stdout), peak RSS, page faults and\n"
    "context switches; prints the configurations sorted by median with their spread, and the best\n"
    "one as a ready 'smartarrays run' command line with its gain over the default (glibc, nothing\n"
    "changed). The system's THP mode and AutoNUMA are shown; AutoNUMA changes only with --autonuma\n"
    "(root), and is restored at the end, on an error and on Ctrl-C (docs/tune.md).\n";

const char* const tune_footer =
    "examples:\n"
    "  smartarrays tune --repetitions 5 -- smartarrays bench aggregate --size 4M --quiet\n"
    "  smartarrays tune --allocators glibc,tbbmalloc --policies first-touch,interleave=0,1 \\\n"
    "      --metric 'time ([0-9.]+) s' --timeout 60 --json tune.json -- ./join 16M\n";

struct TuneFlags {
  tune::TuneSettings settings;
  std::string json;
  std::string plot;
  bool quiet = false;
  std::optional<tune::Tuner> tuner;
};

std::string seconds_text(double s) {
  std::ostringstream out;
  if (s >= 120) {
    out << static_cast<long>(s / 60) << "m" << std::setw(2) << std::setfill('0') << static_cast<long>(s) % 60 << "s";
  } else {
    out << std::fixed << std::setprecision(1) << s << "s";
  }
  return out.str();
}

// The progress of the grid on stderr: on a terminal the run about to start, in place; in a log or
// a pipe one line per finished run; both with the time left.
tune::ProgressCallback show_progress(const measure::Progress& progress) {
  return [&progress](const tune::TuneProgress& p) {
    const std::string left = p.seconds_left ? seconds_text(*p.seconds_left) : std::string("?");
    const std::string live = p.next == nullptr ? std::string()
                                               : "tune: run " + std::to_string(p.done + 1) + "/" + std::to_string(p.total) +
                                                     "  " + p.next->label() + "  ~" + left + " left";
    const std::string logged = p.finished == nullptr ? std::string()
                                                     : "tune: run " + std::to_string(p.done) + "/" + std::to_string(p.total) +
                                                           " done  " + p.finished->label() + "  ~" + left + " left";
    progress.step(live, logged);
  };
}

void print_table(const tune::TuneResult& r) {
  const std::string unit = r.value_kind();
  std::cout << "system: THP " << r.thp_mode << ", AutoNUMA " << r.autonuma << "   grid: " << r.measured.size() << " of "
            << r.configurations.size() << " configurations x " << r.settings.repetitions << " runs"
            << (r.cut_by_budget ? " (cut by --budget, most promising first)" : "") << "\n\n";
  std::cout << "rank  configuration                                   median " << std::setw(8) << unit
            << "  spread  gain   max RSS MiB  minor faults  ctx switches  runs  status\n";
  int rank = 0;
  for (const std::size_t p : r.ranking()) {
    const tune::ConfigurationResult& c = r.configurations[p];
    const util::Summary t = c.summary();
    std::cout << std::setw(4) << ++rank << "  " << std::left << std::setw(46) << c.point.label() << std::right
              << std::setw(15) << std::setprecision(4) << std::fixed << t.median << "  " << std::setw(5)
              << std::setprecision(0) << 100 * t.spread() << "%  " << std::setw(5) << std::setprecision(2)
              << r.gain(p) << "x  " << std::setw(11) << std::setprecision(1) << c.max_rss_kib / 1024.0 << "  "
              << std::setw(12) << std::setprecision(0) << util::summarize(c.minor_faults).median << "  "
              << std::setw(12) << util::summarize(c.context_switches).median << "  " << std::setw(2) << c.values.size()
              << "/" << c.runs << "  " << (c.failure.empty() ? "ok" : c.failure) << "\n";
  }
}

void print_best(const tune::TuneResult& r) {
  const std::optional<std::size_t> found = r.best();
  if (!found) {
    std::cout << "\nno configuration ran without a failure\n";
    return;
  }
  const std::size_t best = *found;
  const tune::GridPoint& point = r.configurations[best].point;
  std::cout << "\nbest: " << r.run_line(best) << "\n";
  if (best == 0) {
    std::cout << "  the default is best: no knob helped this command here\n";
    return;
  }
  const bool maximize = r.settings.maximize;
  std::cout << "  " << std::setprecision(2) << std::fixed << r.gain(best) << "x " << (maximize ? "higher" : "faster")
            << " than the " << r.configurations[0].point.label() << "\n";
  // On a shared machine a median can win by luck: the gain counts only when the two ranges of runs
  // do not overlap.
  if (!r.separated_from_default(best)) {
    std::cout << "  not significant: its runs overlap the default's (spread " << std::setprecision(0)
              << 100 * r.configurations[best].summary().spread() << "% and " << 100 * r.configurations[0].summary().spread()
              << "%); rerun with more --repetitions\n";
  }
  if (point.autonuma) {
    std::cout << "  with AutoNUMA " << (*point.autonuma ? "on" : "off") << ": sysctl kernel.numa_balancing="
              << (*point.autonuma ? 1 : 0) << " (root)\n";
  }
}

// The report as the tune layer writes it, with the machine facts of the C ABI.
std::string report(const tune::TuneResult& r) { return tune::tune_report_json(r, measure::machine_facts().dump()); }

// The figure: bench/plot_tune.py run by the project's .venv python, both found from this program's
// place in the tree (BUILD/bin/smartarrays); skipped with the reason when either is missing.
void plot(const TuneFlags& f, const std::string& json) {
  namespace fs = std::filesystem;
  const fs::path root = fs::read_symlink("/proc/self/exe").parent_path().parent_path().parent_path();
  const fs::path python = root / ".venv" / "bin" / "python", script = root / "bench" / "plot_tune.py";
  const std::string fix = " (make it with: scripts/python-venv.sh matplotlib)";
  if (!fs::exists(script)) {
    std::cout << "plot skipped: " << script.string() << " not found (run the smartarrays of a source tree)\n";
  } else if (!fs::exists(python)) {
    std::cout << "plot skipped: no project Python at " << python.string() << fix << "\n";
  } else {
    const tune::ChildRun run = tune::run_child({}, {python.string(), script.string(), json, "-o", f.plot}, 300, true);
    if (run.succeeded()) {
      std::cout << "figure: " << f.plot << "\n";
    } else {
      std::cout << "plot skipped: plot_tune.py ended with " << tune::describe_end(run, 300) << "; is matplotlib in "
                << python.string() << "?" << fix << "\n";
    }
  }
}

int run_tune(TuneFlags& f) {
  const measure::Progress progress(!f.quiet);
  progress.show("tune: warm-up");
  const tune::TuneResult result = f.tuner->run(show_progress(progress));
  progress.finish("tune: " + std::to_string(result.runs_done) + " runs in " + seconds_text(progress.elapsed_seconds()));
  print_table(result);
  print_best(result);
  if (!f.json.empty()) measure::write_text(report(result), f.json);
  if (!f.plot.empty()) {
    // The figure is drawn from a file: --json's, else FIGURE.json next to it.
    const bool own_file = f.json.empty() || f.json == "-";
    const std::string data = own_file ? f.plot + ".json" : f.json;
    if (own_file) measure::write_text(report(result), data);
    plot(f, data);
  }
  // A grid in which every configuration failed has no answer: the table and the report say how each
  // ended, and the exit status says it failed (it was 0).
  if (!result.best()) {
    std::cerr << "smartarrays: tune: every configuration failed (the table's status column says how)\n";
    return exit_failure;
  }
  return 0;
}

// Memory policies separated by commas, where a node list's own commas stay with its policy:
// "first-touch,interleave=0,1,bind=0" is first-touch, interleave=0,1 and bind=0.
std::vector<tune::MemoryPolicy> parse_policies(const std::string& text) {
  std::vector<std::string> items;
  for (const std::string& item : split_list(text)) {
    if (std::isdigit(static_cast<unsigned char>(item[0])) && !items.empty()) {
      items.back().append(1, ',').append(item);
    } else {
      items.push_back(item);
    }
  }
  std::vector<tune::MemoryPolicy> policies;
  std::vector<std::string> texts;
  for (const std::string& item : items) add_distinct(policies, texts, tune::parse_memory_policy(item), item);
  return policies;
}

void add_grid_flags(CLI::App& app, TuneFlags& f) {
  auto& s = f.settings.spec;
  add_value<std::vector<tune::Allocator>>(app, "--allocators", "LIST", s.allocators,
                                          list_of<tune::Allocator>(tune::parse_allocator),
                                          "allocators to try (default: all five)")->group("grid");
  add_value<std::vector<tune::MemoryPolicy>>(app, "--policies", "LIST", s.policies, parse_policies,
                                             "memory policies (default first-touch,interleave,localalloc)")->group("grid");
  add_value<std::vector<runtime::PinPolicy>>(app, "--pinnings", "LIST", s.pinnings, list_of<runtime::PinPolicy>(parse_pinning),
                                             "CPU sets: sparse, dense, none (default sparse,dense)")->group("grid");
  add_value<std::vector<bool>>(app, "--thp", "LIST", s.thp, list_of<bool>(parse_on_off),
                               "transparent huge pages for the process (default on,off)")->group("grid");
  add_value<std::vector<std::size_t>>(app, "--threads", "LIST", s.threads, list_of<std::size_t>(whole_number<std::size_t>(1, 4096)),
                                      "thread counts exported (default: unchanged)")->group("grid");
  add_value<std::vector<bool>>(app, "--autonuma", "LIST", s.autonuma, list_of<bool>(parse_on_off),
                               "system AutoNUMA during the runs, e.g. on,off (root; restored)")->group("grid");
}

void add_run_flags(CLI::App& app, TuneFlags& f) {
  add_value<int>(app, "--repetitions", "R", f.settings.repetitions, whole_number<int>(1, 1000), "timed runs per configuration (default 3)");
  add_value<int>(app, "--warmup", "N", f.settings.warmup, whole_number<int>(0, 100), "untimed runs of the default first (default 1)");
  add_value<std::string>(app, "--metric", "REGEX", f.settings.metric, [](const std::string& t) { return t; },
                         "record the number this matches in stdout (its first group)\ninstead of the wall time");
  add_flag(app, "--cpu-time", f.settings.cpu_time,
           "record the command's CPU time (user + system, all its threads)\ninstead of the wall time: steadier on a shared machine");
  add_flag(app, "--maximize", f.settings.maximize, "a larger metric is better (throughput)");
  add_value<double>(app, "--timeout", "S", f.settings.timeout_seconds, parse_real, "kill a run after S seconds (default: no limit)");
  add_value<double>(app, "--budget", "S", f.settings.budget_seconds, parse_real, "stop after about S seconds, most promising knobs first");
  add_value<std::uint64_t>(app, "--seed", "N", f.settings.seed, whole_number<std::uint64_t>(0, UINT64_MAX), "run order shuffle seed (default 1)");
  add_value<std::string>(app, "--json", "FILE", f.json, [](const std::string& t) { return t; }, "write the results as JSON ('-' for stdout)");
  add_value<std::string>(app, "--plot", "FILE", f.plot, [](const std::string& t) { return t; },
                         "draw the results (PNG) with bench/plot_tune.py and the project's .venv");
  add_flag(app, "--quiet", f.quiet, "no progress line");
}

// "--cpu-time" for the setting cpu_time: the tune layer's errors name the flag.
std::string flag_name(std::string_view field) {
  std::string flag = "--" + std::string(field);
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

// Checks the settings and resolves every grid point's launch, naming the flag whose value is refused.
void check_tune(TuneFlags& f) {
  check_command(f.settings.command, tune_usage);
  check_output_file("--json", f.json);
  check_output_file("--plot", f.plot, {.dash_is_stdout = false});
  try {
    f.tuner.emplace(f.settings, flag_name);
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
}

}  // namespace

void add_tune_command(CommandTree& tree) {
  auto flags = std::make_shared<TuneFlags>();
  CLI::App& app = tree.add(tree.root(), "tune", tune_header, [flags] { return run_tune(*flags); }, tune_footer);
  // However often Ctrl-C is pressed, the grid unwinds: it kills the running child's process group
  // and restores AutoNUMA.
  tree.unwind_on_every_signal(app);
  tree.define(app, [flags](CLI::App& defined) {
    add_grid_flags(defined, *flags);
    add_run_flags(defined, *flags);
    defined.add_option("COMMAND", flags->settings.command, "the command and its arguments");
  });
  tree.check(app, [flags] { check_tune(*flags); });
}

}  // namespace smartarrays::cli
