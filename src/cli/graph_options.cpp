// Owns the shared parts of `smartarrays graph`: loading flags, reading with progress, building
// per variant, and the memory table / JSON / per-vertex file writers.
#include "cli/graph_options.hpp"

#include <unistd.h>

#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "smartarrays/algo/pagerank.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays::cli::graph_cli {

const char* const load_flags_help =
    "graph flags:\n"
    "  --format FMT        input format: el (edge list), mtx (Matrix Market), sg (GAP binary);\n"
    "                      default from the extension (.el .txt .edges .tsv / .mtx / .sg)\n"
    "  --variant LIST      compression variants, run side by side: U (64-bit offsets and degrees,\n"
    "                      32-bit ids), V (offsets and degrees in minimum bits), V+E (ids too)\n"
    "                      (default U)\n"
    "  --placement LIST    PLACEMENT for every array and/or ARRAY=PLACEMENT overrides; placements\n"
    "                      os_default, single_node, interleaved, replicated, partitioned; arrays\n"
    "                      begin, edge, rbegin, redge, out_degree, contributions, ranks, degrees\n"
    "                      (default os_default; the outputs ranks and degrees stay interleaved\n"
    "                      unless named)\n"
    "  --node N            the node of single_node placements (default 0)\n"
    "  --bits LIST         ARRAY=B overrides of the variant's widths (1..64), e.g. edge=24\n"
    "  --dedup             keep one copy of repeated edges\n"
    "  --drop-self-loops   drop edges v -> v\n"
    "  --undirected        treat an edge list as undirected (store both directions)\n"
    "  --threads N         worker threads (default: SMARTARRAYS_THREADS, else every usable CPU)\n"
    "  --pinning POLICY    none, sparse or dense worker placement (default sparse)\n"
    "  --json FILE         also write the results as JSON to FILE, '-' for stdout instead of the\n"
    "                      text (formats: docs/graph.md)\n"
    "  --quiet             no progress on stderr\n";

namespace {

const char* const placement_arrays[] = {"begin", "edge", "rbegin", "redge", "out_degree", "contributions", "ranks", "degrees"};

bool is_placement_array(const std::string& name) {
  for (const char* a : placement_arrays) {
    if (name == a) return true;
  }
  return false;
}

ArrayOptions placement_options(const std::string& text, ArgCursor& cursor) {
  ArrayOptions options;
  try {
    options.placement = parse_placement(text);
  } catch (const Error& e) {
    cursor.fail(e.what());
  }
  return options;
}

// The progress line of a big file: rewritten in place on a terminal, every 10% in a log.
std::function<void(std::uint64_t, std::uint64_t)> progress_printer(const std::string& path) {
  constexpr std::uint64_t big = std::uint64_t{64} << 20;
  const bool interactive = ::isatty(STDERR_FILENO) == 1;
  auto last_decile = std::make_shared<int>(-1);
  return [path, interactive, last_decile](std::uint64_t done, std::uint64_t total) {
    if (total < big) return;
    const int percent = static_cast<int>(100 * done / total);
    if (interactive) {
      std::cerr << "\r\033[Kreading " << path << ": " << percent << "% (" << mib(done) << " of " << mib(total) << ")"
                << (done == total ? "\n" : "") << std::flush;
    } else if (percent / 10 != *last_decile) {
      *last_decile = percent / 10;
      std::cerr << "reading " << path << ": " << percent << "% (" << mib(done) << " of " << mib(total) << ")\n";
    }
  };
}

}  // namespace

ArrayOptions PlacementSpec::for_array(const std::string& name) const {
  const auto it = arrays.find(name);
  ArrayOptions options = it != arrays.end() ? it->second : all ? *all : ArrayOptions{};
  if (options.placement == Placement::single_node) options.node = node;
  return options;
}

ArrayOptions PlacementSpec::for_output(const std::string& name) const {
  const auto it = arrays.find(name);
  ArrayOptions options = it != arrays.end() ? it->second : algo::interleaved_options();
  if (options.placement == Placement::single_node) options.node = node;
  return options;
}

