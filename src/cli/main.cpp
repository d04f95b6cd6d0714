// Owns the `smartarrays` executable's entry point; everything else is the command tree's, which
// defines only the commands the command line names (the fuzz harness parses through the same tree).
#include "cli/commands.hpp"

int main(int argc, char** argv) { return smartarrays::cli::make_command_tree()->run(argc, argv); }
