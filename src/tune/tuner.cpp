// Owns the grid search of tuner.hpp: checking the settings, the warm-up, the shuffled timed runs
// under the budget, reading each run's value, the ranking and gains, and the JSON report.
#include "smartarrays/tune/tuner.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <re2/re2.h>

#include "smartarrays/error.hpp"
#include "smartarrays/os/machine_facts.hpp"
#include "smartarrays/os/topology.hpp"
#include "smartarrays/runtime/interrupt.hpp"
#include "smartarrays/tune/spawn.hpp"
#include "smartarrays/util/byte_size.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::tune {
namespace {

using Json = nlohmann::ordered_json;

std::string spelled(SettingName name, std::string_view field) { return name ? name(field) : std::string(field); }

[[noreturn]] void bad_setting(SettingName name, std::string_view field, const std::string& why,
                              ErrorCode code = ErrorCode::invalid_argument) {
  throw_error(code, spelled(name, field) + ": " + why);
}

// Refuses an axis of the grid that lists a value twice: its configurations would run twice and the
// report would rank a configuration against itself. Quadratic, as the command's list check is.
template <typename T, typename Spell>
void check_distinct(SettingName name, std::string_view field, const std::vector<T>& values, Spell spell) {
  for (auto value = values.begin(); value != values.end(); ++value) {
    if (std::find(values.begin(), value, *value) != value) bad_setting(name, field, "lists " + spell(*value) + " twice");
  }
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

// One run of a configuration under launch; its value goes into r, or why it failed. Returns its wall time.
double measure_once(const TuneSettings& s, const Launch& launch, ConfigurationResult& r) {
  const ChildRun run = run_child(launch, s.command, s.timeout_seconds, true);
  ++r.runs;
  r.max_rss_kib = std::max(r.max_rss_kib, run.max_rss_kib);
  std::string failure;
  std::optional<double> value = s.cpu_time ? run.cpu_seconds : run.seconds;
  if (!run.succeeded()) {
    failure = describe_end(run, s.timeout_seconds);
  } else if (!s.metric.empty() && !(value = read_metric(s.metric, run.output))) {
    failure = "no metric: no finite number in stdout matches " + util::quoted(s.metric);
    if (run.output_dropped > 0) {
      failure += " (only its last " + util::format_bytes(captured_output_limit) + " are kept; it printed " +
                 std::to_string(run.output_dropped + run.output.size()) + " bytes)";
    }
  }
  if (!failure.empty()) {
    if (r.failure.empty()) r.failure = failure;
    return run.seconds;
  }
  r.values.push_back(*value);
  r.minor_faults.push_back(static_cast<double>(run.minor_faults));
  r.context_switches.push_back(static_cast<double>(run.voluntary_switches + run.involuntary_switches));
  return run.seconds;
}

// Stops the search when the calling thread's interrupt check asks to, checked once per run (not
// rate-limited: runs may be shorter than the poll interval).
void check_cancelled() {
  if (runtime::interrupt_requested(true)) throw_error(ErrorCode::cancelled, "interrupted");
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The memory RE2 may give a compiled metric pattern (its default, 8 MiB): a pattern that needs more
// is refused as not a regular expression, with RE2's reason.
constexpr std::int64_t metric_pattern_memory = 8 << 20;

}  // namespace

std::optional<double> read_metric(const std::string& pattern, const std::string& output) {
  // RE2 matches in time linear in the output and without recursion: a backtracking engine (std::regex
  // was) can take exponential time on a pattern like "a**...*" and exhaust the stack on a long output.
  RE2::Options options;
  options.set_log_errors(false);
  options.set_max_mem(metric_pattern_memory);
  const RE2 re(pattern, options);
  if (!re.ok()) throw_error(ErrorCode::invalid_argument, util::quoted(pattern) + " is not a regular expression: " + re.error());
  // The first group of each match, or the whole match when there is none; the last that reads as a
  // finite number wins (nan and inf would rank as no value can).
  const int wanted = re.NumberOfCapturingGroups() > 0 ? 1 : 0;
  re2::StringPiece found[2];
  std::optional<double> value;
  for (std::size_t at = 0; at <= output.size();) {
    if (!re.Match(output, at, output.size(), RE2::UNANCHORED, found, wanted + 1)) break;
    const std::string text(found[wanted].data() == nullptr ? "" : std::string(found[wanted]));
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() && std::isfinite(v)) value = v;
    const std::size_t match_end = static_cast<std::size_t>(found[0].data() - output.data()) + found[0].size();
    at = found[0].empty() ? match_end + 1 : match_end;
  }
  return value;
}

Tuner::Tuner(TuneSettings settings, SettingName name) : settings_(std::move(settings)) {
  const TuneSettings& s = settings_;
  if (const std::string problem = command_problem(s.command); !problem.empty()) bad_setting(name, "command", problem);
  if (s.repetitions < 1 || s.repetitions > 1000) bad_setting(name, "repetitions", "expected a whole number from 1 to 1000");
  if (s.warmup < 0 || s.warmup > 100) bad_setting(name, "warmup", "expected a whole number from 0 to 100");
  for (const std::size_t threads : s.spec.threads) {
    if (threads < 1 || threads > 4096) bad_setting(name, "threads", "expected thread counts from 1 to 4096, got " + std::to_string(threads));
  }
  check_distinct(name, "allocators", s.spec.allocators, [](Allocator a) { return std::string(allocator_name(a)); });
  check_distinct(name, "policies", s.spec.policies, [](const MemoryPolicy& p) { return format_memory_policy(p); });
  check_distinct(name, "pinnings", s.spec.pinnings, [](runtime::PinPolicy p) { return std::string(runtime::to_string(p)); });
  check_distinct(name, "thp", s.spec.thp, [](bool on) { return std::string(on ? "on" : "off"); });
  check_distinct(name, "threads", s.spec.threads, [](std::size_t n) { return std::to_string(n); });
  check_distinct(name, "autonuma", s.spec.autonuma, [](bool on) { return std::string(on ? "on" : "off"); });
  if (!(s.timeout_seconds >= 0 && s.timeout_seconds <= 1e7)) {
    bad_setting(name, "timeout", "expected 0 (no limit) to 10000000 seconds");
  }
  if (!(s.budget_seconds >= 0) || std::isinf(s.budget_seconds)) bad_setting(name, "budget", "expected 0 or more seconds");
  if (s.cpu_time && !s.metric.empty()) {
    throw_error(ErrorCode::invalid_argument,
                spelled(name, "cpu_time") + " and " + spelled(name, "metric") + " exclude each other (give one)");
  }
  if (s.maximize && s.metric.empty()) {
    throw_error(ErrorCode::invalid_argument, spelled(name, "maximize") + " applies only with " + spelled(name, "metric") +
                                                 " (wall and CPU times are better smaller)");
  }
  try {
    read_metric(s.metric, "");
  } catch (const Error& e) {
    bad_setting(name, "metric", e.what());
  }
  if (!s.spec.autonuma.empty()) {
    if (::geteuid() != 0) bad_setting(name, "autonuma", "changing kernel.numa_balancing needs root");
    try {
      const AutoNumaSwitch probe;
    } catch (const Error& e) {
      bad_setting(name, "autonuma", e.what());
    }
  }
  grid_ = make_grid(s.spec);
  for (const GridPoint& point : grid_) {
    try {
      find_allocator_library(point.options.allocator);
    } catch (const Error& e) {
      bad_setting(name, "allocators", e.what(), e.code());
    }
    try {
      launches_.push_back(prepare_launch(point.options, os::topology()));
    } catch (const Error& e) {
      bad_setting(name, "policies", e.what(), e.code());
    }
  }
}

TuneResult Tuner::run(const ProgressCallback& progress) const {
  const TuneSettings& s = settings_;
  TuneResult result;
  result.settings = s;
  const os::MachineFacts facts = os::read_machine_facts();
  result.thp_mode = facts.thp_enabled;
  result.autonuma = facts.numa_balancing;
  std::optional<AutoNumaSwitch> autonuma;
  if (!s.spec.autonuma.empty()) autonuma.emplace();
  for (const GridPoint& point : grid_) result.configurations.push_back(ConfigurationResult{point, {}, 0, {}, 0, {}, {}});

  for (int i = 0; i < s.warmup; ++i) {
    check_cancelled();
    ConfigurationResult warm;
    const double seconds = measure_once(s, launches_[0], warm);
    if (!warm.failure.empty()) {
      throw_error(ErrorCode::invalid_argument, "the command fails without any knob (warm-up): " + warm.failure);
    }
    result.warmup_seconds = seconds;
  }

  std::size_t keep = grid_.size();
  if (s.budget_seconds > 0 && result.warmup_seconds > 0) {
    keep = static_cast<std::size_t>(s.budget_seconds / (result.warmup_seconds * s.repetitions));
    result.cut_by_budget = keep < grid_.size();
  }
  result.measured = most_promising(grid_, keep);
  const std::vector<std::size_t> order = run_order(result.measured, s.repetitions, s.seed);
  result.runs_planned = order.size();

  const auto start = std::chrono::steady_clock::now();
  TuneProgress step;
  step.total = order.size();
  for (std::size_t k = 0; k < order.size(); ++k) {
    check_cancelled();
    step.elapsed_seconds = seconds_since(start);
    if (s.budget_seconds > 0 && step.elapsed_seconds > s.budget_seconds) {
      result.cut_by_budget = true;
      break;
    }
    step.next = &grid_[order[k]];
    if (progress) progress(step);
    const GridPoint& point = grid_[order[k]];
    // A point without an AutoNUMA value (the default) runs with the system's own.
    if (autonuma) autonuma->set(point.autonuma ? *point.autonuma : autonuma->original() != "0");
    measure_once(s, launches_[order[k]], result.configurations[order[k]]);
    result.runs_done = k + 1;
    step.done = k + 1;
    step.finished = &point;
    step.elapsed_seconds = seconds_since(start);
    step.seconds_left = step.elapsed_seconds / static_cast<double>(step.done) * static_cast<double>(order.size() - step.done);
  }
  step.next = nullptr;
  if (progress && step.done > 0) progress(step);
  return result;
}

std::string TuneResult::value_kind() const {
  if (!settings.metric.empty()) return "metric";
  return settings.cpu_time ? "cpu_seconds" : "seconds";
}

std::vector<std::size_t> TuneResult::ranking() const {
  std::vector<std::size_t> order;
  for (const std::size_t p : measured) {
    if (configurations[p].runs > 0) order.push_back(p);
  }
  const auto key = [&](std::size_t p) {
    const ConfigurationResult& c = configurations[p];
    const double median = c.summary().median;
    return std::make_pair(!c.ok(), settings.maximize ? -median : median);
  };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
  return order;
}

std::optional<std::size_t> TuneResult::best() const {
  const std::vector<std::size_t> ranked = ranking();
  if (ranked.empty() || !configurations[ranked[0]].ok()) return std::nullopt;
  return ranked[0];
}

double TuneResult::gain(std::size_t p) const {
  const double base = configurations[0].summary().median;
  const double mine = configurations[p].summary().median;
  if (base <= 0 || mine <= 0) return 0;
  return settings.maximize ? mine / base : base / mine;
}

bool TuneResult::separated_from_default(std::size_t p) const {
  if (p == 0 || configurations[p].values.empty()) return false;
  const util::Summary mine = configurations[p].summary(), base = configurations[0].summary();
  return settings.maximize ? mine.min > base.max : mine.max < base.min;
}

std::string TuneResult::run_line(std::size_t p) const {
  const std::string flags = run_flags(configurations[p].point.options);
  std::string line = "smartarrays run " + (flags.empty() ? "" : flags + " ") + "--";
  for (const std::string& word : settings.command) line.append(1, ' ').append(shell_word(word));
  return line;
}

std::string tune_report_json(const TuneResult& r, std::string_view machine_facts_json) {
  const TuneSettings& s = r.settings;
  Json json;
  json["format"] = "smartarrays.tune/1";
  json["machine"] = Json::parse(machine_facts_json);
  json["command"] = s.command;
  json["value"] = r.value_kind();
  json["metric"] = s.metric;
  json["maximize"] = s.maximize;
  json["repetitions"] = s.repetitions;
  json["system"] = {{"thp_enabled", r.thp_mode}, {"numa_balancing", r.autonuma}};
  json["cut_by_budget"] = r.cut_by_budget;
  json["configurations"] = Json::array();
  for (const std::size_t p : r.ranking()) {
    const ConfigurationResult& c = r.configurations[p];
    const util::Summary t = c.summary();
    Json point = {{"median_s", t.median}, {"min_s", t.min}, {"max_s", t.max}, {"spread", t.spread()}};
    point["label"] = c.point.label();
    point["run_flags"] = run_flags(c.point.options);
    point["autonuma"] = c.point.autonuma ? Json(*c.point.autonuma) : Json();
    point["default"] = p == 0;
    point["gain_over_default"] = r.gain(p);
    point["separated_from_default"] = r.separated_from_default(p);
    point["values"] = c.values;
    point["runs"] = c.runs;
    point["failure"] = c.failure;
    point["max_rss_kib"] = c.max_rss_kib;
    point["minor_faults_median"] = util::summarize(c.minor_faults).median;
    point["context_switches_median"] = util::summarize(c.context_switches).median;
    json["configurations"].push_back(point);
  }
  // Text from /proc or a command's arguments need not be UTF-8; a stray byte becomes U+FFFD.
  return json.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace smartarrays::tune