bool parse_load_flag(const std::string& flag, ArgCursor& cursor, LoadFlags& flags) {
  if (flag == "--format") {
    try {
      flags.format = graph::parse_graph_format(cursor.value());
    } catch (const Error& e) {
      cursor.fail(e.what());
    }
  } else if (flag == "--variant" || flag == "--variants") {
    flags.variants.clear();
    for (const std::string& item : split_list(cursor.value(), flag)) {
      try {
        flags.variants.push_back(graph::parse_variant(item));
      } catch (const Error& e) {
        cursor.fail(e.what());
      }
    }
  } else if (flag == "--placement") {
    for (const std::string& item : split_list(cursor.value(), flag)) {
      const std::size_t eq = item.find('=');
      if (eq == std::string::npos) {
        flags.placement.all = placement_options(item, cursor);
        continue;
      }
      const std::string array = item.substr(0, eq);
      if (!is_placement_array(array)) {
        cursor.fail("--placement: unknown array '" + array +
                    "' (expected begin, edge, rbegin, redge, out_degree, contributions, ranks or degrees)");
      }
      flags.placement.arrays[array] = placement_options(item.substr(eq + 1), cursor);
    }
  } else if (flag == "--node") {
    flags.placement.node = static_cast<int>(parse_number(cursor.value(), flag, 0, 4095));
  } else if (flag == "--bits") {
    for (const std::string& item : split_list(cursor.value(), flag)) {
      const std::size_t eq = item.find('=');
      if (eq == std::string::npos) cursor.fail("--bits: expected ARRAY=BITS, got '" + item + "'");
      const std::string array = item.substr(0, eq);
      try {
        graph::parse_graph_array(array);
      } catch (const Error& e) {
        cursor.fail(std::string("--bits: ") + e.what());
      }
      flags.bits[array] = static_cast<unsigned>(parse_number(item.substr(eq + 1), "--bits", 1, 64));
    }
  } else if (flag == "--dedup") {
    flags.dedup = true;
  } else if (flag == "--drop-self-loops") {
    flags.drop_self_loops = true;
  } else if (flag == "--undirected") {
    flags.undirected = true;
  } else if (flag == "--threads") {
    flags.threads = parse_number(cursor.value(), flag, 1, 4096);
  } else if (flag == "--pinning") {
    try {
      flags.pinning = runtime::parse_pin_policy(cursor.value());
    } catch (const Error& e) {
      cursor.fail(e.what());
    }
  } else if (flag == "--json") {
    flags.json_path = cursor.value();
  } else if (flag == "--quiet") {
    flags.quiet = true;
  } else {
    return false;
  }
  return true;
}

void take_input(const std::string& word, ArgCursor& cursor, LoadFlags& flags) {
  if (word.rfind("-", 0) == 0 && word != "-") cursor.unknown();
  if (!flags.input.empty()) cursor.fail("more than one input file ('" + flags.input + "' and '" + word + "')");
  flags.input = word;
}

void finish_load_flags(ArgCursor& cursor, LoadFlags& flags) {
  if (flags.input.empty()) cursor.fail("missing the input graph file");
  if (!flags.format) {
    try {
      flags.format = graph::format_of_path(flags.input);
    } catch (const Error& e) {
      cursor.fail(std::string(e.what()) + " with --format");
    }
  }
  if (flags.undirected && flags.format == graph::GraphFormat::gap_sg) {
    cursor.fail("--undirected applies to edge lists; a .sg file says itself whether it is directed");
  }
}

std::unique_ptr<runtime::ThreadPool> make_pool(const LoadFlags& flags) {
  return std::make_unique<runtime::ThreadPool>(runtime::PoolOptions{.threads = flags.threads, .pinning = flags.pinning});
}

graph::BuildOptions build_options(const LoadFlags& flags, graph::Variant variant) {
  graph::BuildOptions options;
  options.dedup = flags.dedup;
  options.drop_self_loops = flags.drop_self_loops;
  options.layout = graph::GraphLayout::for_variant(variant);
  for (std::size_t i = 0; i < graph::graph_array_count; ++i) {
    const auto a = static_cast<graph::GraphArray>(i);
    const unsigned bits = options.layout[a].bits;
    options.layout[a] = flags.placement.for_array(graph::to_string(a));
    options.layout[a].bits = bits;
    const auto forced = flags.bits.find(graph::to_string(a));
    if (forced != flags.bits.end()) options.layout[a].bits = forced->second;
  }
  return options;
}

