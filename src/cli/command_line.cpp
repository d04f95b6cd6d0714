// Owns the command tree, the help layout, and the error path of command_line.hpp.
#include "cli/command_line.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>

#include "cli/options.hpp"
#include "cli/stop_signals.hpp"
#include "smartarrays/codec/kernels.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/os/memory_limit.hpp"
#include "smartarrays/os/topology.hpp"
#include "smartarrays/runtime/thread_pool.hpp"
#include "smartarrays/store/store.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::cli {

namespace {

constexpr std::size_t help_column = 22;  // where option descriptions start

// The command the parsed command line ends at.
const CLI::App& selected_command(const CLI::App& root) {
  const CLI::App* app = &root;
  while (!app->get_subcommands().empty()) app = app->get_subcommands().front();
  return *app;
}

// "-h, --help" or "--size N".
std::string option_names(const CLI::Option& option) {
  std::string names;
  for (const std::string& s : option.get_snames()) names += (names.empty() ? "-" : ", -") + s;
  for (const std::string& l : option.get_lnames()) names += (names.empty() ? "--" : ", --") + l;
  if (option.get_type_size() != 0) names += " " + option.get_type_name();
  return names;
}

// One option of a help text: names, then the description from help_column, continuation lines indented.
std::string option_line(const CLI::Option& option) {
  std::string line = "  " + option_names(option);
  line += line.size() + 2 <= help_column ? std::string(help_column - line.size(), ' ') : "  ";
  for (const char c : option.get_description()) line += c == '\n' ? "\n" + std::string(help_column, ' ') : std::string(1, c);
  return line + "\n";
}

// Two CLI11 messages in the command's words: "--size: 1 required N missing" becomes "--size needs a
// value", and "Could not convert: --quiet = maybe" (only flags convert in CLI11; values go through
// options.hpp's parsers) says what a flag accepts.
std::string usage_message(const CLI::ParseError& error) {
  const std::string message = error.what();
  const std::size_t required = message.find(": 1 required ");
  if (required != std::string::npos && message.size() > 8 && message.compare(message.size() - 8, 8, " missing") == 0) {
    return message.substr(0, required) + " needs a value";
  }
  const std::string convert = "Could not convert: ";
  const std::size_t equals = message.find(" = ");
  if (message.rfind(convert, 0) == 0 && equals != std::string::npos) {
    return message.substr(convert.size(), equals - convert.size()) +
           " takes no value, or true/false (yes/no, on/off, 1/0), got " + util::quoted(message.substr(equals + 3));
  }
  return message;
}

// Reads every SMARTARRAYS_* setting through the layer that owns it (util/settings.hpp lists them),
// so a bad one stops the command before any work rather than halfway through it. Throws Error
// naming the variable.
void check_settings() {
  os::topology();
  runtime::default_thread_count();
  codec::check_isa_setting();
  os::memory_limit();
  store::lock_wait_seconds();
}

// While it lives (and on is true), what the command prints to std::cout goes to std::cerr: its
// output file is standard output.
class StdoutToStderr {
 public:
  explicit StdoutToStderr(bool on) : saved_(on ? std::cout.rdbuf(std::cerr.rdbuf()) : nullptr) {}
  ~StdoutToStderr() {
    if (saved_ != nullptr) std::cout.rdbuf(saved_);
  }
  StdoutToStderr(const StdoutToStderr&) = delete;
  StdoutToStderr& operator=(const StdoutToStderr&) = delete;

 private:
  std::streambuf* saved_;
};

}  // namespace

CommandTree::CommandTree(const std::string& header, const std::string& footer) : root_(header, "smartarrays") {
  root_.footer(footer);
  root_.option_defaults()->group("options");
  root_.set_help_flag("-h,--help", "show this help");
  // Unknown words are reported by check_extras, in the command's own words.
  root_.allow_extras();
  root_.require_subcommand(0, 1);
  nouns_[&root_] = "command";
}

CLI::App& CommandTree::add(CLI::App& parent, const std::string& name, const std::string& header, Runner run,
                           const std::string& footer, const std::string& noun) {
  CLI::App& app = *parent.add_subcommand(name, header);
  app.footer(footer);
  app.option_defaults()->group("options");
  app.allow_extras();
  // At most one subcommand: a later word that names another command is an unexpected argument.
  app.require_subcommand(0, 1);
  runners_[&app] = std::move(run);
  if (!noun.empty()) nouns_[&app] = noun;
  return app;
}

void CommandTree::define(CLI::App& app, Definition definition) {
  definitions_[&app] = std::move(definition);
  app.preparse_callback([this, &app](std::size_t) { complete(app); });
}

void CommandTree::complete(CLI::App& app) {
  const auto pending = definitions_.find(&app);
  if (pending == definitions_.end()) return;
  const Definition definition = std::move(pending->second);
  definitions_.erase(pending);
  definition(app);
}

std::string CommandTree::help(const CLI::App& app) {
  std::vector<std::string> groups;
  std::map<std::string, std::string> lines;
  for (const CLI::Option* option : app.get_options()) {
    if (option == app.get_help_ptr() || !option->nonpositional() || option->get_group().empty()) continue;
    if (lines.find(option->get_group()) == lines.end()) groups.push_back(option->get_group());
    lines[option->get_group()] += option_line(*option);
  }
  if (groups.empty()) groups.emplace_back("options");
  if (app.get_help_ptr() != nullptr) lines[groups.back()] += option_line(*app.get_help_ptr());
  std::string text = app.get_description();
  for (const std::string& group : groups) text += "\n" + group + ":\n" + lines[group];
  if (!app.get_footer().empty()) text += "\n" + app.get_footer();
  return text;
}

