// Owns `smartarrays tune`: runs a command over a grid of the tuning knobs (tune/grid.hpp), each
// configuration launched the way `smartarrays run` launches it, in shuffled rounds after a warm-up,
// recording wall time or a metric the command prints, peak RSS, page faults and context switches;
// prints the table sorted by median with spread, writes JSON, and ends with the best configuration
// as a ready `smartarrays run` command line and its gain over the default (docs/tune.md).
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
// GCC 12 with -fsanitize=address reports a false -Wmaybe-uninitialized inside <regex> (GCC bug
// 105562); the warning is located in the header, so it is silenced for the header only (clang
// has no such warning).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <regex>
#pragma GCC diagnostic pop
#else
#include <regex>
#endif
#include <sstream>

#include "cli/commands.hpp"
#include "cli/launch_options.hpp"
#include "cli/stop_signals.hpp"
#include "measure/progress.hpp"
#include "measure/report.hpp"
#include "measure/timing.hpp"
#include "smartarrays/os/machine_facts.hpp"
#include "smartarrays/os/topology.hpp"
#include "smartarrays/tune/grid.hpp"
#include "smartarrays/tune/spawn.hpp"
#include "smartarrays/util/text.hpp"

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
  tune::GridSpec spec;
  int repetitions = 3;
  int warmup = 1;
  std::string metric;
  bool cpu_time = false;
  bool maximize = false;
  double timeout = 0;
  double budget = 0;
  std::uint64_t seed = 1;
  std::string json;
  std::string plot;
  bool quiet = false;
  std::vector<std::string> command;
  std::vector<tune::GridPoint> grid;
  std::vector<tune::Launch> launches;
};

// What the runs of one grid point gave.
struct PointResult {
  std::vector<double> values;  // seconds or the metric, one per successful run
  int runs = 0;
  std::string failure;         // how the first failed run ended ("" when none failed)
  long max_rss_kib = 0;
  std::vector<double> minor_faults, switches;
};

struct TuneResult {
  std::vector<PointResult> points;
  std::vector<std::size_t> measured;  // the grid points run (all, or the budget's most promising)
  std::string thp_mode, autonuma;
  double warmup_seconds = 0;
  bool cut_by_budget = false;
};

// The number --metric finds in a run's stdout: the last match, its first group if it has one.
std::optional<double> read_metric(const std::string& pattern, const std::string& output) {
  const std::regex re(pattern);
  std::optional<double> value;
  for (auto it = std::sregex_iterator(output.begin(), output.end(), re); it != std::sregex_iterator(); ++it) {
    const std::string text = (*it)[it->size() > 1 ? 1 : 0].str();
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str()) value = v;
  }
  return value;
}

// What a run's value is: "metric" (--metric), "cpu_seconds" (--cpu-time) or "seconds" (wall).
std::string value_kind(const TuneFlags& f) {
  if (!f.metric.empty()) return "metric";
  return f.cpu_time ? "cpu_seconds" : "seconds";
}

// One run of grid point p; its value goes into r, or why it failed.
void measure_once(const TuneFlags& f, std::size_t p, PointResult& r) {
  const tune::ChildRun run = tune::run_child(f.launches[p], f.command, f.timeout, true);
  ++r.runs;
  r.max_rss_kib = std::max(r.max_rss_kib, run.max_rss_kib);
  std::string failure;
  std::optional<double> value = f.cpu_time ? run.cpu_seconds : run.seconds;
  if (!run.succeeded()) {
    failure = tune::describe_end(run, f.timeout);
  } else if (!f.metric.empty() && !(value = read_metric(f.metric, run.output))) {
    failure = "no metric: nothing in stdout matches " + util::quoted(f.metric);
  }
  if (!failure.empty()) {
    if (r.failure.empty()) r.failure = failure;
    return;
  }
  r.values.push_back(*value);
  r.minor_faults.push_back(static_cast<double>(run.minor_faults));
  r.switches.push_back(static_cast<double>(run.voluntary_switches + run.involuntary_switches));
}

std::string seconds_text(double s) {
  std::ostringstream out;
  if (s >= 120) {
    out << static_cast<long>(s / 60) << "m" << std::setw(2) << std::setfill('0') << static_cast<long>(s) % 60 << "s";
  } else {
    out << std::fixed << std::setprecision(1) << s << "s";
  }
  return out.str();
}

