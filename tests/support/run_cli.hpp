// Owns the tests' way of running the `smartarrays` command as a user does: arguments through the
// shell, stdout captured, stderr through a file, the exit code decoded; and the check that what it
// printed has a part.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/scratch_dir.hpp"

namespace smartarrays::test {

/// What one run of the command printed and returned (exit_code -1 when it did not exit normally).
struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// The whole content of a file (binary-safe), "" when it cannot be read.
inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Runs the command with args (shell-quoted where needed) after an optional environment prefix;
/// stderr goes through stderr_path, which is removed afterwards.
inline CliRun run_cli(const std::string& args, const std::string& stderr_path, const std::string& env = "") {
  const std::string command =
      env + (env.empty() ? "" : " ") + SMARTARRAYS_CLI_PATH + " " + args + " 2>" + stderr_path;
  CliRun result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) result.out.append(buffer, n);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.err = read_file(stderr_path);
  std::filesystem::remove(stderr_path);
  return result;
}

/// Runs the command with args, its stderr through a file of dir.
inline CliRun cli(const ScratchDir& dir, const std::string& args) { return run_cli(args, dir.file("stderr.txt")); }

/// Whether text (what the command printed) has part in it.
inline bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// Waits up to seconds for child pid to end and returns its wait status; a child still running then
/// is killed and reaped, and the answer is empty.
inline std::optional<int> wait_for_exit(pid_t pid, int seconds) {
  int status = 0;
  for (int i = 0; i < seconds * 20; ++i) {
    if (::waitpid(pid, &status, WNOHANG) == pid) return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return std::nullopt;
}

/// What an interrupted run did: whether it had started (the caller's sign) when SIGINT was sent,
/// its wait status (empty when it still ran a minute later and was killed), and its stderr.
struct InterruptedRun {
  bool started = false;
  std::optional<int> status;
  std::string err;
};

/// Starts the command with args (no shell; stderr to stderr_path), waits up to a minute until
/// started() says it is at work, sends it SIGINT and waits up to a minute for it to end.
inline InterruptedRun interrupt_cli(const std::vector<std::string>& args, const std::string& stderr_path,
                                    const std::function<bool()>& started) {
  std::vector<char*> argv{const_cast<char*>("smartarrays")};
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  InterruptedRun run;
  const pid_t pid = ::fork();
  if (pid < 0) return run;
  if (pid == 0) {
    const int fd = ::open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ::dup2(fd, 2) < 0) ::_exit(99);
    // As a terminal's foreground command: SIGINT not ignored, even when the tests run in a
    // background job (which a shell starts with SIGINT ignored, and the command then keeps ignoring).
    ::signal(SIGINT, SIG_DFL);
    ::execv(SMARTARRAYS_CLI_PATH, argv.data());
    ::_exit(98);
  }
  for (int i = 0; i < 1200 && !run.started; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    run.started = started();
  }
  ::kill(pid, SIGINT);
  run.status = wait_for_exit(pid, 60);
  run.err = read_file(stderr_path);
  return run;
}

}  // namespace smartarrays::test
