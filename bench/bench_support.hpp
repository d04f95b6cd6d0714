// Owns what the benchmark programs share beyond the measuring harness of src/measure (timing,
// statistics, the report writer): their CLI11 command lines, and keeping computed values alive.
#pragma once

#include <CLI/CLI.hpp>

#include <iostream>

namespace smartarrays::bench {

/// Where the programs write their JSON unless --out says otherwise (`make bench` passes build/bench-results).
inline const char* const default_out_dir = "build/bench-results";

/// Parses the command line into app: -1 to go on, else the exit code to return (0 after --help,
/// which prints the usage; 2 for a bad command line, with the message naming the flag on stderr).
inline int parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
    return -1;
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    std::cerr << app.get_name() << ": " << e.what() << "\n" << app.help();
    return 2;
  }
}

/// Keeps the compiler from discarding a computed value.
template <typename T>
inline void keep(const T& value) {
  asm volatile("" : : "g"(&value) : "memory");
}

}  // namespace smartarrays::bench
