// Owns running a program in a child under a Launch (spawn.hpp): fork, the launch's system calls and
// exec in the child (system calls only after fork) of the program through smartarrays-spawn, whose
// report gives the program's own resource usage, stdout through a pipe polled against the time
// limit and the interrupt check until the child exits, and wait4's resource usage.
#include "smartarrays/tune/spawn.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "smartarrays/error.hpp"
#include "smartarrays/runtime/interrupt.hpp"
#include "smartarrays/util/text.hpp"
#include "tune/exec_args.hpp"
#include "tune/spawn_helper.hpp"
#include "tune/spawn_report.h"

namespace smartarrays::tune {
namespace {

using Clock = std::chrono::steady_clock;

// A pipe whose ends close when it goes.
struct Pipe {
  int fds[2] = {-1, -1};
  Pipe() {
    if (::pipe2(fds, O_CLOEXEC) != 0) throw_error(ErrorCode::os_error, std::string("pipe failed: ") + std::strerror(errno));
  }
  ~Pipe() {
    for (const int fd : fds) {
      if (fd >= 0) ::close(fd);
    }
  }
  void close_end(int i) {
    ::close(fds[i]);
    fds[i] = -1;
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
};

// The child after fork: its own process group, stdout to the pipe, the launch, exec of the program
// through smartarrays-spawn (report_fd stays open for it), or of the program itself when the system
// runs no launcher from memory; on failure the errno and the failed call go through the error pipe.
[[noreturn]] void become_child(const Launch& launch, const ExecArgs& exec, bool through_launcher, int out_fd, int error_fd,
                               int report_fd) {
  ::setpgid(0, 0);
  if (out_fd >= 0) ::dup2(out_fd, STDOUT_FILENO);
  const char* failed = "exec";
  int error = apply_launch(launch, &failed);
  if (error == 0) {
    const int helper = through_launcher ? spawn_helper_fd() : -1;
    if (helper >= 0 && ::fcntl(report_fd, F_SETFD, 0) == 0) {
      ::fexecve(helper, exec.through_args(), exec.envp());
      ::fcntl(report_fd, F_SETFD, FD_CLOEXEC);
    }
    ::execvpe(exec.program(), exec.args(), exec.envp());
    error = errno;
  }
  const ssize_t written = ::write(error_fd, &error, sizeof error);
  (void)written;
  ::_exit(127);
}

// Drops the oldest bytes of run.output past keep, counting them in run.output_dropped.
void keep_last(ChildRun& run, std::size_t keep) {
  if (run.output.size() <= keep) return;
  const std::size_t drop = run.output.size() - keep;
  run.output.erase(0, drop);
  run.output_dropped += drop;
}

// The report smartarrays-spawn wrote before it exited, if it did (fd is the pipe's read end).
std::optional<smartarrays_spawn_report> read_report(int fd) {
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  smartarrays_spawn_report report{};
  if (::read(fd, &report, sizeof report) != static_cast<ssize_t>(sizeof report)) return std::nullopt;
  return report;
}

// Whether child pid has exited (it stays unreaped, for wait4 to collect its usage).
bool exited(pid_t pid) {
  siginfo_t info{};
  return ::waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

// Appends one read of fd to run.output, keeping its last captured_output_limit bytes (dropped in
// batches of that size, so each byte moves at most once); returns read's result: the bytes read, 0
// at the end, -1 when nothing is there yet (fd non-blocking) or the read failed.
ssize_t read_some(int fd, ChildRun& run) {
  char buffer[65536];
  const ssize_t n = ::read(fd, buffer, sizeof buffer);
  if (n <= 0) return n;
  // Trimmed before it would pass twice the limit: the string's capacity stays at that.
  if (run.output.size() + static_cast<std::size_t>(n) > 2 * captured_output_limit) keep_last(run, captured_output_limit);
  run.output.append(buffer, static_cast<std::size_t>(n));
  return n;
}

// Reads the child's stdout until the child exits (or closes it), the time limit passes or an
// interrupt comes; returns false when it stopped waiting early (the child is then killed by the
// caller). Once the child has exited, everything it wrote is in the pipe: that much is read, and no
// more — a process it started may hold the pipe open for as long as it runs (a daemon), and it is
// the child that is measured, not its descendants.
bool collect(int fd, pid_t pid, int pidfd, ChildRun& run, Clock::time_point deadline, bool limited, bool& interrupted) {
  while (true) {
    if (runtime::interrupt_requested()) {
      interrupted = true;
      return false;
    }
    int wait_ms = 20;
    if (limited) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return false;
      wait_ms = static_cast<int>(std::min<long long>(left, wait_ms));
    }
    // The pidfd wakes the poll when the child exits.
    pollfd p[2] = {{fd, POLLIN, 0}, {pidfd, POLLIN, 0}};
    if (::poll(p, pidfd >= 0 ? 2 : 1, wait_ms) < 0 && errno != EINTR) return false;
    if ((p[0].revents & (POLLIN | POLLHUP)) != 0 && read_some(fd, run) <= 0) return true;
    if (!exited(pid)) continue;
    // The pipe holds at most its capacity: read that much of what is there, without waiting.
    const int capacity = ::fcntl(fd, F_GETPIPE_SZ);
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    ssize_t left = capacity > 0 ? capacity : 65536;
    while (left > 0) {
      const ssize_t n = read_some(fd, run);
      if (n <= 0) break;
      left -= n;
    }
    return true;
  }
}

}  // namespace

std::string command_problem(const std::vector<std::string>& argv) {
  if (argv.empty() || argv[0].empty()) return "no command to run";
  for (std::size_t i = 0; i < argv.size(); ++i) {
    if (argv[i].find('\0') != std::string::npos) return "argument " + std::to_string(i) + " contains a NUL byte";
  }
  return "";
}

ChildRun run_child(const Launch& launch, const std::vector<std::string>& argv, double timeout_seconds, bool capture) {
  if (const std::string problem = command_problem(argv); !problem.empty()) throw_error(ErrorCode::invalid_argument, problem);
  Pipe out, error, report;
  // A program named through /proc/self (the caller's own binary, say) is this process's file; in the
  // launcher /proc/self would be the launcher, so the path is resolved here, or the launcher skipped.
  std::vector<std::string> program = argv;
  bool through_launcher = true;
  if (argv[0].rfind("/proc/self/", 0) == 0) {
    char* resolved = ::realpath(argv[0].c_str(), nullptr);
    through_launcher = resolved != nullptr;
    if (resolved != nullptr) program[0] = resolved;
    std::free(resolved);
  }
  const ExecArgs exec(launch, program, {"smartarrays-spawn", std::to_string(report.fds[1])});
  spawn_helper_fd();  // made before the fork, once
  ChildRun run;
  const Clock::time_point start = Clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) throw_error(ErrorCode::os_error, std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) become_child(launch, exec, through_launcher, capture ? out.fds[1] : -1, error.fds[1], report.fds[1]);
  ::setpgid(pid, pid);  // also here, so the group exists before any kill below
  out.close_end(1);
  error.close_end(1);
  report.close_end(1);
  const bool limited = timeout_seconds > 0;
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_seconds));
  bool interrupted = false;
  // A pidfd turns readable when the child exits, so the waits end then rather than at a poll tick.
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  bool finished = capture ? collect(out.fds[0], pid, pidfd, run, deadline, limited, interrupted) : true;
  keep_last(run, captured_output_limit);
  int status = 0;
  rusage usage{};
  pid_t waited = 0;
  while (finished && (waited = ::wait4(pid, &status, WNOHANG, &usage)) == 0) {
    if (runtime::interrupt_requested()) {
      interrupted = true;
      finished = false;
    } else if (limited && Clock::now() >= deadline) {
      finished = false;
    } else if (pidfd >= 0) {
      pollfd p{pidfd, POLLIN, 0};
      ::poll(&p, 1, static_cast<int>(runtime::interrupt_poll_interval.count()));
    } else {
      ::usleep(1000);
    }
  }
  if (pidfd >= 0) ::close(pidfd);
  if (!finished) {
    ::kill(-pid, SIGKILL);
    waited = ::wait4(pid, &status, 0, &usage);
    run.timed_out = !interrupted;
  }
  run.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (interrupted) throw_error(ErrorCode::cancelled, "interrupted");
  if (waited != pid) throw_error(ErrorCode::os_error, std::string("wait4 failed: ") + std::strerror(errno));
  // The launcher's report is the program's own ending and usage; without one (no launcher ran, or it
  // was killed at the time limit) the child's are the program's.
  int exec_error = 0;
  if (const std::optional<smartarrays_spawn_report> own = finished ? read_report(report.fds[0]) : std::nullopt) {
    status = own->status;
    usage = own->usage;
    exec_error = own->exec_error;
  } else if (::read(error.fds[0], &exec_error, sizeof exec_error) != sizeof exec_error) {
    exec_error = 0;  // the pipe closed at a successful exec
  }
  if (exec_error != 0) {
    run.exec_failed = true;
    run.output = "cannot run " + util::quoted(argv[0]) + ": " + std::strerror(exec_error);
  }
  if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status) && !run.timed_out) run.signal = WTERMSIG(status);
  run.cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                    static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
  run.max_rss_kib = usage.ru_maxrss;
  run.minor_faults = usage.ru_minflt;
  run.major_faults = usage.ru_majflt;
  run.voluntary_switches = usage.ru_nvcsw;
  run.involuntary_switches = usage.ru_nivcsw;
  return run;
}

std::string describe_end(const ChildRun& run, double timeout_seconds) {
  if (run.exec_failed) return "not started: " + run.output;
  if (run.timed_out) {
    std::ostringstream text;
    text << "timed out after " << timeout_seconds << " s";
    return text.str();
  }
  if (run.signal != 0) return "signal " + std::to_string(run.signal) + " (" + ::strsignal(run.signal) + ")";
  return "exit " + std::to_string(run.exit_code);
}

}  // namespace smartarrays::tune