// Warm-up runs of the default point; the time of one run, or an error when the command fails bare.
double warm_up(const TuneFlags& f) {
  double seconds = 0;
  for (int i = 0; i < f.warmup; ++i) {
    PointResult r;
    measure_once(f, 0, r);
    if (!r.failure.empty()) throw Error(ErrorCode::invalid_argument, "the command fails without any knob (warm-up): " + r.failure);
    seconds = r.values.empty() ? 0 : r.values.back();
  }
  return seconds;
}

TuneResult run_grid(const TuneFlags& f) {
  TuneResult result;
  const os::MachineFacts facts = os::read_machine_facts();
  result.thp_mode = facts.thp_enabled;
  result.autonuma = facts.numa_balancing;
  // Ctrl-C and SIGTERM stop the grid between system calls, so the AutoNUMA switch and the child's
  // process group are cleaned up by the normal unwinding.
  StopSignals signals;
  std::optional<tune::AutoNumaSwitch> autonuma;
  if (!f.spec.autonuma.empty()) autonuma.emplace();
  const measure::Progress progress(!f.quiet);
  progress.show("tune: warm-up");
  result.warmup_seconds = f.warmup > 0 ? warm_up(f) : 0;
  std::size_t keep = f.grid.size();
  if (f.budget > 0 && result.warmup_seconds > 0) {
    keep = static_cast<std::size_t>(f.budget / (result.warmup_seconds * f.repetitions));
    result.cut_by_budget = keep < f.grid.size();
  }
  result.measured = tune::most_promising(f.grid, keep);
  result.points.resize(f.grid.size());
  const std::vector<std::size_t> order = tune::run_order(result.measured, f.repetitions, f.seed);
  const double start = progress.elapsed_seconds();
  for (std::size_t k = 0; k < order.size(); ++k) {
    const double spent = progress.elapsed_seconds() - start;
    if (f.budget > 0 && spent > f.budget) {
      result.cut_by_budget = true;
      break;
    }
    const tune::GridPoint& point = f.grid[order[k]];
    // A point without an AutoNUMA value (the default) runs with the system's own.
    if (autonuma) autonuma->set(point.autonuma ? *point.autonuma : autonuma->original() != "0");
    const std::string left = k == 0 ? "?" : seconds_text(spent / static_cast<double>(k) * static_cast<double>(order.size() - k));
    progress.show("tune: run " + std::to_string(k + 1) + "/" + std::to_string(order.size()) + "  " + point.label() +
                      "  ~" + left + " left",
                  false);
    measure_once(f, order[k], result.points[order[k]]);
  }
  progress.finish("tune: " + std::to_string(order.size()) + " runs in " + seconds_text(progress.elapsed_seconds()));
  return result;
}

// Grid points that ran, fastest (or highest with --maximize) median first; failed ones last.
std::vector<std::size_t> ranking(const TuneFlags& f, const TuneResult& r) {
  std::vector<std::size_t> order;
  for (const std::size_t p : r.measured) {
    if (r.points[p].runs > 0) order.push_back(p);
  }
  const auto key = [&](std::size_t p) {
    const PointResult& pr = r.points[p];
    const double median = measure::summarize(pr.values).median;
    return std::make_pair(!pr.failure.empty() || pr.values.empty(), f.maximize ? -median : median);
  };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
  return order;
}

// How much better point p is than the default: > 1 is better.
double gain(const TuneFlags& f, const TuneResult& r, std::size_t p) {
  const double base = measure::summarize(r.points[0].values).median;
  const double mine = measure::summarize(r.points[p].values).median;
  if (base <= 0 || mine <= 0) return 0;
  return f.maximize ? mine / base : base / mine;
}

