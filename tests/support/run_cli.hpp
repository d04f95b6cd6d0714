// Owns the tests' way of running the `smartarrays` command as a user does: arguments through the
// shell, stdout captured, stderr through a file, the exit code decoded.
#pragma once

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

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

}  // namespace smartarrays::test
