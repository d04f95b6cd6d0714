// Owns the libFuzzer harness of the command line: the input is split at newlines into the
// arguments after "smartarrays", and the command tree parses and checks them without running the
// command (CommandTree::parse). A bad command line must end in help (exit 0) or a usage error
// naming the flag (exit 2); a crash, a sanitizer report, an exception escaping as exit 1 (an
// unchecked conversion), a timeout or memory beyond libFuzzer's limits is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command_line.hpp"
#include "cli/commands.hpp"

namespace {

// The arguments: "smartarrays", then one per line of the input (a trailing newline adds none).
std::vector<std::string> arguments(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args{"smartarrays"};
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = text.find('\n', at);
    args.push_back(text.substr(at, end == std::string::npos ? std::string::npos : end - at));
    at = end == std::string::npos ? text.size() : end + 1;
  }
  return args;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // The checks compare sizes with the machine: keep what they may assume small and fixed.
  setenv("SMARTARRAYS_MEMORY_LIMIT_MB", "64", 0);
  setenv("SMARTARRAYS_THREADS", "1", 0);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::string> args = arguments(data, size);
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  const auto tree = smartarrays::cli::make_command_tree();
  tree->streams(out, err);
  const std::optional<int> exit = tree->parse(static_cast<int>(argv.size()), argv.data());
  if (exit && *exit != 0 && *exit != 2) {
    std::fprintf(stderr, "command-line finding: exit %d: %s\n", *exit, err.str().c_str());
    std::abort();
  }
  return 0;
}