std::string shell_word(const std::string& word) {
  if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") ==
                           std::string::npos) {
    return word;
  }
  std::string quoted = "'";
  for (const char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string run_line(const TuneFlags& f, std::size_t p) {
  const std::string flags = tune::run_flags(f.grid[p].options);
  std::string line = "smartarrays run " + (flags.empty() ? "" : flags + " ") + "--";
  for (const std::string& word : f.command) line.append(1, ' ').append(shell_word(word));
  return line;
}

void print_table(const TuneFlags& f, const TuneResult& r) {
  const std::string unit = value_kind(f);
  std::cout << "system: THP " << r.thp_mode << ", AutoNUMA " << r.autonuma << "   grid: " << r.measured.size() << " of "
            << f.grid.size() << " configurations x " << f.repetitions << " runs"
            << (r.cut_by_budget ? " (cut by --budget, most promising first)" : "") << "\n\n";
  std::cout << "rank  configuration                                   median " << std::setw(8) << unit
            << "  spread  gain   max RSS MiB  minor faults  ctx switches  runs  status\n";
  int rank = 0;
  for (const std::size_t p : ranking(f, r)) {
    const PointResult& pr = r.points[p];
    const measure::Timing t = measure::summarize(pr.values);
    std::cout << std::setw(4) << ++rank << "  " << std::left << std::setw(46) << f.grid[p].label() << std::right
              << std::setw(15) << std::setprecision(4) << std::fixed << t.median << "  " << std::setw(5)
              << std::setprecision(0) << 100 * t.spread() << "%  " << std::setw(5) << std::setprecision(2)
              << gain(f, r, p) << "x  " << std::setw(11) << std::setprecision(1) << pr.max_rss_kib / 1024.0 << "  "
              << std::setw(12) << std::setprecision(0) << measure::summarize(pr.minor_faults).median << "  "
              << std::setw(12) << measure::summarize(pr.switches).median << "  " << std::setw(2) << pr.values.size()
              << "/" << pr.runs << "  " << (pr.failure.empty() ? "ok" : pr.failure) << "\n";
  }
}

void print_best(const TuneFlags& f, const TuneResult& r) {
  const std::vector<std::size_t> ranked = ranking(f, r);
  if (ranked.empty() || !r.points[ranked[0]].failure.empty() || r.points[ranked[0]].values.empty()) {
    std::cout << "\nno configuration ran without a failure\n";
    return;
  }
  const std::size_t best = ranked[0];
  std::cout << "\nbest: " << run_line(f, best) << "\n";
  if (best == 0) {
    std::cout << "  the default is best: no knob helped this command here\n";
    return;
  }
  std::cout << "  " << std::setprecision(2) << std::fixed << gain(f, r, best) << "x " << (f.maximize ? "higher" : "faster")
            << " than the " << f.grid[0].label() << "\n";
  // On a shared machine a median can win by luck: the gain counts only when the two ranges of runs
  // do not overlap.
  const measure::Timing mine = measure::summarize(r.points[best].values);
  const measure::Timing base = measure::summarize(r.points[0].values);
  if (f.maximize ? mine.min <= base.max : mine.max >= base.min) {
    std::cout << "  not significant: its runs overlap the default's (spread " << std::setprecision(0) << 100 * mine.spread()
              << "% and " << 100 * base.spread() << "%); rerun with more --repetitions\n";
  }
  if (f.grid[best].autonuma) {
    std::cout << "  with AutoNUMA " << (*f.grid[best].autonuma ? "on" : "off") << ": sysctl kernel.numa_balancing="
              << (*f.grid[best].autonuma ? 1 : 0) << " (root)\n";
  }
}

measure::Report report(const TuneFlags& f, const TuneResult& r) {
  measure::Report rep("smartarrays.tune/1");
  measure::Json& json = rep.fields;
  json["command"] = f.command;
  json["value"] = value_kind(f);
  json["metric"] = f.metric;
  json["maximize"] = f.maximize;
  json["repetitions"] = f.repetitions;
  json["system"] = {{"thp_enabled", r.thp_mode}, {"numa_balancing", r.autonuma}};
  json["cut_by_budget"] = r.cut_by_budget;
  json["configurations"] = measure::Json::array();
  for (const std::size_t p : ranking(f, r)) {
    const PointResult& pr = r.points[p];
    measure::Json point = measure::timing_json(measure::summarize(pr.values));
    point["label"] = f.grid[p].label();
    point["run_flags"] = tune::run_flags(f.grid[p].options);
    point["autonuma"] = f.grid[p].autonuma ? measure::Json(*f.grid[p].autonuma) : measure::Json();
    point["default"] = p == 0;
    point["gain_over_default"] = gain(f, r, p);
    const measure::Timing mine = measure::summarize(pr.values), base = measure::summarize(r.points[0].values);
    point["separated_from_default"] = p != 0 && !pr.values.empty() && (f.maximize ? mine.min > base.max : mine.max < base.min);
    point["values"] = pr.values;
    point["runs"] = pr.runs;
    point["failure"] = pr.failure;
    point["max_rss_kib"] = pr.max_rss_kib;
    point["minor_faults_median"] = measure::summarize(pr.minor_faults).median;
    point["context_switches_median"] = measure::summarize(pr.switches).median;
    json["configurations"].push_back(point);
  }
  return rep;
}

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
  const TuneResult result = run_grid(f);
  print_table(f, result);
  print_best(f, result);
  if (!f.json.empty()) measure::write_report(report(f, result), f.json);
  if (!f.plot.empty()) {
    // The figure is drawn from a file: --json's, else FIGURE.json next to it.
    const bool own_file = f.json.empty() || f.json == "-";
    const std::string data = own_file ? f.plot + ".json" : f.json;
    if (own_file) measure::write_report(report(f, result), data);
    plot(f, data);
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
  for (const std::string& item : items) policies.push_back(tune::parse_memory_policy(item));
  return policies;
}

void add_grid_flags(CLI::App& app, TuneFlags& f) {
  auto& s = f.spec;
  s.allocators = {tune::Allocator::glibc, tune::Allocator::jemalloc, tune::Allocator::tcmalloc,
                  tune::Allocator::mimalloc, tune::Allocator::tbbmalloc};
  s.policies = parse_policies("first-touch,interleave,localalloc");
  s.pinnings = {runtime::PinPolicy::sparse, runtime::PinPolicy::dense};
  s.thp = {true, false};
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
  add_value<int>(app, "--repetitions", "R", f.repetitions, whole_number<int>(1, 1000), "timed runs per configuration (default 3)");
  add_value<int>(app, "--warmup", "N", f.warmup, whole_number<int>(0, 100), "untimed runs of the default first (default 1)");
  add_value<std::string>(app, "--metric", "REGEX", f.metric, [](const std::string& t) { return t; },
                         "record the number this matches in stdout (its first group)\ninstead of the wall time");
  add_flag(app, "--cpu-time", f.cpu_time,
           "record the command's CPU time (user + system, all its threads)\ninstead of the wall time: steadier on a shared machine");
  add_flag(app, "--maximize", f.maximize, "a larger metric is better (throughput)");
  add_value<double>(app, "--timeout", "S", f.timeout, parse_real, "kill a run after S seconds (default: no limit)");
  add_value<double>(app, "--budget", "S", f.budget, parse_real, "stop after about S seconds, most promising knobs first");
  add_value<std::uint64_t>(app, "--seed", "N", f.seed, whole_number<std::uint64_t>(0, UINT64_MAX), "run order shuffle seed (default 1)");
  add_value<std::string>(app, "--json", "FILE", f.json, [](const std::string& t) { return t; }, "write the results as JSON ('-' for stdout)");
  add_value<std::string>(app, "--plot", "FILE", f.plot, [](const std::string& t) { return t; },
                         "draw the results (PNG) with bench/plot_tune.py and the project's .venv");
  add_flag(app, "--quiet", f.quiet, "no progress line");
}

// Resolves every grid point's launch, naming the grid flag whose value the machine refuses.
void check_tune(TuneFlags& f) {
  check_command(f.command, tune_usage);
  if (f.timeout < 0 || f.timeout > 1e7) throw UsageError("--timeout: expected 0 (no limit) to 10000000 seconds");
  if (f.budget < 0) throw UsageError("--budget: expected 0 or more seconds");
  if (f.cpu_time && !f.metric.empty()) throw UsageError("--cpu-time and --metric exclude each other (give one)");
  try {
    std::regex check(f.metric);
  } catch (const std::regex_error& e) {
    throw UsageError("--metric: " + util::quoted(f.metric) + " is not a regular expression: " + e.what());
  }
  if (!f.spec.autonuma.empty()) {
    if (::geteuid() != 0) throw UsageError("--autonuma: changing kernel.numa_balancing needs root");
    try {
      tune::AutoNumaSwitch probe;
    } catch (const Error& e) {
      throw UsageError(std::string("--autonuma: ") + e.what());
    }
  }
  f.grid = tune::make_grid(f.spec);
  for (const tune::GridPoint& point : f.grid) {
    try {
      tune::find_allocator_library(point.options.allocator);
      f.launches.push_back(tune::prepare_launch(point.options, os::topology()));
    } catch (const Error& e) {
      const bool allocator = e.code() == ErrorCode::unsupported;
      throw UsageError(std::string(allocator ? "--allocators: " : "--policies: ") + e.what());
    }
  }
}

}  // namespace

void add_tune_command(CommandTree& tree) {
  auto flags = std::make_shared<TuneFlags>();
  CLI::App& app = tree.add(tree.root(), "tune", tune_header, [flags] { return run_tune(*flags); }, tune_footer);
  add_grid_flags(app, *flags);
  add_run_flags(app, *flags);
  app.add_option("COMMAND", flags->command, "the command and its arguments");
  tree.check(app, [flags] { check_tune(*flags); });
}

}  // namespace smartarrays::cli
