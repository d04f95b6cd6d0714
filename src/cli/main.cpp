// Owns the `smartarrays` executable's entry point; everything else is the command tree's. A
// command line starting with `run` gets the tree of run alone (the same parse, checks and errors),
// since a launcher's start time is added to every program it starts.
#include <cstring>

#include "cli/commands.hpp"

int main(int argc, char** argv) {
  const bool run = argc > 1 && std::strcmp(argv[1], "run") == 0;
  return (run ? smartarrays::cli::make_run_tree() : smartarrays::cli::make_command_tree())->run(argc, argv);
}
