// Owns `smartarrays store`: list (the objects of a store file), info (its header, directory and
// every block), verify (every checksum; with --deep the CSR invariants of every graph) and append
// (a graph read from any graph file added without rewriting the store). Each is parse -> run (a
// result struct) -> a table or JSON (docs/cli.md).
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/commands.hpp"
#include "cli/graph_options.hpp"
#include "cli/options.hpp"
#include "measure/report.hpp"
#include "measure/timing.hpp"
#include "smartarrays/store/store.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::cli {

namespace {

const char* const store_header =
    "usage: smartarrays store <subcommand> [options]\n"
    "\n"
    "Store files (.sa): named smart arrays and graphs in the compact form, mapped back in place\n"
    "(docs/compact-format.md).\n"
    "\n"
    "subcommands:\n"
    "  list     the objects of a store: name, kind, length or vertices and edges, bytes\n"
    "  info     the header, the directory in force and every block (offset, width, checksum)\n"
    "  verify   check every block's checksum and padding; --deep also checks every graph's CSR\n"
    "  append   add a graph read from any graph file, without rewriting the store\n";

const char* const list_header =
    "usage: smartarrays store list FILE [--json]\n"
    "\n"
    "Lists the objects of the store FILE in directory order (oldest first). Reads only its\n"
    "header, trailer and directory.\n";

const char* const info_header =
    "usage: smartarrays store info FILE [--json]\n"
    "\n"
    "Shows the store FILE's format version, size, the directory in force, any uncommitted bytes\n"
    "of an interrupted append, and every block of every object.\n";

const char* const verify_header =
    "usage: smartarrays store verify FILE [--deep] [--json]\n"
    "\n"
    "Reads every block of the store FILE and checks its CRC32C and zero padding; --deep also\n"
    "checks every graph's CSR invariants (monotone offsets, ids < n, reverse = transpose). Exits 0\n"
    "when no problem is found, 1 otherwise (each problem names the object and offset).\n";

const char* const append_header =
    "usage: smartarrays store append STORE INPUT [--name NAME] [options]\n"
    "\n"
    "Reads the graph file INPUT (any graph format; a compact INPUT's graph is taken as stored) and\n"
    "adds it to the store STORE as NAME (default: INPUT's file name without extension): new blocks,\n"
    "then a new directory and trailer, so a crash leaves the previous version readable.\n";

const char* const append_footer =
    "example:\n"
    "  smartarrays graph convert rmat.sg rmat.sa\n"
    "  smartarrays store append rmat.sa web.el --name web --variant V+E\n";

struct FileFlags {
  std::vector<std::string> files;
  bool json = false;
  bool deep = false;
};

void check_one_file(const FileFlags& f) {
  if (f.files.empty()) throw UsageError("missing the store FILE");
  if (f.files.size() > 1) throw UsageError("more than one store file (" + util::quoted(f.files[0]) + " and " + util::quoted(f.files[1]) + ")");
}

measure::Json object_json(const store::ObjectInfo& o, bool blocks) {
  measure::Json json{{"name", o.name}, {"kind", store::to_string(o.kind)}};
  if (o.kind == store::ObjectKind::array) {
    json["length"] = o.blocks[0].length;
    json["bits"] = o.blocks[0].bits;
  } else {
    json["vertices"] = o.vertices;
    json["edges"] = o.edges;
    json["directed"] = o.directed;
    json["variant"] = graph::to_string(o.variant);
  }
  json["bytes"] = o.bytes();
  if (blocks) {
    json["blocks"] = measure::Json::array();
    for (const store::BlockInfo& b : o.blocks) {
      measure::Json block{{"length", b.length}, {"bits", b.bits}, {"offset", b.offset}, {"bytes", b.bytes}, {"crc32c", b.crc}};
      if (!b.array.empty()) block["array"] = b.array;
      json["blocks"].push_back(block);
    }
  }
  return json;
}

// "graph: 1024 vertices, 16384 edges, directed, V+E" or "array: 1000000 values of 10 bits".
std::string summary(const store::ObjectInfo& o) {
  if (o.kind == store::ObjectKind::array) {
    return "array: " + std::to_string(o.blocks[0].length) + " values of " + std::to_string(o.blocks[0].bits) + " bits";
  }
  return "graph: " + std::to_string(o.vertices) + " vertices, " + std::to_string(o.edges) + " edges, " +
         (o.directed ? "directed, " : "undirected, ") + graph::to_string(o.variant);
}

// ---- list ----

int list(const FileFlags& f) {
  const store::StoreInfo info = store::describe(f.files[0]);
  if (f.json) {
    measure::Report report("smartarrays.store.list/1", {{"file", f.files[0]}});
    report.fields["objects"] = measure::Json::array();
    for (const store::ObjectInfo& o : info.objects) report.fields["objects"].push_back(object_json(o, false));
    measure::write_report(report, "-");
    return 0;
  }
  std::cout << std::left << std::setw(24) << "name" << std::right << std::setw(13) << "size" << "  what\n";
  for (const store::ObjectInfo& o : info.objects) {
    std::cout << std::left << std::setw(24) << util::printable(o.name) << std::right << std::setw(13)
              << graph_cli::mib(o.bytes()) << "  " << summary(o) << "\n";
  }
  return 0;
}

// ---- info ----

int info(const FileFlags& f) {
  const store::StoreInfo info = store::describe(f.files[0]);
  if (f.json) {
    measure::Report report("smartarrays.store.info/1", {{"file", f.files[0]}});
    report.fields["version"] = info.version;
    report.fields["file_bytes"] = info.file_bytes;
    report.fields["directory_offset"] = info.directory_offset;
    report.fields["directory_bytes"] = info.directory_bytes;
    report.fields["uncommitted_bytes"] = info.uncommitted_bytes;
    report.fields["objects"] = measure::Json::array();
    for (const store::ObjectInfo& o : info.objects) report.fields["objects"].push_back(object_json(o, true));
    measure::write_report(report, "-");
    return 0;
  }
  std::cout << util::printable(f.files[0]) << ": store format version " << info.version << ", " << info.file_bytes
            << " bytes, " << info.objects.size() << " objects; directory at " << info.directory_offset << " ("
            << info.directory_bytes << " bytes)";
  if (info.uncommitted_bytes != 0) std::cout << "; " << info.uncommitted_bytes << " uncommitted bytes (an interrupted append)";
  std::cout << "\n";
  for (const store::ObjectInfo& o : info.objects) {
    std::cout << "\n" << util::printable(o.name) << " (" << summary(o) << ")\n";
    std::cout << "  " << std::left << std::setw(12) << "array" << std::right << std::setw(14) << "length" << std::setw(6)
              << "bits" << std::setw(14) << "offset" << std::setw(14) << "bytes" << std::setw(12) << "crc32c" << "\n";
    for (const store::BlockInfo& b : o.blocks) {
      std::cout << "  " << std::left << std::setw(12) << (b.array.empty() ? "-" : b.array) << std::right << std::setw(14)
                << b.length << std::setw(6) << b.bits << std::setw(14) << b.offset << std::setw(14) << b.bytes << "  0x"
                << std::hex << std::setw(8) << std::setfill('0') << b.crc << std::dec << std::setfill(' ') << "\n";
    }
  }
  return 0;
}

// ---- verify ----

int verify(const FileFlags& f) {
  store::VerifyReport r;
  const double seconds = measure::time_once([&] { r = store::verify(f.files[0], f.deep); });
  if (f.json) {
    measure::Report report("smartarrays.store.verify/1", {{"file", f.files[0]}});
    report.fields["deep"] = f.deep;
    report.fields["ok"] = r.ok();
    report.fields["objects"] = r.objects;
    report.fields["blocks"] = r.blocks;
    report.fields["bytes_checked"] = r.bytes_checked;
    report.fields["uncommitted_bytes"] = r.uncommitted_bytes;
    report.fields["seconds"] = seconds;
    report.fields["problems"] = r.problems;
    measure::write_report(report, "-");
  } else {
    for (const std::string& problem : r.problems) std::cout << "problem: " << util::printable(problem) << "\n";
    std::cout << util::printable(f.files[0]) << ": " << (r.ok() ? "ok" : "CORRUPT") << " (" << r.objects << " objects, "
              << r.blocks << " blocks, " << graph_cli::mib(r.bytes_checked) << " checked" << (f.deep ? ", deep" : "")
              << ", " << std::fixed << std::setprecision(3) << seconds << " s)";
    if (r.uncommitted_bytes != 0) std::cout << "; " << r.uncommitted_bytes << " uncommitted bytes ignored";
    std::cout << "\n";
  }
  return r.ok() ? 0 : exit_failure;
}

void add_file_command(CommandTree& tree, CLI::App& parent, const std::string& name, const char* header,
                      int (*run)(const FileFlags&), bool deep) {
  auto f = std::make_shared<FileFlags>();
  CLI::App& app = tree.add(parent, name, header, [f, run] { return run(*f); });
  tree.check(app, [f] { check_one_file(*f); });
  tree.define(app, [f, deep](CLI::App& defined) {
    defined.add_option("FILE", f->files);
    add_flag(defined, "--json", f->json, "print JSON instead of a table (format: docs/cli.md)");
    if (deep) add_flag(defined, "--deep", f->deep, "also check every graph's CSR invariants");
  });
}

// ---- append ----

struct AppendFlags {
  graph_cli::LoadFlags load;
  std::vector<std::string> files;
  std::string name;
  std::string variant_text;
};

void check_append(AppendFlags& f) {
  if (f.files.size() != 2) throw UsageError("expected the STORE file and the INPUT graph file");
  check_output_file("STORE", f.files[0], {.dash_is_stdout = false});
  f.load.inputs = {f.files[1]};
  graph_cli::finish_load_flags(f.load);
  if (f.load.mode) throw UsageError("--mode/--load: append copies the input's arrays into the store either way");
  const bool named = !f.name.empty();
  if (!named) f.name = std::filesystem::path(f.files[1]).stem().string();
  if (!store::is_object_name(f.name)) {
    throw UsageError("--name: " + (named ? "" : "INPUT " + util::quoted(f.files[1]) + " gives the name ") +
                     util::quoted(f.name) + ", which cannot name a store object (1..1024 bytes, no control byte)" +
                     (named ? "" : "; give one"));
  }
  // What append would refuse after INPUT is read and built (no store at STORE, a name it holds)
  // is refused here, from the store's directory alone.
  store::StoreInfo held;
  try {
    held = store::describe(f.files[0]);
  } catch (const Error& e) {
    throw UsageError(std::string("STORE: ") + e.what() + " (append adds to a store; 'graph convert INPUT STORE.sa' makes one)");
  }
  for (const store::ObjectInfo& o : held.objects) {
    if (o.name == f.name) {
      throw UsageError("--name: " + util::quoted(f.files[0]) + " already holds an object named " + util::quoted(f.name) +
                       (named ? "" : " (INPUT's name without extension)") + "; give another");
    }
  }
}

int append(const AppendFlags& f) {
  auto pool = graph_cli::make_pool(f.load);
  std::optional<graph::CsrGraph> g;
  const double seconds = measure::time_once([&] {
    graph::GraphSource source = graph_cli::open_source(f.load, *pool);
    if (source.stored() && graph_cli::uses_stored_graph(f.load)) {
      g.emplace(std::move(source).take_stored());
    } else {
      g.emplace(std::move(source).build(graph_cli::build_options(f.load, f.load.variants.front()), *pool));
    }
    store::Store::append(f.files[0], {{f.name, *g}});
  });
  std::cout << "appended " << util::printable(f.name) << " to " << util::printable(f.files[0]) << ": " << g->vertices()
            << " vertices, " << g->edges() << " edges, " << (g->directed() ? "directed" : "undirected") << ", "
            << graph::to_string(g->variant()) << ", " << std::fixed << std::setprecision(2) << seconds << " s\n";
  return 0;
}

void add_append(CommandTree& tree, CLI::App& parent) {
  auto f = std::make_shared<AppendFlags>();
  CLI::App& app = tree.add(parent, "append", append_header, [f] { return append(*f); }, append_footer);
  tree.check(app, [f] { check_append(*f); });
  tree.define(app, [f](CLI::App& defined) {
    defined.add_option("FILES", f->files);
    add_value<std::string>(
        defined, "--name", "NAME", f->name,
        [](const std::string& s) {
          if (s.empty()) throw UsageError("expected a name, got ''");
          return s;
        },
        "the graph's name in the store (default: INPUT's name without extension)");
    add_value<std::vector<graph::Variant>>(
        defined, "--variant", "V", f->load.variants,
        [f](const std::string& text) {
          f->load.variants_given = true;
          return std::vector<graph::Variant>{graph::parse_variant(text)};
        },
        "the compression variant to store: U, V or V+E (default U; a compact INPUT\n"
        "keeps its own unless given)");
    graph_cli::add_read_flags(defined, f->load, "options");
  });
}

}  // namespace

void add_store_command(CommandTree& tree) {
  CLI::App& store_app = tree.add(tree.root(), "store", store_header, {}, "", "subcommand");
  tree.runner(store_app, [&store_app] {
    std::cerr << CommandTree::help(store_app);
    return exit_usage;
  });
  tree.define(store_app, [&tree](CLI::App& app) {
    add_file_command(tree, app, "list", list_header, &list, false);
    add_file_command(tree, app, "info", info_header, &info, false);
    add_file_command(tree, app, "verify", verify_header, &verify, true);
    add_append(tree, app);
  });
}

}  // namespace smartarrays::cli
