// Owns the statistics, the verification failure and the alternating runs of timing.hpp.
#include "measure/timing.hpp"

#include <time.h>

#include "smartarrays/error.hpp"
#include "smartarrays/util/statistics.hpp"

namespace smartarrays::measure {

Timing summarize(std::vector<double> seconds) {
  const util::Summary summary = util::summarize(seconds);
  Timing timing;
  timing.seconds = std::move(seconds);
  timing.median = summary.median;
  timing.min = summary.min;
  timing.max = summary.max;
  return timing;
}

void fail_verification(int run, const Trials& trials, const std::string& why) {
  const std::string which = run < trials.warmup
                                ? "warm-up run " + std::to_string(run + 1) + " of " + std::to_string(trials.warmup)
                                : "timed run " + std::to_string(run - trials.warmup + 1) + " of " +
                                      std::to_string(trials.repetitions);
  throw_error(ErrorCode::internal, "verification failed on " + which + ": " + why);
}

namespace {

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

}  // namespace

double time_once(Clock clock, const std::function<void()>& f) {
  if (clock == Clock::wall) return time_once(f);
  const double start = thread_cpu_seconds();
  f();
  return thread_cpu_seconds() - start;
}

std::vector<Timing> run_round_robin(const Trials& trials, const std::vector<std::function<void()>>& kernels) {
  for (int run = 0; run < trials.warmup; ++run) {
    for (const auto& kernel : kernels) kernel();
  }
  std::vector<std::vector<double>> seconds(kernels.size());
  for (int run = 0; run < trials.repetitions; ++run) {
    for (std::size_t k = 0; k < kernels.size(); ++k) seconds[k].push_back(time_once(trials.clock, kernels[k]));
  }
  std::vector<Timing> timings;
  for (std::vector<double>& s : seconds) timings.push_back(summarize(std::move(s)));
  return timings;
}

std::pair<Timing, Timing> run_alternating(const Trials& trials, const std::function<void()>& a,
                                          const std::function<void()>& b) {
  const std::vector<Timing> t = run_round_robin(trials, {a, b});
  return {t[0], t[1]};
}

}  // namespace smartarrays::measure
