// Owns the `smartarrays` executable's entry point; everything else is the command tree's.
#include "cli/commands.hpp"

int main(int argc, char** argv) { return smartarrays::cli::make_command_tree()->run(argc, argv); }
