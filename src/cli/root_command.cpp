// Owns the whole `smartarrays` command tree: its root (help, --version and `help COMMAND`) and the
// registration of every subcommand; parsing, checks, dispatch and the exit codes (2 for a bad
// command line or setting, 1 for an error from the library) are the tree's.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "smartarrays.h"
#include "smartarrays/util/settings.hpp"

namespace {

using smartarrays::cli::CommandTree;

const char* const main_header =
    "usage: smartarrays <command> [options]\n"
    "\n"
    "Smart arrays: bit-compressed, NUMA-placed arrays with a topology-aware parallel runtime.\n"
    "\n"
    "commands:\n"
    "  topology          show NUMA nodes, CPUs, memory, distances, huge-page and NUMA-balancing settings\n"
    "  bench aggregate   time sum += a1[i] + a2[i] over bit widths x placements x threads (paper Fig. 10)\n"
    "  graph ...         CSR graphs as smart arrays: generate, convert, info, degree, pagerank (Fig. 11, 12)\n"
    "  store ...         store files (.sa, the compact form): list, info, verify, append\n"
    "  calibrate         measure this machine for placement=auto and bits=auto (cached per machine)\n"
    "  advise            the adaptive choice for a workload, its predicted times and why\n"
    "  run               run a command under an allocator, memory policy, CPU set and THP setting\n"
    "  tune              find the best of those knobs for a command, with its gain over the default\n"
    "  help [COMMAND]    show help for a command\n";

const char* const exit_codes =
    "Run 'smartarrays <command> --help' for a command's options. Exit codes: 0 success,\n"
    "1 error reported by the library, 2 bad command line or environment variable.\n";

// The root help's footer: every SMARTARRAYS_* variable of util::settings (name, what it changes,
// what it accepts), words wrapped under the name column, then the exit codes.
std::string main_footer() {
  constexpr std::size_t indent = 4, width = 100;
  std::string text = "environment (docs/settings.md):\n";
  for (const smartarrays::util::Setting& s : smartarrays::util::settings) {
    text += "  " + std::string(s.name) + "\n";
    std::string line(indent, ' ');
    const std::string words = std::string(s.meaning) + "; accepts " + std::string(s.values);
    for (std::size_t at = 0; at < words.size();) {
      const std::size_t space = words.find(' ', at);
      const std::string word = words.substr(at, space == std::string::npos ? std::string::npos : space - at);
      if (line.size() > indent && line.size() + 1 + word.size() > width) {
        text += line + "\n";
        line.assign(indent, ' ');
      }
      line += (line.size() > indent ? " " : "") + word;
      at = space == std::string::npos ? words.size() : space + 1;
    }
    text += line + "\n";
  }
  return text + "\n" + exit_codes;
}

const char* const help_header =
    "usage: smartarrays help [COMMAND]\n"
    "\n"
    "Shows the help of a command, e.g. 'smartarrays help bench aggregate'; the same as\n"
    "'smartarrays COMMAND --help'.\n";

void add_root(CommandTree& tree) {
  auto version = std::make_shared<bool>(false);
  smartarrays::cli::add_flag(tree.root(), "--version", *version, "print the library version");
  tree.runner(tree.root(), [version, &tree] {
    if (!*version) {
      std::cerr << CommandTree::help(tree.root());
      return smartarrays::cli::exit_usage;
    }
    std::cout << "smartarrays " << sa_version() << "\n";
    return 0;
  });
}

void add_help(CommandTree& tree) {
  auto topic = std::make_shared<std::vector<std::string>>();
  CLI::App& help = tree.add(tree.root(), "help", help_header, [topic, &tree] {
    std::cout << CommandTree::help(tree.find(*topic));
    return 0;
  });
  tree.define(help, [topic](CLI::App& defined) { defined.add_option("COMMAND", *topic); });
}

}  // namespace

namespace smartarrays::cli {

std::unique_ptr<CommandTree> make_command_tree() {
  auto tree = std::make_unique<CommandTree>(main_header, main_footer());
  add_root(*tree);
  add_topology_command(*tree);
  add_bench_command(*tree);
  add_graph_command(*tree);
  add_store_command(*tree);
  add_adapt_commands(*tree);
  add_run_command(*tree);
  add_tune_command(*tree);
  add_help(*tree);
  return tree;
}

}  // namespace smartarrays::cli