std::string CommandTree::words(const CLI::App& app) {
  std::string words;
  for (const CLI::App* a = &app; a->get_parent() != nullptr; a = a->get_parent()) {
    words = a->get_name() + (words.empty() ? "" : " " + words);
  }
  return words;
}

std::string CommandTree::path(const CLI::App& app) {
  const std::string w = words(app);
  return "smartarrays" + (w.empty() ? "" : " " + w);
}

const CLI::App& CommandTree::find(const std::vector<std::string>& words) {
  CLI::App* app = &root_;
  for (const std::string& word : words) {
    const auto named = app->get_subcommands([&](CLI::App* sub) { return sub->get_name() == word; });
    if (named.empty()) throw UsageError("unknown command " + util::quoted(word));
    app = named.front();
    complete(*app);
  }
  return *app;
}

void CommandTree::check_extras(const CLI::App& app) const {
  std::vector<std::string> extras = app.remaining();
  // CLI11 keeps the "--" that ends the flags (`smartarrays run -- COMMAND`) among the extras.
  extras.erase(std::remove(extras.begin(), extras.end(), "--"), extras.end());
  if (extras.empty()) return;
  const std::string& word = extras.front();
  if (word.size() > 1 && word[0] == '-') throw UsageError("unknown flag " + util::quoted(word));
  const auto noun = nouns_.find(&app);
  if (noun == nouns_.end()) throw UsageError("unexpected argument " + util::quoted(word));
  std::string known;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    known += (known.empty() ? "" : ", ") + sub->get_name();
  }
  throw UsageError("unknown " + noun->second + " " + util::quoted(word) + " (expected " + known + ")");
}

void CommandTree::check_scopes(const CLI::App& app) const {
  const auto scopes = scopes_.find(&app);
  if (scopes == scopes_.end()) return;
  for (const FlagScope& scope : scopes->second) {
    if (scope.holds()) continue;
    for (const std::string& flag : scope.flags) {
      if (app.count(flag) > 0) throw UsageError(flag + " applies only " + scope.condition);
    }
  }
}

int CommandTree::usage_failure(const CLI::App& command, const std::string& message) const {
  const std::string w = words(command);
  *err_ << "smartarrays: " << (w.empty() ? "" : w + ": ") << util::printable(message) << " (see '" << path(command)
        << " --help')\n";
  return exit_usage;
}

std::optional<int> CommandTree::parse(int argc, const char* const* argv) {
  clear_output_on_stdout();
  try {
    try {
      root_.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
      *out_ << help(selected_command(root_));
      return 0;
    } catch (const CLI::ParseError& e) {
      return usage_failure(selected_command(root_), usage_message(e));
    }
    const CLI::App& selected = selected_command(root_);
    try {
      for (const CLI::App* app = &selected; app != nullptr; app = app->get_parent()) check_extras(*app);
    } catch (const UsageError& e) {
      return usage_failure(selected, e.what());
    }
    try {
      if (settings_free_.count(&selected) == 0) check_settings();
    } catch (const Error& e) {
      *err_ << "smartarrays: " << util::printable(e.what()) << " (see docs/settings.md)\n";
      return exit_usage;
    }
    try {
      const auto check = checks_.find(&selected);
      if (check != checks_.end()) check->second();
      check_scopes(selected);
    } catch (const UsageError& e) {
      return usage_failure(selected, e.what());
    }
    return std::nullopt;
  } catch (const std::exception& e) {
    *err_ << "smartarrays: error: " << util::printable(e.what()) << "\n";
    return exit_failure;
  }
}

int CommandTree::run(int argc, const char* const* argv) { return written(run_command(argc, argv)); }

// exit_code, or exit_failure with a message when the output did not reach standard output: stdio
// keeps a redirected stdout's last block until exit, where a failed write (a full disk) went unseen
// and a truncated report exited 0.
int CommandTree::written(int exit_code) const {
  errno = 0;
  out_->flush();  // std::cout's flush is stdout's: the failed write's errno is from either
  const bool flushed = std::fflush(stdout) == 0;
  const int error = errno;
  if (flushed && !std::ferror(stdout) && out_->good()) return exit_code;
  *err_ << "smartarrays: error: cannot write standard output" << (error != 0 ? ": " + std::string(std::strerror(error)) : "")
        << "\n";
  return exit_code == 0 ? exit_failure : exit_code;
}

int CommandTree::run_command(int argc, const char* const* argv) {
  if (const std::optional<int> done = parse(argc, argv)) return *done;
  const CLI::App& selected = selected_command(root_);
  const StdoutToStderr tables_aside(output_on_stdout());
  try {
    try {
      // Every command runs under Ctrl-C and SIGTERM: it unwinds at the library's next interrupt
      // check (removing staged output files, killing children, restoring switches) and exits 130.
      return run_stoppable(words(selected).c_str(), runners_.at(&selected),
                           unwind_always_.count(&selected) != 0 ? SecondSignal::interrupts : SecondSignal::kills);
    } catch (const UsageError& e) {
      return usage_failure(selected, e.what());
    }
  } catch (const std::exception& e) {
    // smartarrays::Error and whatever else the library or the system raised while running.
    *err_ << "smartarrays: error: " << util::printable(e.what()) << "\n";
    return exit_failure;
  }
}

}  // namespace smartarrays::cli
