// Owns `smartarrays run`: a launcher like numactl that applies the tuning knobs of
// numa-analytics-strategies §3 (allocator, memory policy, CPU set, thread count, THP) to itself and
// execs the command, so the command's exit status and signals are its own (docs/tune.md).
#include <cerrno>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/launch_options.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::cli {

namespace {

const char* const run_usage = "smartarrays run [options] -- COMMAND [ARGS...]";

const char* const run_header =
    "usage: smartarrays run [options] -- COMMAND [ARGS...]\n"
    "\n"
    "Runs COMMAND in place of this process (exec) with the NUMA tuning knobs of the analytics\n"
    "strategies study applied: a memory allocator preloaded from its Debian package, a memory\n"
    "placement policy, a CPU set, the thread count exported to programs that read one, and\n"
    "transparent huge pages switched off for the process. A knob not given stays as inherited.\n"
    "The exit status and signals are COMMAND's; 127 when it is not found, 126 when it cannot run\n"
    "(docs/tune.md).\n";

const char* const run_footer =
    "examples:\n"
    "  smartarrays run --allocator tbbmalloc --policy interleave -- ./join 16M\n"
    "  smartarrays run --pinning sparse --threads 2 --thp off -- smartarrays bench aggregate\n";

}  // namespace

void add_run_command(CommandTree& tree) {
  struct RunFlags {
    tune::LaunchOptions options;
    std::vector<std::string> command;
    tune::Launch launch;
  };
  auto flags = std::make_shared<RunFlags>();
  CLI::App& app = tree.add(tree.root(), "run", run_header, [flags] {
    std::string why;
    const int error = tune::exec_launch(flags->launch, flags->command, why);
    std::cerr << "smartarrays: run: " << util::printable(why) << "\n";
    return error == ENOENT ? 127 : 126;
  }, run_footer);
  tree.define(app, [flags](CLI::App& defined) {
    add_knob_flags(defined, flags->options);
    defined.add_option("COMMAND", flags->command, "the command and its arguments");
  });
  tree.skip_settings_check(app);
  tree.check(app, [flags] {
    check_command(flags->command, run_usage);
    flags->launch = checked_launch(flags->options);
  });
}

}  // namespace smartarrays::cli
