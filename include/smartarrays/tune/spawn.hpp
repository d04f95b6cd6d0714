// Owns running a program once under a Launch in a child process, the way `smartarrays tune` and the
// start-overhead benchmark need it: its stdout captured until it exits, a time limit (the child's
// whole process group is killed when it passes), the caller's interrupt check polled
// (runtime/interrupt.hpp), and what wait4 reports of the program itself, started through the
// launcher smartarrays-spawn (not counting the caller's memory): exit status or signal, peak RSS,
// page faults, context switches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "smartarrays/export.hpp"
#include "smartarrays/tune/launch.hpp"

namespace smartarrays::tune {

/// The most of a child's stdout run_child keeps: past it the oldest bytes are dropped (a command
/// printing without end once held all it printed, 8 GiB in 16 s of `yes`).
inline constexpr std::size_t captured_output_limit = std::size_t{64} << 20;

/// How one run of a program ended and what it cost.
struct ChildRun {
  double seconds = 0;           ///< wall time from fork to exit
  double cpu_seconds = 0;       ///< user + system CPU time of the child (ru_utime + ru_stime)
  bool timed_out = false;       ///< killed at the time limit
  bool exec_failed = false;     ///< the program could not be started (output says why)
  int exit_code = -1;           ///< exit status, -1 when it did not exit
  int signal = 0;               ///< the signal that ended it, 0 when it exited
  std::string output;           ///< its stdout (empty unless captured): the last captured_output_limit bytes
  std::uint64_t output_dropped = 0;  ///< bytes of stdout dropped before output's first (0 when all fit)
  long max_rss_kib = 0;         ///< peak resident set (ru_maxrss) of the program alone (docs/tune.md)
  long minor_faults = 0;        ///< page faults served without I/O
  long major_faults = 0;        ///< page faults that read from disk
  long voluntary_switches = 0;  ///< context switches while waiting
  long involuntary_switches = 0;  ///< context switches by preemption
  /// True when it exited with status 0.
  bool succeeded() const noexcept { return !timed_out && !exec_failed && signal == 0 && exit_code == 0; }
};

/// Why argv cannot be run: "no command to run" (empty, or an empty program name) or "argument N
/// contains a NUL byte" (exec would cut it there); "" when it can.
SMARTARRAYS_API std::string command_problem(const std::vector<std::string>& argv);

/// Runs argv under launch in a new process group; throws Error(invalid_argument) for a
/// command_problem; timeout_seconds <= 0 means no limit. Its stdout is captured when capture is set
/// (else inherited), until it exits: a process it leaves running is not waited for; stderr is inherited. An interrupt (the calling
/// thread's InterruptScope) kills the child and throws Error(cancelled). Throws Error(os_error) when
/// no child can be made.
SMARTARRAYS_API ChildRun run_child(const Launch& launch, const std::vector<std::string>& argv, double timeout_seconds,
                                   bool capture);

/// "exit 0", "exit 3", "signal 11 (Segmentation fault)", "timed out after 5 s", "not started: ...".
SMARTARRAYS_API std::string describe_end(const ChildRun& run, double timeout_seconds);

}  // namespace smartarrays::tune