GraphSource::GraphSource(const LoadFlags& flags, runtime::ThreadPool& pool) {
  const auto start = std::chrono::steady_clock::now();
  graph::ReadOptions read;
  if (!flags.quiet) read.progress = progress_printer(flags.input);
  switch (*flags.format) {
    case graph::GraphFormat::edge_list:
      edges_ = graph::read_edge_list(flags.input, read);
      break;
    case graph::GraphFormat::matrix_market:
      edges_ = graph::read_matrix_market(flags.input, read);
      break;
    case graph::GraphFormat::gap_sg:
      sg_ = graph::read_gap_sg(flags.input, read, pool);
      is_sg_ = true;
      break;
  }
  if (flags.undirected) edges_.directed = false;
  read_seconds_ = seconds_since(start);
}

graph::CsrGraph GraphSource::build(const graph::BuildOptions& options, runtime::ThreadPool& pool) const {
  if (is_sg_) return graph::build_csr(sg_.out, sg_.directed, options, pool);
  return graph::build_csr(edges_, options, pool);
}

std::string mib(std::uint64_t bytes) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(1) << static_cast<double>(bytes) / (1 << 20) << " MiB";
  return o.str();
}

void print_memory_table(std::ostream& out, const std::vector<std::string>& titles,
                        const std::vector<graph::MemoryReport>& reports) {
  out << std::left << std::setw(15) << "array" << std::right << std::setw(12) << "length" << std::setw(14) << "placement";
  for (const std::string& t : titles) out << std::setw(7) << (t + " b") << std::setw(13) << (t + " size");
  out << "\n";
  const std::size_t rows = reports.empty() ? 0 : reports[0].arrays.size();
  for (std::size_t r = 0; r < rows; ++r) {
    const graph::ArrayMemory& first = reports[0].arrays[r];
    std::string placement = to_string(first.placement);
    if (first.replicas > 1) placement += " x" + std::to_string(first.replicas);
    out << std::left << std::setw(15) << first.name << std::right << std::setw(12) << first.length << std::setw(14) << placement;
    for (const graph::MemoryReport& report : reports) {
      out << std::setw(7) << report.arrays[r].bits << std::setw(13) << mib(report.arrays[r].bytes);
    }
    out << "\n";
  }
  out << std::left << std::setw(41) << "total" << std::right;
  for (const graph::MemoryReport& report : reports) out << std::setw(7) << "" << std::setw(13) << mib(report.total_bytes);
  out << "\n";
}

void write_memory_json(JsonWriter& json, const graph::MemoryReport& report) {
  json.begin_object();
  json.key("arrays");
  json.begin_array();
  for (const graph::ArrayMemory& a : report.arrays) {
    json.begin_object();
    json.member("name", a.name);
    json.member("length", a.length);
    json.member("bits", a.bits);
    json.member("placement", to_string(a.placement));
    json.member("replicas", static_cast<std::uint64_t>(a.replicas));
    json.member("bytes", a.bytes);
    json.end_object();
  }
  json.end_array();
  json.member("total_bytes", report.total_bytes);
  json.end_object();
}

void write_json_file(const std::string& path, const std::function<void(JsonWriter&)>& write) {
  if (path == "-") {
    JsonWriter json(std::cout);
    write(json);
    json.finish();
    return;
  }
  std::ofstream out(path);
  if (!out) throw Error(ErrorCode::os_error, "cannot write " + path);
  JsonWriter json(out);
  write(json);
  json.finish();
  out.close();
  if (!out) throw Error(ErrorCode::os_error, "cannot write " + path);
}

void write_vertex_values(const std::string& path, std::uint64_t n, const std::function<void(std::ostream&, std::uint64_t)>& line) {
  std::ofstream out(path);
  if (!out) throw Error(ErrorCode::os_error, "cannot write " + path);
  for (std::uint64_t v = 0; v < n; ++v) line(out, v);
  out.close();
  if (!out) throw Error(ErrorCode::os_error, "cannot write " + path);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace smartarrays::cli::graph_cli
