// Owns `smartarrays bench aggregate`: parses the grid flags, runs algo::run_aggregate_bench with a
// progress line on stderr, prints the result tables and writes the JSON result file.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/json_writer.hpp"
#include "smartarrays/algo/aggregate_bench.hpp"
#include "smartarrays/codec/kernels.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/os/system_info.hpp"
#include "smartarrays/os/topology.hpp"

namespace smartarrays::cli {

const char* const bench_help =
    "usage: smartarrays bench <benchmark> [options]\n"
    "\n"
    "benchmarks:\n"
    "  aggregate   sum += a1[i] + a2[i] over two smart arrays (paper Figure 10): a grid over bit\n"
    "              widths x placements x thread counts\n"
    "\n"
    "Run 'smartarrays bench aggregate --help' for its options.\n";

const char* const bench_aggregate_help =
    "usage: smartarrays bench aggregate [options]\n"
    "\n"
    "Times the aggregation sum += a1[i] + a2[i] over two smart arrays of --size values each, with\n"
    "a[i] = (i + random{0,1,2}) & (2^bits - 1), for every combination of bit width, placement and\n"
    "thread count. Arrays are built once per (bits, placement) and every run's sum is checked.\n"
    "Prints one row per combination: median time, spread ((max - min) / median), GB/s of packed\n"
    "data, values/s, and the speedup over the 64-bit run of the same placement and thread count.\n"
    "\n"
    "options:\n"
    "  --size N            values per array; K, M, G suffixes are powers of 1024 (default 16M)\n"
    "  --bits LIST         bit widths, 1..64 (default 10,31,32,33,50,63,64)\n"
    "  --placements LIST   os_default, single_node, interleaved, replicated, partitioned\n"
    "                      (default os_default,single_node,interleaved,replicated)\n"
    "  --threads LIST      worker counts (default: SMARTARRAYS_THREADS, else every usable CPU)\n"
    "  --repetitions N     timed runs per combination, median reported (default 5)\n"
    "  --warmup N          untimed runs before them (default 1)\n"
    "  --pinning POLICY    none, sparse or dense worker placement (default sparse)\n"
    "  --node N            the node of single_node (default 0)\n"
    "  --seed N            data seed (default 1)\n"
    "  --huge-pages        ask for transparent huge pages for the arrays (MADV_HUGEPAGE)\n"
    "  --json FILE         also write the results as JSON to FILE, '-' for stdout instead of the\n"
    "                      tables (format: docs/cli.md)\n"
    "  --quiet             no progress line on stderr\n"
    "  -h, --help          show this help\n"
    "\n"
    "example:\n"
    "  smartarrays bench aggregate --size 64M --bits 10,32,64 --threads 1,2 --json agg.json\n";

namespace {

struct AggregateArgs {
  algo::AggregateBenchConfig config;
  std::string json_path;
  bool quiet = false;
};

AggregateArgs parse_aggregate(const std::vector<std::string>& args, bool& help) {
  AggregateArgs parsed;
  algo::AggregateBenchConfig& c = parsed.config;
  c.length = std::uint64_t{16} << 20;
  ArgCursor cursor(args, "bench aggregate");
  while (!cursor.done()) {
    const std::string flag = cursor.next();
    if (flag == "--help" || flag == "-h") {
      help = true;
      return parsed;
    }
    if (flag == "--quiet") {
      parsed.quiet = true;
      continue;
    }
    if (flag == "--huge-pages") {
      c.huge_pages = true;
      continue;
    }
    if (flag.rfind("--", 0) != 0) cursor.unknown();
    if (flag != "--size" && flag != "--bits" && flag != "--placements" && flag != "--threads" &&
        flag != "--repetitions" && flag != "--warmup" && flag != "--pinning" && flag != "--node" &&
        flag != "--seed" && flag != "--json") {
      cursor.unknown();
    }
    const std::string value = cursor.value();
    try {
      if (flag == "--size") {
        c.length = parse_count(value, flag);
      } else if (flag == "--bits") {
        c.bits.clear();
        for (const std::string& item : split_list(value, flag)) c.bits.push_back(static_cast<unsigned>(parse_number(item, flag, 1, 64)));
      } else if (flag == "--placements") {
        c.placements.clear();
        for (const std::string& item : split_list(value, flag)) c.placements.push_back(parse_placement(item));
      } else if (flag == "--threads") {
        c.threads.clear();
        for (const std::string& item : split_list(value, flag)) c.threads.push_back(parse_number(item, flag, 1, 4096));
      } else if (flag == "--repetitions") {
        c.repetitions = static_cast<int>(parse_number(value, flag, 1, 1000000));
      } else if (flag == "--warmup") {
        c.warmup = static_cast<int>(parse_number(value, flag, 0, 1000000));
      } else if (flag == "--pinning") {
        c.pinning = runtime::parse_pin_policy(value);
      } else if (flag == "--node") {
        c.node = static_cast<int>(parse_number(value, flag, 0, 4095));
      } else if (flag == "--seed") {
        c.seed = parse_number(value, flag, 0, ~std::uint64_t{0} - 1);
      } else {
        parsed.json_path = value;
      }
    } catch (const UsageError& e) {
      cursor.fail(e.what());
    } catch (const Error& e) {
      cursor.fail(std::string(flag) + ": " + e.what());
    }
  }
  return parsed;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return stamp;
}

void write_json(std::ostream& out, const algo::AggregateBenchConfig& c, const std::vector<algo::AggregateBenchCell>& cells,
                double total_seconds) {
  const os::Topology& topo = os::topology();
  const os::SystemInfo info = os::read_system_info();
  JsonWriter json(out);
  json.begin_object();
  json.member("format", "smartarrays.bench.aggregate/1");
  json.member("language", "C++");
  json.member("created", utc_now());
  json.member("total_seconds", total_seconds);
  json.key("config");
  json.begin_object();
  json.member("length", c.length);
  json.key("bits");
  json.begin_array();
  for (unsigned b : c.bits) json.value(b);
  json.end_array();
  json.key("placements");
  json.begin_array();
  for (Placement p : c.placements) json.value(to_string(p));
  json.end_array();
  std::vector<std::uint64_t> threads;  // in grid order, each once
  for (const algo::AggregateBenchCell& cell : cells) {
    if (std::find(threads.begin(), threads.end(), cell.threads) == threads.end()) threads.push_back(cell.threads);
  }
  json.key("threads");
  json.begin_array();
  for (std::uint64_t t : threads) json.value(t);
  json.end_array();
  json.member("repetitions", c.repetitions);
  json.member("warmup", c.warmup);
  json.member("pinning", runtime::to_string(c.pinning));
  json.member("node", c.node);
  json.member("seed", c.seed);
  json.member("huge_pages", c.huge_pages);
  json.end_object();
  json.key("machine");
  json.begin_object();
  json.member("cpu_model", info.cpu_model);
  json.member("online_cpus", info.online_cpus);
  json.member("usable_cpus", static_cast<std::uint64_t>(topo.all_cpus().size()));
  json.member("nodes", static_cast<std::uint64_t>(topo.node_count()));
  json.member("fake_topology", topo.is_fake());
  json.member("codec_isa", codec::isa_name(codec::active_isa()));
  json.member("thp_enabled", info.thp_enabled);
  json.member("numa_balancing", info.numa_balancing);
  json.key("load_average");
  json.begin_array();
  for (double load : info.load_average) json.value(load);
  json.end_array();
  json.member("kernel", info.kernel);
  json.end_object();
  json.key("results");
  json.begin_array();
  for (const algo::AggregateBenchCell& cell : cells) {
    json.begin_object();
    json.member("language", "C++");
    json.member("bits", cell.bits);
    json.member("placement", to_string(cell.placement));
    json.member("threads", static_cast<std::uint64_t>(cell.threads));
    json.member("median_s", cell.median_s);
    json.member("min_s", cell.min_s);
    json.member("max_s", cell.max_s);
    json.member("spread", cell.spread);
    json.key("seconds");
    json.begin_array();
    for (double s : cell.seconds) json.value(s);
    json.end_array();
    json.member("bytes", cell.bytes);
    json.member("gb_per_s", cell.gb_per_s);
    json.member("values_per_s", cell.values_per_s);
    json.member("speedup_vs_64", cell.speedup_vs_64);
    json.member("sum", cell.sum);
    json.end_object();
  }
  json.end_array();
  json.end_object();
  json.finish();
}

void print_tables(const algo::AggregateBenchConfig& c, const std::vector<algo::AggregateBenchCell>& cells) {
  std::cout << "aggregation sum += a1[i] + a2[i]: 2 arrays x " << c.length << " values, " << c.repetitions
            << " timed runs (+" << c.warmup << " warm-up) per row, " << runtime::to_string(c.pinning)
            << " pinning, codec " << codec::isa_name(codec::active_isa()) << "\n\n";
  std::cout << " bits  placement    threads  median ms  spread     GB/s  Gvalues/s  vs 64-bit\n";
  std::cout << "-----  -----------  -------  ---------  ------  -------  ---------  ---------\n";
  for (const algo::AggregateBenchCell& cell : cells) {
    std::cout << std::setw(5) << cell.bits << "  " << std::left << std::setw(11) << to_string(cell.placement)
              << std::right << "  " << std::setw(7) << cell.threads << "  " << std::fixed << std::setprecision(2)
              << std::setw(9) << cell.median_s * 1e3 << "  " << std::setprecision(1) << std::setw(5)
              << cell.spread * 100 << "%  " << std::setprecision(2) << std::setw(7) << cell.gb_per_s << "  "
              << std::setw(9) << cell.values_per_s / 1e9 << "  ";
    if (cell.speedup_vs_64 > 0) {
      std::cout << std::setw(8) << cell.speedup_vs_64 << "x";
    } else {
      std::cout << std::setw(9) << "-";
    }
    std::cout << "\n";
  }
  // The figure's view: one matrix of median times per thread count, bits down, placements across.
  std::map<std::size_t, std::vector<const algo::AggregateBenchCell*>> by_threads;
  for (const algo::AggregateBenchCell& cell : cells) by_threads[cell.threads].push_back(&cell);
  for (const auto& [threads, group] : by_threads) {
    std::cout << "\nmedian ms, " << threads << (threads == 1 ? " thread" : " threads") << " (bits down, placement across)\n";
    std::cout << " bits";
    for (Placement p : c.placements) std::cout << "  " << std::setw(11) << to_string(p);
    std::cout << "\n";
    for (unsigned bits : c.bits) {
      std::cout << std::setw(5) << bits;
      for (Placement p : c.placements) {
        for (const algo::AggregateBenchCell* cell : group) {
          if (cell->bits == bits && cell->placement == p) {
            std::cout << "  " << std::setw(11) << std::fixed << std::setprecision(2) << cell->median_s * 1e3;
          }
        }
      }
      std::cout << "\n";
    }
  }
}

int bench_aggregate(const std::vector<std::string>& args) {
  bool help = false;
  const AggregateArgs parsed = parse_aggregate(args, help);
  if (help) {
    std::cout << bench_aggregate_help;
    return 0;
  }
  try {
    algo::validate(parsed.config);
  } catch (const Error& e) {
    throw UsageError(std::string("bench aggregate: ") + e.what() + " (see 'smartarrays bench aggregate --help')");
  }
  const bool interactive = ::isatty(STDERR_FILENO) == 1;
  const bool show_progress = !parsed.quiet;
  const auto start = std::chrono::steady_clock::now();
  auto progress = [&](const algo::AggregateBenchProgress& p) {
    if (!show_progress) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::ostringstream line;
    line << "[" << std::setw(3) << p.cells_done << "/" << p.cells_total << "] " << std::fixed << std::setprecision(0)
         << elapsed << " s  ";
    if (p.phase == "done") {
      line << "done";
    } else if (p.phase == "building") {
      line << p.bits << " bits, " << to_string(p.placement) << ": building arrays";
    } else {
      line << p.bits << " bits, " << to_string(p.placement) << ", " << p.threads << (p.threads == 1 ? " thread" : " threads")
           << ": timing";
    }
    // On a terminal one line is rewritten in place; in a log, one line per step.
    if (interactive) {
      std::cerr << "\r\033[K" << line.str() << (p.phase == "done" ? "\n" : "") << std::flush;
    } else if (p.phase != "building") {
      std::cerr << line.str() << "\n";
    }
  };
  const std::vector<algo::AggregateBenchCell> cells = algo::run_aggregate_bench(parsed.config, progress);
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (parsed.json_path == "-") {
    write_json(std::cout, parsed.config, cells, total);
    return 0;
  }
  print_tables(parsed.config, cells);
  if (!parsed.json_path.empty()) {
    std::ofstream out(parsed.json_path);
    if (!out) throw Error(ErrorCode::os_error, "cannot write " + parsed.json_path);
    write_json(out, parsed.config, cells, total);
    out.close();
    if (!out) throw Error(ErrorCode::os_error, "cannot write " + parsed.json_path);
    std::cout << "\nresults: " << parsed.json_path << "\n";
  }
  return 0;
}

}  // namespace

int bench_command(const std::vector<std::string>& args) {
  if (args.empty()) throw UsageError("bench: which benchmark? (see 'smartarrays bench --help')");
  const std::string& name = args.front();
  if (name == "--help" || name == "-h") {
    std::cout << bench_help;
    return 0;
  }
  if (name == "aggregate") return bench_aggregate(std::vector<std::string>(args.begin() + 1, args.end()));
  throw UsageError("bench: unknown benchmark '" + name + "' (see 'smartarrays bench --help')");
}

}  // namespace smartarrays::cli
