// Owns the tests' way of running the `smartarrays` command as a user does: arguments through the
// shell, stdout captured, stderr through a file, the exit code decoded.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

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

}  // namespace smartarrays::test
