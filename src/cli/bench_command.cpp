// Owns `smartarrays bench aggregate`: its flags, the Figure 10 grid of measure::run_aggregate_bench
// with a progress line on stderr, the result tables and the JSON result file.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "measure/aggregate_bench.hpp"
#include "measure/progress.hpp"
#include "measure/report.hpp"
#include "smartarrays/adapt/calibrate.hpp"
#include "smartarrays/codec/kernels.hpp"
#include "smartarrays/os/topology.hpp"

namespace smartarrays::cli {

namespace {

const char* const bench_header =
    "usage: smartarrays bench <benchmark> [options]\n"
    "\n"
    "benchmarks:\n"
    "  aggregate   sum += a1[i] + a2[i] over two smart arrays (paper Figure 10): a grid over bit\n"
    "              widths x placements x thread counts\n"
    "  adaptivity  the adaptive choice against every static configuration (paper section 6.3)\n"
    "  workload    the analytics workloads W1-W4 (group-by median and count, hash join, index\n"
    "              join), classic containers against smart collections\n"
    "\n"
    "Run 'smartarrays bench aggregate --help' for its options.\n";

const char* const aggregate_header =
    "usage: smartarrays bench aggregate [options]\n"
    "\n"
    "Times the aggregation sum += a1[i] + a2[i] over two smart arrays of --size values each, with\n"
    "a[i] = (i + random{0,1,2}) & (2^bits - 1), for every combination of bit width, placement and\n"
    "thread count. Arrays are built once per (bits, placement) and every run's sum is checked.\n"
    "Prints one row per combination: median time, spread ((max - min) / median), GB/s of packed\n"
    "data, values/s, and the speedup over the 64-bit run of the same placement and thread count.\n";

const char* const aggregate_footer =
    "example:\n"
    "  smartarrays bench aggregate --size 64M --bits 10,32,64 --threads 1,2 --json agg.json\n";

struct AggregateFlags {
  measure::AggregateBenchConfig config;
  std::string json_path;
  bool quiet = false;
  bool auto_placement = false;  // --placement auto: the adaptive layer chooses (docs/adaptivity.md)
  bool auto_bits = false;       // --bits auto: the adaptive layer chooses the stored width
};

struct AggregateResult {
  const measure::AggregateBenchConfig& config;
  std::vector<measure::AggregateBenchCell> cells;
  double total_seconds = 0;
};

std::string threads_text(std::size_t threads) { return std::to_string(threads) + (threads == 1 ? " thread" : " threads"); }

std::string progress_text(const measure::AggregateBenchProgress& p, double elapsed) {
  std::ostringstream line;
  line << "[" << std::setw(3) << p.cells_done << "/" << p.cells_total << "] " << std::fixed << std::setprecision(0)
       << elapsed << " s  ";
  if (p.phase == "done") {
    line << "done";
  } else if (p.phase == "building") {
    line << p.bits << " bits, " << to_string(p.placement) << ": building arrays";
  } else {
    line << p.bits << " bits, " << to_string(p.placement) << ", " << threads_text(p.threads) << ": timing";
  }
  return line.str();
}

AggregateResult run_aggregate(const AggregateFlags& flags) {
  const measure::Progress progress(!flags.quiet);
  auto show = [&](const measure::AggregateBenchProgress& p) {
    const std::string text = progress_text(p, progress.elapsed_seconds());
    if (p.phase == "done") {
      progress.finish(text);
    } else {
      progress.show(text, p.phase != "building");
    }
  };
  AggregateResult result{flags.config, measure::run_aggregate_bench(flags.config, show)};
  result.total_seconds = progress.elapsed_seconds();
  return result;
}

void print_rows(const AggregateResult& r) {
  const measure::AggregateBenchConfig& c = r.config;
  std::cout << "aggregation sum += a1[i] + a2[i]: 2 arrays x " << c.length << " values, " << c.trials.repetitions
            << " timed runs (+" << c.trials.warmup << " warm-up) per row, " << runtime::to_string(c.pinning)
            << " pinning, codec " << codec::isa_name(codec::active_isa()) << "\n\n";
  std::cout << " bits  placement    threads  median ms  spread     GB/s  Gvalues/s  vs 64-bit\n";
  std::cout << "-----  -----------  -------  ---------  ------  -------  ---------  ---------\n";
  for (const measure::AggregateBenchCell& cell : r.cells) {
    std::cout << std::setw(5) << cell.bits << "  " << std::left << std::setw(11) << to_string(cell.placement)
              << std::right << "  " << std::setw(7) << cell.threads << "  " << std::fixed << std::setprecision(2)
              << std::setw(9) << cell.timing.median * 1e3 << "  " << std::setprecision(1) << std::setw(5)
              << cell.timing.spread() * 100 << "%  " << std::setprecision(2) << std::setw(7) << cell.gb_per_s << "  "
              << std::setw(9) << cell.values_per_s / 1e9 << "  ";
    if (cell.speedup_vs_64 > 0) {
      std::cout << std::setw(8) << cell.speedup_vs_64 << "x";
    } else {
      std::cout << std::setw(9) << "-";
    }
    std::cout << "\n";
  }
}

// The figure's view: one matrix of median times per thread count, bits down, placements across.
void print_matrices(const AggregateResult& r) {
  std::map<std::size_t, std::vector<const measure::AggregateBenchCell*>> by_threads;
  for (const measure::AggregateBenchCell& cell : r.cells) by_threads[cell.threads].push_back(&cell);
  for (const auto& [threads, group] : by_threads) {
    std::cout << "\nmedian ms, " << threads_text(threads) << " (bits down, placement across)\n";
    std::cout << " bits";
    for (Placement p : r.config.placements) std::cout << "  " << std::setw(11) << to_string(p);
    std::cout << "\n";
    for (unsigned bits : r.config.bits) {
      std::cout << std::setw(5) << bits;
      for (Placement p : r.config.placements) {
        for (const measure::AggregateBenchCell* cell : group) {
          if (cell->bits == bits && cell->placement == p) {
            std::cout << "  " << std::setw(11) << std::fixed << std::setprecision(2) << cell->timing.median * 1e3;
          }
        }
      }
      std::cout << "\n";
    }
  }
}

measure::Json config_json(const measure::AggregateBenchConfig& c) {
  std::vector<std::size_t> threads;  // in grid order, each once
  for (std::size_t t : measure::thread_counts(c)) {
    if (std::find(threads.begin(), threads.end(), t) == threads.end()) threads.push_back(t);
  }
  measure::Json json;
  json["length"] = c.length;
  json["bits"] = c.bits;
  json["placements"] = measure::Json::array();
  for (Placement p : c.placements) json["placements"].push_back(to_string(p));
  json["threads"] = threads;
  json["repetitions"] = c.trials.repetitions;
  json["warmup"] = c.trials.warmup;
  json["pinning"] = runtime::to_string(c.pinning);
  json["node"] = c.node;
  json["seed"] = c.seed;
  json["huge_pages"] = os::to_string(c.huge_pages);
  return json;
}

measure::Json cell_json(const measure::AggregateBenchCell& cell) {
  return {{"language", "C++"},
          {"bits", cell.bits},
          {"placement", to_string(cell.placement)},
          {"threads", cell.threads},
          {"median_s", cell.timing.median},
          {"min_s", cell.timing.min},
          {"max_s", cell.timing.max},
          {"spread", cell.timing.spread()},
          {"seconds", cell.timing.seconds},
          {"bytes", cell.bytes},
          {"gb_per_s", cell.gb_per_s},
          {"values_per_s", cell.values_per_s},
          {"speedup_vs_64", cell.speedup_vs_64},
          {"sum", cell.sum}};
}

measure::Report report(const AggregateResult& r) {
  measure::Report report("smartarrays.bench.aggregate/1");
  report.fields["language"] = "C++";
  report.fields["created"] = measure::utc_now();
  report.fields["total_seconds"] = r.total_seconds;
  report.fields["config"] = config_json(r.config);
  report.fields["results"] = measure::Json::array();
  for (const measure::AggregateBenchCell& cell : r.cells) report.fields["results"].push_back(cell_json(cell));
  return report;
}

// --placement auto / --bits auto: the adaptive choice per data width and thread count, timed.
int adaptive_aggregate(const AggregateFlags& flags) {
  const adapt::MachineProfile machine = adapt::current_machine_profile();
  const measure::Progress progress(!flags.quiet);
  const std::vector<measure::AdaptiveAggregateCell> cells = measure::run_adaptive_aggregate(
      flags.config, machine, flags.auto_placement, flags.auto_bits, [&](const measure::AggregateBenchProgress& p) {
        const std::string text = progress_text(p, progress.elapsed_seconds());
        if (p.phase == "done") {
          progress.finish(text);
        } else {
          progress.show(text, p.phase != "building");
        }
      });
  auto options_text = [](const ArrayOptions& o) {
    return std::string(to_string(o.placement)) + "/" + std::to_string(o.bits) + "/hp " + os::to_string(o.huge_pages);
  };
  measure::Report report("smartarrays.bench.aggregate/1");
  report.fields["language"] = "C++";
  report.fields["created"] = measure::utc_now();
  report.fields["adaptive"] = {{"placement", flags.auto_placement}, {"bits", flags.auto_bits},
                               {"machine_profile", machine.calibration}};
  report.fields["results"] = measure::Json::array();
  for (const measure::AdaptiveAggregateCell& c : cells) {
    report.fields["results"].push_back({{"language", "C++"},
                                        {"data_bits", c.data_bits},
                                        {"bits", c.a1.bits},
                                        {"placement", to_string(c.a1.placement)},
                                        {"a2_bits", c.a2.bits},
                                        {"a2_placement", to_string(c.a2.placement)},
                                        {"huge_pages", os::to_string(c.a1.huge_pages)},
                                        {"threads", c.threads},
                                        {"median_s", c.timing.median},
                                        {"min_s", c.timing.min},
                                        {"max_s", c.timing.max},
                                        {"spread", c.timing.spread()},
                                        {"gb_per_s", c.gb_per_s},
                                        {"sum", c.sum},
                                        {"decision", measure::Json::parse(c.decision.json(-1))}});
  }
  if (flags.json_path == "-") {
    measure::write_report(report, "-");
    return 0;
  }
  std::cout << "aggregation sum += a1[i] + a2[i], adaptive choice (machine profile: " << machine.calibration
            << "): 2 arrays x " << flags.config.length << " values\n\n";
  std::cout << " data bits  threads  chosen a1             chosen a2             median ms  spread     GB/s\n";
  for (const measure::AdaptiveAggregateCell& c : cells) {
    std::cout << std::setw(10) << c.data_bits << "  " << std::setw(7) << c.threads << "  " << std::left << std::setw(20)
              << options_text(c.a1) << "  " << std::setw(20) << options_text(c.a2) << std::right << "  " << std::fixed
              << std::setprecision(2) << std::setw(9) << c.timing.median * 1e3 << "  " << std::setprecision(1)
              << std::setw(5) << c.timing.spread() * 100 << "%  " << std::setprecision(2) << std::setw(7) << c.gb_per_s
              << "\n";
  }
  if (!cells.empty()) {
    std::cout << "\nwhy (" << cells.front().data_bits << " bits, " << cells.front().threads << " threads):\n"
              << cells.front().decision.text();
  }
  if (!flags.json_path.empty()) {
    measure::write_report(report, flags.json_path);
    std::cout << "\nresults: " << flags.json_path << "\n";
  }
  return 0;
}

int aggregate(const AggregateFlags& flags) {
  if (flags.auto_placement || flags.auto_bits) return adaptive_aggregate(flags);
  const AggregateResult result = run_aggregate(flags);
  if (flags.json_path == "-") {
    measure::write_report(report(result), "-");
    return 0;
  }
  print_rows(result);
  print_matrices(result);
  if (!flags.json_path.empty()) {
    measure::write_report(report(result), flags.json_path);
    std::cout << "\nresults: " << flags.json_path << "\n";
  }
  return 0;
}

// The check of bench aggregate: the node exists, and the biggest pair of arrays of the grid (built
// one (bits, placement) at a time) fits in the machine's memory, so that a --size of 1024G is
// rejected at once instead of after hours of computing the sums it would check.
void check_aggregate(const AggregateFlags& f) {
  check_output_file("--json", f.json_path);
  const measure::AggregateBenchConfig& c = f.config;
  const os::Topology& topology = os::topology();
  if (!f.auto_placement && std::find(c.placements.begin(), c.placements.end(), Placement::single_node) != c.placements.end()) {
    try {
      topology.check_memory_node(c.node);
    } catch (const Error& e) {
      throw UsageError(std::string("--node: ") + e.what());
    }
  }
  const std::uint64_t copies = std::find(c.placements.begin(), c.placements.end(), Placement::replicated) != c.placements.end()
                                   ? std::max<std::uint64_t>(topology.memory_nodes().size(), 1)
                                   : 1;
  const unsigned widest = c.bits.empty() ? 64 : *std::max_element(c.bits.begin(), c.bits.end());
  // length <= 2^40 and bits <= 64, so this cannot overflow even with 4096 replicas.
  const std::uint64_t needed = 2 * copies * ((c.length * widest + 7) / 8);
  check_machine_memory("--size",
                       "2 arrays of " + std::to_string(c.length) + " values at " + std::to_string(widest) + " bits" +
                           (copies > 1 ? ", replicated on " + std::to_string(copies) + " nodes," : "") + " need",
                       static_cast<double>(needed));
}

void add_aggregate_flags(CLI::App& app, AggregateFlags& f) {
  measure::AggregateBenchConfig& c = f.config;
  c.length = std::uint64_t{16} << 20;
  add_value<std::uint64_t>(app, "--size", "N", c.length, parse_count,
                           "values per array; K, M, G suffixes are powers of 1024 (default 16M)");
  // "auto" in --bits or --placements hands that choice to the adaptive layer (docs/adaptivity.md).
  add_value<std::vector<unsigned>>(
      app, "--bits", "LIST", c.bits,
      [&f](const std::string& text) {
        std::vector<unsigned> widths;
        std::vector<std::string> texts;
        for (const std::string& item : split_list(text)) {
          if (item == "auto") {
            f.auto_bits = true;
          } else {
            add_distinct(widths, texts, whole_number<unsigned>(1, 64)(item), item);
          }
        }
        return widths.empty() ? measure::AggregateBenchConfig{}.bits : widths;
      },
      "bit widths, 1..64 (default 10,31,32,33,50,63,64); auto: the adaptive layer\n"
      "stores each width as it chooses (the listed widths are then the data's)");
  add_value<std::vector<Placement>>(
      app, "--placements,--placement", "LIST", c.placements,
      [&f](const std::string& text) {
        std::vector<Placement> placements;
        std::vector<std::string> texts;
        for (const std::string& item : split_list(text)) {
          if (item == "auto") {
            f.auto_placement = true;
          } else {
            add_distinct(placements, texts, parse_placement(item), item);
          }
        }
        // The adaptive run places every array as it decides: a placement listed beside auto would not run.
        if (f.auto_placement && !placements.empty()) {
          throw UsageError("auto is the adaptive choice of every array's placement; it cannot be listed with " +
                           util::quoted(texts.front()));
        }
        return placements.empty() ? measure::AggregateBenchConfig{}.placements : placements;
      },
      "os_default, single_node, interleaved, replicated, partitioned, or auto (the\n"
      "adaptive choice) (default os_default,single_node,interleaved,replicated)");
  add_value(app, "--threads", "LIST", c.threads, list_of(whole_number<std::size_t>(1, 4096)),
            "worker counts (default: SMARTARRAYS_THREADS, else every usable CPU; with\n"
            "--placement auto, the adaptive choice of threads and pinning)");
  add_value(app, "--repetitions", "N", c.trials.repetitions, whole_number<int>(1, 1000000),
            "timed runs per combination, median reported (default 5)");
  add_value(app, "--warmup", "N", c.trials.warmup, whole_number<int>(0, 1000000), "untimed runs before them (default 1)");
  add_value<runtime::PinPolicy>(app, "--pinning", "POLICY", c.pinning, runtime::parse_pin_policy,
                                "none, sparse or dense worker placement (default sparse)");
  add_value(app, "--node", "N", c.node, whole_number<int>(0, 4095), "the node of single_node (default 0)");
  add_value(app, "--seed", "N", c.seed, whole_number<std::uint64_t>(0, ~std::uint64_t{0} - 1), "data seed (default 1)");
  add_value<HugePages>(app, "--huge-pages", "MODE", c.huge_pages, os::parse_huge_pages,
                       "huge pages for the arrays: auto (transparent huge pages from 4 MiB, as numpy),\n"
                       "on, off, or 2M / 1G hugetlb pages (default auto)");
  add_value<std::string>(app, "--json", "FILE", f.json_path, [](const std::string& s) { return s; },
                         "also write the results as JSON to FILE, '-' for stdout instead of the\n"
                         "tables (format: docs/cli.md)");
  add_flag(app, "--quiet", f.quiet, "no progress line on stderr");
}

}  // namespace

void add_bench_command(CommandTree& tree) {
  CLI::App& bench = tree.add(
      tree.root(), "bench", bench_header, []() -> int { throw UsageError("which benchmark?"); }, "", "benchmark");
  tree.define(bench, [&tree](CLI::App& app) {
    auto flags = std::make_shared<AggregateFlags>();
    CLI::App& aggregate_app =
        tree.add(app, "aggregate", aggregate_header, [flags] { return aggregate(*flags); }, aggregate_footer);
    tree.define(aggregate_app, [flags](CLI::App& sub) { add_aggregate_flags(sub, *flags); });
    tree.check(aggregate_app, [flags] { check_aggregate(*flags); });
    tree.applies_only(aggregate_app, {"--node"}, "when --placement includes single_node", [flags] {
      const std::vector<Placement>& p = flags->config.placements;
      return !flags->auto_placement && std::find(p.begin(), p.end(), Placement::single_node) != p.end();
    });
    tree.applies_only(aggregate_app, {"--huge-pages"}, "without --placement auto (the adaptive choice picks huge pages)",
                      [flags] { return !flags->auto_placement; });
    add_bench_adaptivity(tree, app);
    add_bench_workload(tree, app);
  });
}

}  // namespace smartarrays::cli
