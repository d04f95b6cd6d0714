// Owns the statistics, the verification failure and the alternating runs of timing.hpp.
#include "measure/timing.hpp"

#include <algorithm>

#include "smartarrays/error.hpp"

namespace smartarrays::measure {

Timing summarize(std::vector<double> seconds) {
  Timing timing;
  timing.seconds = std::move(seconds);
  if (timing.seconds.empty()) return timing;
  std::vector<double> sorted = timing.seconds;
  std::sort(sorted.begin(), sorted.end());
  timing.median = sorted[sorted.size() / 2];
  timing.min = sorted.front();
  timing.max = sorted.back();
  return timing;
}

void fail_verification(int run, const Trials& trials, const std::string& why) {
  const std::string which = run < trials.warmup
                                ? "warm-up run " + std::to_string(run + 1) + " of " + std::to_string(trials.warmup)
                                : "timed run " + std::to_string(run - trials.warmup + 1) + " of " +
                                      std::to_string(trials.repetitions);
  throw_error(ErrorCode::internal, "verification failed on " + which + ": " + why);
}

std::pair<Timing, Timing> run_alternating(const Trials& trials, const std::function<void()>& a,
                                          const std::function<void()>& b) {
  for (int run = 0; run < trials.warmup; ++run) {
    a();
    b();
  }
  std::vector<double> seconds_a;
  std::vector<double> seconds_b;
  for (int run = 0; run < trials.repetitions; ++run) {
    seconds_a.push_back(time_once(a));
    seconds_b.push_back(time_once(b));
  }
  return {summarize(std::move(seconds_a)), summarize(std::move(seconds_b))};
}

}  // namespace smartarrays::measure
