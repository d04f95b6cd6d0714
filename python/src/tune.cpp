// Owns the binding of the NUMA tuning tool (smartarrays.tune): one command run under the knobs of
// `smartarrays run`, and the grid search of `smartarrays tune` (tune/tuner.hpp), both with the GIL
// released while children run and Ctrl-C raising KeyboardInterrupt (the running child killed, the
// search stopped, AutoNUMA restored); a progress callback runs with the GIL taken after each run.
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "binding.hpp"
#include "os/cpu_list.hpp"
#include "smartarrays/tune/spawn.hpp"
#include "smartarrays/tune/tuner.hpp"

namespace smartarrays::python {

namespace {

using namespace nb::literals;

// parse(text), a refusal naming the argument ("allocator: unknown allocator 'hoard' ...").
template <typename Parse>
auto parse_named(const char* argument, const std::string& text, Parse parse) -> decltype(parse(text)) {
  try {
    return parse(text);
  } catch (const Error& e) {
    throw Error(e.code(), std::string(argument) + ": " + e.message());
  }
}

// Each text of a list argument through parse, a refusal naming the argument ("allocators: ...").
template <typename T, typename Parse>
std::vector<T> parse_each(const char* argument, const std::vector<std::string>& texts, Parse parse) {
  std::vector<T> values;
  for (const std::string& text : texts) values.push_back(parse_named(argument, text, parse));
  return values;
}

// A knob's Python value: None keeps what the spec has (the command's default), a list replaces it.
template <typename T, typename Parse>
void set_knob(std::vector<T>& knob, const char* argument, const std::optional<std::vector<std::string>>& texts, Parse parse) {
  if (texts) knob = parse_each<T>(argument, *texts, parse);
}

// (exit_code, signal, seconds, cpu_seconds, timed_out, stdout, max_rss_kib, minor_faults,
// major_faults, voluntary_switches, involuntary_switches) of one run; the package makes a dataclass.
using RunTuple = std::tuple<std::optional<int>, std::optional<int>, double, double, bool, nb::bytes, long, long, long, long, long, std::uint64_t>;

RunTuple run_command(const std::vector<std::string>& command, const std::string& allocator,
                     const std::optional<std::string>& policy, const std::optional<std::string>& cpus,
                     const std::string& pinning, std::size_t threads, std::optional<bool> thp, double timeout) {
  if (const std::string problem = tune::command_problem(command); !problem.empty()) {
    throw_error(ErrorCode::invalid_argument, "command: " + problem);
  }
  if (!(timeout >= 0 && timeout <= 1e7)) throw_error(ErrorCode::invalid_argument, "timeout: expected 0 (no limit) to 10000000 seconds");
  tune::LaunchOptions options;
  options.allocator = parse_named("allocator", allocator, [](const std::string& t) { return tune::parse_allocator(t); });
  if (policy) options.policy = parse_named("policy", *policy, [](const std::string& t) { return tune::parse_memory_policy(t); });
  if (cpus) {
    options.cpus = parse_named("cpus", *cpus, [](const std::string& t) { return os::parse_cpu_list(t); });
    if (options.cpus.empty()) throw_error(ErrorCode::invalid_argument, "cpus: the CPU list is empty");
  }
  options.pinning = parse_named("pinning", pinning, [](const std::string& t) { return runtime::parse_pin_policy(t); });
  options.threads = threads;
  options.thp = thp;
  const tune::Launch launch = tune::prepare_launch(options);
  const tune::ChildRun run = interruptible([&] { return tune::run_child(launch, command, timeout, true); });
  if (run.exec_failed) throw_error(ErrorCode::os_error, run.output);
  return {run.exit_code >= 0 ? std::optional<int>(run.exit_code) : std::nullopt,
          run.signal != 0 ? std::optional<int>(run.signal) : std::nullopt,
          run.seconds,
          run.cpu_seconds,
          run.timed_out,
          nb::bytes(run.output.data(), run.output.size()),
          run.max_rss_kib,
          run.minor_faults,
          run.major_faults,
          run.voluntary_switches,
          run.involuntary_switches,
          run.output_dropped};
}

// (the report as JSON, whether a configuration ran without a failure, its run line) of a grid search.
using GridTuple = std::tuple<std::string, bool, std::string>;

GridTuple grid(const std::vector<std::string>& command, const std::optional<std::vector<std::string>>& allocators,
               const std::optional<std::vector<std::string>>& policies,
               const std::optional<std::vector<std::string>>& pinnings, const std::optional<std::vector<bool>>& thp,
               const std::optional<std::vector<std::size_t>>& threads, int repetitions, int warmup,
               const std::string& metric, bool maximize, double budget, double timeout, bool cpu_time, std::uint64_t seed,
               const std::optional<nb::callable>& progress) {
  tune::TuneSettings s;
  s.command = command;
  set_knob(s.spec.allocators, "allocators", allocators, [](const std::string& t) { return tune::parse_allocator(t); });
  set_knob(s.spec.policies, "policies", policies, [](const std::string& t) { return tune::parse_memory_policy(t); });
  set_knob(s.spec.pinnings, "pinnings", pinnings, [](const std::string& t) { return runtime::parse_pin_policy(t); });
  if (thp) s.spec.thp = *thp;
  if (threads) s.spec.threads = *threads;
  s.repetitions = repetitions;
  s.warmup = warmup;
  s.metric = metric;
  s.maximize = maximize;
  s.budget_seconds = budget;
  s.timeout_seconds = timeout;
  s.cpu_time = cpu_time;
  s.seed = seed;
  const tune::Tuner tuner(std::move(s));

  // The callback takes the GIL; when it raises, its exception is kept as Python's pending error and
  // the search stops with Error(cancelled), which is then replaced by that exception.
  bool callback_raised = false;
  tune::ProgressCallback report;
  if (progress) {
    report = [&progress, &callback_raised](const tune::TuneProgress& p) {
      if (p.finished == nullptr) return;
      nb::gil_scoped_acquire gil;
      try {
        nb::dict step;
        step["done"] = p.done;
        step["total"] = p.total;
        step["label"] = p.finished->label();
        step["elapsed_seconds"] = p.elapsed_seconds;
        step["seconds_left"] = p.seconds_left ? nb::cast(*p.seconds_left) : nb::none();
        (*progress)(step);
      } catch (nb::python_error& e) {
        e.restore();
        callback_raised = true;
        throw Error(ErrorCode::cancelled, "the progress callback raised");
      }
    };
  }
  std::optional<tune::TuneResult> result;
  try {
    result.emplace(interruptible([&] { return tuner.run(report); }));
  } catch (const Error&) {
    if (callback_raised) throw nb::python_error();
    throw;
  }
  const std::optional<std::size_t> best = result->best();
  return {tune::tune_report_json(*result, machine_facts_json()), best.has_value(), best ? result->run_line(*best) : std::string()};
}

}  // namespace

void bind_tune(nb::module_& m) {
  m.def("_tune_run", &run_command, "command"_a, "allocator"_a, "policy"_a.none(), "cpus"_a.none(), "pinning"_a,
        "threads"_a, "thp"_a.none(), "timeout"_a,
        "Runs command once under the knobs of `smartarrays run`; (exit_code, signal, seconds, cpu_seconds, "
        "timed_out, stdout, max_rss_kib, minor_faults, major_faults, voluntary_switches, involuntary_switches).");
  m.def("_tune_grid", &grid, "command"_a, "allocators"_a.none(), "policies"_a.none(), "pinnings"_a.none(), "thp"_a.none(),
        "threads"_a.none(), "repetitions"_a, "warmup"_a, "metric"_a, "maximize"_a, "budget"_a, "timeout"_a,
        "cpu_time"_a, "seed"_a, "progress"_a.none(),
        "The grid search of `smartarrays tune`; (report JSON of schema smartarrays.tune/1, whether a best "
        "configuration exists, its `smartarrays run` line).");
}

}  // namespace smartarrays::python
