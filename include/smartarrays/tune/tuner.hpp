// Owns the grid search of `smartarrays tune` and `smartarrays.tune.grid` (docs/tune.md): a
// command run under every configuration of a grid (grid.hpp), each launched as `smartarrays run`
// launches it (spawn.hpp), in shuffled rounds after a warm-up of the default; each run recorded
// (wall time, CPU time or the number a regex reads from its stdout; peak RSS, page faults, context
// switches); the configurations ranked by median with their spread; the best one as a ready
// `smartarrays run` command line with its gain over the default; a time budget that keeps the most
// promising configurations; progress after every run; the report as JSON (smartarrays.tune/1).
// Cancellation is the calling thread's interrupt check (runtime/interrupt.hpp: the command's
// Ctrl-C, Python's KeyboardInterrupt): the running child is killed and AutoNUMA restored.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "smartarrays/export.hpp"
#include "smartarrays/tune/grid.hpp"
#include "smartarrays/tune/launch.hpp"
#include "smartarrays/util/statistics.hpp"

namespace smartarrays::tune {

/// What a grid search runs and how; the defaults are those of `smartarrays tune`.
struct TuneSettings {
  std::vector<std::string> command;  ///< the program and its arguments (searched in PATH)
  GridSpec spec = full_grid_spec();  ///< the knob values combined
  int repetitions = 3;               ///< timed runs per configuration, 1..1000
  int warmup = 1;                    ///< untimed runs of the default first, 0..100
  std::string metric;                ///< a regex whose last match in stdout (its first group) is the value; "" = a time
  bool cpu_time = false;             ///< the value is the child's CPU time (user + system), not the wall time
  bool maximize = false;             ///< a larger value is better (a throughput metric)
  double timeout_seconds = 0;        ///< a run is killed after this long; 0 = no limit
  double budget_seconds = 0;         ///< stop after about this long, most promising first; 0 = the whole grid
  std::uint64_t seed = 1;            ///< the run order's shuffle seed
};

/// The spelling of a setting in error messages, given its field name ("cpu_time"): the command
/// passes one that gives its flag ("--cpu-time"); by default the field name itself.
using SettingName = std::string (*)(std::string_view field);

/// What the runs of one configuration gave.
struct ConfigurationResult {
  GridPoint point;                        ///< the configuration
  std::vector<double> values;             ///< the value of every successful run, in run order
  int runs = 0;                           ///< runs made (successful or not)
  std::string failure;                    ///< how the first failed run ended; "" when none failed
  long max_rss_kib = 0;                   ///< the largest peak resident set of its runs
  std::vector<double> minor_faults;       ///< minor page faults of every successful run
  std::vector<double> context_switches;   ///< voluntary + involuntary switches of every successful run
  /// Median, minimum, maximum and spread of values.
  util::Summary summary() const { return util::summarize(values); }
  /// True when some run succeeded and none failed.
  bool ok() const noexcept { return failure.empty() && !values.empty(); }
};

/// The outcome of a grid search.
struct TuneResult {
  TuneSettings settings;                              ///< what was asked
  std::vector<ConfigurationResult> configurations;    ///< every grid point, in grid order (the default first)
  std::vector<std::size_t> measured;                  ///< the points run: all, or those the budget kept
  std::string thp_mode;                               ///< the system THP mode seen at the start
  std::string autonuma;                               ///< kernel.numa_balancing seen at the start
  double warmup_seconds = 0;                          ///< wall time of the last warm-up run (what the budget plans with)
  bool cut_by_budget = false;                         ///< the budget dropped configurations or runs
  std::size_t runs_done = 0;                          ///< timed runs made
  std::size_t runs_planned = 0;                       ///< timed runs the order held

  /// "metric", "cpu_seconds" or "seconds": what the values are.
  std::string value_kind() const;
  /// The configurations that ran, best median first (highest when maximizing); failed ones last.
  std::vector<std::size_t> ranking() const;
  /// The best configuration, unless none ran without a failure.
  std::optional<std::size_t> best() const;
  /// How much better configuration p's median is than the default's (> 1 is better); 0 when either is 0.
  double gain(std::size_t p) const;
  /// True when p is not the default and every run of p beat every run of the default.
  bool separated_from_default(std::size_t p) const;
  /// The `smartarrays run` command line of configuration p, its words quoted for a POSIX shell.
  std::string run_line(std::size_t p) const;
};

/// Where a grid search is, reported after each timed run (and once before the first).
struct TuneProgress {
  std::size_t done = 0;                  ///< timed runs finished
  std::size_t total = 0;                 ///< timed runs planned
  const GridPoint* finished = nullptr;   ///< the configuration of the run just finished; null before the first
  const GridPoint* next = nullptr;       ///< the configuration run next; null after the last
  double elapsed_seconds = 0;            ///< since the first timed run started
  std::optional<double> seconds_left;    ///< elapsed / done * (total - done); unset before a run finished
};

/// Called with the progress; an exception it throws stops the search (and propagates).
using ProgressCallback = std::function<void(const TuneProgress&)>;

/// A validated grid search, ready to run.
class SMARTARRAYS_API Tuner {
 public:
  /// Checks settings and resolves every configuration's launch; throws Error(invalid_argument) or,
  /// for a missing allocator library, Error(unsupported) whose message starts with the setting
  /// (name("allocators") + ": ...") and names the bad value or the Debian package.
  explicit Tuner(TuneSettings settings, SettingName name = nullptr);
  /// The configurations, the default first.
  const std::vector<GridPoint>& grid() const noexcept { return grid_; }
  /// Runs the search. Throws Error(invalid_argument) when the command fails in the warm-up, and
  /// Error(cancelled) when the calling thread's interrupt check asks to stop; AutoNUMA, when the
  /// grid changes it, is restored in every case.
  TuneResult run(const ProgressCallback& progress = {}) const;

 private:
  TuneSettings settings_;
  std::vector<GridPoint> grid_;
  std::vector<Launch> launches_;
};

/// The number pattern finds in output: the last match, its first group if it has one; unset when
/// nothing matches or the text matched is no finite number. Throws Error(invalid_argument) for a bad regex.
SMARTARRAYS_API std::optional<double> read_metric(const std::string& pattern, const std::string& output);

/// The report of result (schema smartarrays.tune/1, docs/tune.md) as indented JSON, with
/// machine_facts_json (sa_machine_facts_json's object) as its "machine" member.
SMARTARRAYS_API std::string tune_report_json(const TuneResult& result, std::string_view machine_facts_json);

}  // namespace smartarrays::tune
