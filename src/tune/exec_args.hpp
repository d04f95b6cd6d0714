// Owns the argument and environment arrays execvpe takes for a launch, built before any fork (so a
// child only makes system calls), with a launcher's arguments before them; internal to the tune layer.
#pragma once

#include <string>
#include <vector>

#include "smartarrays/tune/launch.hpp"

namespace smartarrays::tune {

/// argv and launch_environment(launch) as NULL-terminated arrays; valid while the object lives.
class ExecArgs {
 public:
  /// Copies argv (non-empty) and the launch's environment; through, when given, is the program and
  /// arguments of a launcher that runs argv (through_args()).
  ExecArgs(const Launch& launch, const std::vector<std::string>& argv, const std::vector<std::string>& through = {})
      : argv_(through), environment_(launch_environment(launch)), through_(through.size()) {
    argv_.insert(argv_.end(), argv.begin(), argv.end());
    for (std::string& arg : argv_) args_.push_back(arg.data());
    for (std::string& entry : environment_) envp_.push_back(entry.data());
    args_.push_back(nullptr);
    envp_.push_back(nullptr);
  }
  ExecArgs(const ExecArgs&) = delete;
  ExecArgs& operator=(const ExecArgs&) = delete;
  /// The program (searched in PATH by execvpe).
  const char* program() const noexcept { return args_[through_]; }
  /// argv for execvpe.
  char* const* args() const noexcept { return args_.data() + through_; }
  /// The launcher's arguments followed by argv.
  char* const* through_args() const noexcept { return args_.data(); }
  /// envp for execvpe.
  char* const* envp() const noexcept { return envp_.data(); }

 private:
  std::vector<std::string> argv_, environment_;
  std::size_t through_;
  std::vector<char*> args_, envp_;
};

}  // namespace smartarrays::tune
