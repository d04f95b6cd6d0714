// Owns the shape of the `smartarrays` command line: the CLI11 tree of commands with the check and
// the runner of each, help texts in the command's layout (usage, description, option groups,
// examples), and the one error path: exit code 2 with a message naming the flag for a bad command
// line or the variable for a bad SMARTARRAYS_* setting, 1 for an error from the library. Every check
// (flags, settings) runs before any work, so a bad command line never costs a load or a build.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace smartarrays::cli {

/// Exit code for a bad command line or environment variable (as getopt-style tools use).
inline constexpr int exit_usage = 2;
/// Exit code when the library reports an error.
inline constexpr int exit_failure = 1;

/// What a command does once its command line is parsed; returns the exit code.
using Runner = std::function<int()>;
/// What a command checks once its command line is parsed, before any work: ranges, combinations,
/// sizes against the machine. Throws UsageError naming the flag; returns normally when it may run.
using Check = std::function<void()>;
/// What adds a command's flags and subcommands to its app (CommandTree::define).
using Definition = std::function<void(CLI::App&)>;

/// The commands of `smartarrays` and what each runs. A command's flags and subcommands are added
/// when the command line reaches it (define), so a command line pays only for the commands it names.
class CommandTree {
 public:
  /// The root command; header and footer frame its help (the root's runner is set with runner()).
  CommandTree(const std::string& header, const std::string& footer);

  /// Adds command name under parent. header (usage line and description) and footer (examples)
  /// frame its help; noun names its subcommands in errors ("benchmark") when it has some; run is
  /// called when the command line ends at it.
  CLI::App& add(CLI::App& parent, const std::string& name, const std::string& header, Runner run,
                const std::string& footer = "", const std::string& noun = "");
  /// Sets what runs when the command line ends at app.
  void runner(CLI::App& app, Runner run) { runners_[&app] = std::move(run); }
  /// Sets what app checks before its runner runs (at most one check per command).
  void check(CLI::App& app, Check check) { checks_[&app] = std::move(check); }
  /// Sets what adds app's flags and subcommands: it runs once, when the parse enters app (before its
  /// first argument) or find() walks through it; until then app has its name, header and -h only.
  void define(CLI::App& app, Definition definition);
  /// Exempts app from the start-up check of every SMARTARRAYS_* setting: for a launcher, whose
  /// program checks its own settings, and whose start time is added to that program's (its check
  /// reads the settings its flags use, e.g. SMARTARRAYS_TOPOLOGY for `run --policy`).
  void skip_settings_check(CLI::App& app) { settings_free_.insert(&app); }
  /// Makes a second Ctrl-C or SIGTERM interrupt app as the first did, instead of killing it: for a
  /// command whose unwinding restores system state (tune's AutoNUMA switch, its children).
  void unwind_on_every_signal(CLI::App& app) { unwind_always_.insert(&app); }
  /// Makes each of flags, when given to app, a bad command line unless holds() once the command line
  /// is parsed and checked: a flag the chosen mode would ignore is named ("--scale applies only to
  /// --kind rmat", condition being "to --kind rmat"), never silently dropped.
  void applies_only(CLI::App& app, std::vector<std::string> flags, std::string condition, std::function<bool()> holds) {
    scopes_[&app].push_back({std::move(flags), std::move(condition), std::move(holds)});
  }
  /// Where help and messages go (std::cout and std::cerr unless set; the fuzz harness silences them).
  void streams(std::ostream& out, std::ostream& err) {
    out_ = &out;
    err_ = &err;
  }
  /// The root command.
  CLI::App& root() { return root_; }

  /// Parses the arguments and runs the selected command; prints help and errors; returns the exit
  /// code (1 when what it printed could not be written, e.g. to a full disk).
  int run(int argc, const char* const* argv);
  /// The parse step of run(): parses the arguments, checks the SMARTARRAYS_* settings and runs the
  /// selected command's check, without running it. Returns the exit code when the command line ends
  /// here (help shown, or an error printed), nothing when the command may run.
  std::optional<int> parse(int argc, const char* const* argv);

  /// The help text of app: header, its option groups (-h, --help last), footer.
  static std::string help(const CLI::App& app);
  /// "smartarrays bench aggregate" for the aggregate command.
  static std::string path(const CLI::App& app);
  /// The command words after "smartarrays" naming app, as help lists them ("bench aggregate").
  static std::string words(const CLI::App& app);
  /// The command at words under the root (e.g. {"bench", "aggregate"}), defined; throws UsageError
  /// naming an unknown word.
  const CLI::App& find(const std::vector<std::string>& words);

 private:
  void complete(CLI::App& app);
  void check_extras(const CLI::App& app) const;
  void check_scopes(const CLI::App& app) const;
  int usage_failure(const CLI::App& command, const std::string& message) const;
  int run_command(int argc, const char* const* argv);
  int written(int exit_code) const;

  CLI::App root_;
  std::ostream* out_ = &std::cout;
  std::ostream* err_ = &std::cerr;
  std::map<const CLI::App*, Runner> runners_;
  std::map<const CLI::App*, Check> checks_;
  std::map<const CLI::App*, Definition> definitions_;  // of the commands not yet defined
  std::map<const CLI::App*, std::string> nouns_;
  std::set<const CLI::App*> settings_free_;
  std::set<const CLI::App*> unwind_always_;
  // Flags that apply only when a condition holds (applies_only).
  struct FlagScope {
    std::vector<std::string> flags;
    std::string condition;
    std::function<bool()> holds;
  };
  std::map<const CLI::App*, std::vector<FlagScope>> scopes_;
};

}  // namespace smartarrays::cli
