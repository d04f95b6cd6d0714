// Owns the `smartarrays` command's entry point: global flags, dispatch to subcommands, and the
// mapping of failures to exit codes (2 for a bad command line, 1 for an error from the library).
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "smartarrays.h"
#include "smartarrays/error.hpp"

namespace {

const char* const main_help =
    "usage: smartarrays <command> [options]\n"
    "\n"
    "Smart arrays: bit-compressed, NUMA-placed arrays with a topology-aware parallel runtime.\n"
    "\n"
    "commands:\n"
    "  topology          show NUMA nodes, CPUs, memory, distances, huge-page and NUMA-balancing settings\n"
    "  bench aggregate   time sum += a1[i] + a2[i] over bit widths x placements x threads (paper Fig. 10)\n"
    "  graph ...         CSR graphs as smart arrays: generate, convert, info, degree, pagerank (Fig. 11, 12)\n"
    "  help [COMMAND]    show help for a command\n"
    "\n"
    "options:\n"
    "  -h, --help        show this help\n"
    "  --version         print the library version\n"
    "\n"
    "environment:\n"
    "  SMARTARRAYS_THREADS    default number of worker threads (default: every usable CPU)\n"
    "  SMARTARRAYS_TOPOLOGY   fake topology for testing, e.g. nodes=2 or cpus=0;1\n"
    "\n"
    "Run 'smartarrays <command> --help' for a command's options. Exit codes: 0 success,\n"
    "1 error reported by the library, 2 bad command line.\n";

int help_for(const std::vector<std::string>& topic) {
  using namespace smartarrays::cli;
  if (topic.empty()) {
    std::cout << main_help;
  } else if (topic[0] == "topology") {
    std::cout << topology_help;
  } else if (topic[0] == "bench" && topic.size() > 1 && topic[1] == "aggregate") {
    std::cout << bench_aggregate_help;
  } else if (topic[0] == "graph") {
    return graph_command(topic.size() > 1 ? std::vector<std::string>{topic[1], "--help"} : std::vector<std::string>{"--help"});
  } else if (topic[0] == "bench") {
    std::cout << bench_help;
  } else {
    throw UsageError("help: unknown command '" + topic[0] + "' (see 'smartarrays --help')");
  }
  return 0;
}

int run(const std::vector<std::string>& args) {
  using namespace smartarrays::cli;
  if (args.empty()) {
    std::cerr << main_help;
    return exit_usage;
  }
  const std::string& command = args[0];
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "-h" || command == "--help") return help_for({});
  if (command == "--version") {
    std::cout << "smartarrays " << sa_version() << "\n";
    return 0;
  }
  if (command == "help") return help_for(rest);
  if (command == "topology") return topology_command(rest);
  if (command == "bench") return bench_command(rest);
  if (command == "graph") return graph_command(rest);
  if (command.rfind("-", 0) == 0) throw UsageError("unknown option '" + command + "' (see 'smartarrays --help')");
  throw UsageError("unknown command '" + command + "' (see 'smartarrays --help')");
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const smartarrays::cli::UsageError& e) {
    std::cerr << "smartarrays: " << e.what() << "\n";
    return smartarrays::cli::exit_usage;
  } catch (const smartarrays::Error& e) {
    std::cerr << "smartarrays: error: " << e.what() << "\n";
    return smartarrays::cli::exit_failure;
  } catch (const std::exception& e) {
    std::cerr << "smartarrays: error: " << e.what() << "\n";
    return smartarrays::cli::exit_failure;
  }
}
