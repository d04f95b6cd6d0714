// Owns the measuring harness every benchmark program and `smartarrays bench` share (as GAPBS's
// BenchmarkKernel): a kernel runs its warm-up trials untimed, then its timed trials, each result
// checked by a verification hook, and the times reduced to median, minimum, maximum and spread.
// The library never times itself; timing lives here, on the bench/CLI side.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace smartarrays::measure {

/// Timed runs and their statistics, in seconds.
struct Timing {
  std::vector<double> seconds;  ///< every timed run, in run order
  double median = 0;            ///< the middle run (the upper one of an even count)
  double min = 0;               ///< the fastest run
  double max = 0;               ///< the slowest run
  /// (max - min) / median: the spread reported next to every median; 0 when the median is 0.
  double spread() const noexcept { return median > 0 ? (max - min) / median : 0; }
};

/// The statistics of seconds (kept in run order); all zero when seconds is empty.
Timing summarize(std::vector<double> seconds);

/// What a timed run's seconds count.
enum class Clock {
  wall,        ///< the steady clock: what every multi-threaded measurement uses
  thread_cpu,  ///< the calling thread's CPU time: single-threaded kernels on a shared machine,
               ///< where a run preempted by other processes would otherwise count their time
};

/// How often a kernel runs.
struct Trials {
  int warmup = 1;       ///< untimed runs first
  int repetitions = 5;  ///< timed runs (at least 1)
  Clock clock = Clock::wall;  ///< honoured by run_round_robin and run_alternating
};

/// Seconds one call of f takes on the steady clock.
template <typename F>
double time_once(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  std::forward<F>(f)();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Seconds one call of f takes on clock (thread_cpu: the calling thread's CPU time).
double time_once(Clock clock, const std::function<void()>& f);

/// Throws Error(internal) "verification failed on <run>: <why>"; what run_trials does when a check fails.
[[noreturn]] void fail_verification(int run, const Trials& trials, const std::string& why);

/// Runs kernel trials.warmup times untimed, then trials.repetitions times timed. After every run
/// (warm-up included, outside the timed span) verify(result) returns "" when the result is right,
/// else why it is wrong, and the measurement stops with fail_verification.
template <typename Kernel, typename Verify>
Timing run_trials(const Trials& trials, Kernel&& kernel, Verify&& verify) {
  std::vector<double> seconds;
  for (int run = 0; run < trials.warmup + trials.repetitions; ++run) {
    const auto start = std::chrono::steady_clock::now();
    const auto result = kernel();
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::string why = verify(result);
    if (!why.empty()) fail_verification(run, trials, why);
    if (run >= trials.warmup) seconds.push_back(elapsed);
  }
  return summarize(std::move(seconds));
}

/// Runs kernel (whose result needs no check) as run_trials does.
template <typename Kernel>
Timing run_trials(const Trials& trials, Kernel&& kernel) {
  return run_trials(
      trials, [&] { return (kernel(), 0); }, [](int) { return std::string(); });
}

/// Runs every kernel in turn (a warm-up round, then round after round: k0, k1, ..., k0, k1, ...), so
/// all of them see the same load on a shared machine; returns their timings in kernels' order.
std::vector<Timing> run_round_robin(const Trials& trials, const std::vector<std::function<void()>>& kernels);

/// Runs a and b alternately (a warm-up of each, then a, b, a, b, ...), so that on a shared, noisy
/// machine both sides of a ratio see the same load; returns their timings.
std::pair<Timing, Timing> run_alternating(const Trials& trials, const std::function<void()>& a,
                                          const std::function<void()>& b);

}  // namespace smartarrays::measure
