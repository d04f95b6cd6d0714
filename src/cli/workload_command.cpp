// Owns `smartarrays bench workload w1|w2|w3|w4|map`: its flags and check, the run of
// measure::run_workload_bench with a progress line (stopped cleanly by Ctrl-C), the result table,
// the JSON result file, and writing the dataset as .npy files for other engines
// (python/bench/bench_workloads.py).
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "measure/progress.hpp"
#include "measure/report.hpp"
#include "measure/workload_bench.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::cli {

namespace {

const char* const workload_header =
    "usage: smartarrays bench workload w1|w2|w3|w4|map [options]\n"
    "\n"
    "Runs an analytics workload of the NUMA analytics study (its Table 1) on generated data, with\n"
    "ordinary containers (classic) and with smart collections (smart), checks every result and that\n"
    "both agree, and prints time, data size and peak extra memory per implementation:\n"
    "  w1  SELECT key, MEDIAN(val) FROM records GROUP BY key       (holistic aggregation)\n"
    "  w2  SELECT key, COUNT(*) FROM records GROUP BY key          (distributive aggregation)\n"
    "  w3  SELECT COUNT(*) FROM R JOIN S ON R.key = S.fkey         (hash join, |R|:|S| = 1:16)\n"
    "  w4  the same join through an index on R.key built beforehand (index nested loop join)\n"
    "  map a hash map R.key -> row built beforehand (classic: std::unordered_map), S.fkey looked up\n"
    "Ctrl-C stops the run cleanly (exit 130).\n";

const char* const workload_footer =
    "examples:\n"
    "  smartarrays bench workload w1 --dataset zipf --records 16M --groups 64K --threads 2\n"
    "  smartarrays bench workload w3 --records 64M --impl smart --json w3.json\n"
    "  smartarrays bench workload map --records 32M --threads 2     (HashMap vs std::unordered_map)\n"
    "  smartarrays bench workload w1 --records 1M --write-npy data/w1   (no run: the .npy files only)\n";

struct WorkloadFlags {
  std::string workload;
  measure::WorkloadBenchConfig config;
  std::string json_path;
  std::string npy_dir;
  bool quiet = false;
};

std::string mb(std::uint64_t bytes) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(1) << static_cast<double>(bytes) / 1e6;
  return text.str();
}

// Seconds in fixed notation with at least 4 significant digits (3 decimals at least), so a run of
// a few milliseconds does not read 0.000 and a regex such as `classic +([0-9.]+)` reads it whole.
std::string seconds_text(double s) {
  const int decimals = s > 0 ? std::clamp(3 - static_cast<int>(std::floor(std::log10(s))), 3, 9) : 3;
  std::ostringstream text;
  text << std::fixed << std::setprecision(decimals) << s;
  return text.str();
}

std::string describe(const measure::WorkloadBenchConfig& c) {
  std::ostringstream text;
  if (c.workload == measure::Workload::w1 || c.workload == measure::Workload::w2) {
    text << to_string(c.workload) << (c.workload == measure::Workload::w1 ? " MEDIAN" : " COUNT") << " GROUP BY key: "
         << collections::to_string(c.dataset) << ", " << c.records << " records, " << c.groups << " groups";
  } else {
    const collections::JoinSpec spec = measure::join_spec(c);
    const char* what = c.workload == measure::Workload::w3 ? " hash join" : c.workload == measure::Workload::w4 ? " index join" : " hash map lookups";
    text << to_string(c.workload) << what << ": |R| " << spec.build_rows << ", |S| " << spec.build_rows * spec.probe_ratio;
  }
  return text.str();
}

measure::Json result_json(const measure::WorkloadBenchResult& r) {
  return {{"implementation", to_string(r.implementation)},
          {"median_s", r.timing.median},
          {"min_s", r.timing.min},
          {"max_s", r.timing.max},
          {"spread", r.timing.spread()},
          {"seconds", r.timing.seconds},
          {"prepare_s", r.prepare_seconds},
          {"data_bytes", r.data_bytes},
          {"peak_extra_bytes", r.peak_extra_bytes},
          {"structure_bytes", r.structure_bytes},
          {"groups", r.groups},
          {"checksum", r.checksum}};
}

void print(const measure::WorkloadBenchConfig& c, const std::vector<measure::WorkloadBenchResult>& results) {
  std::cout << describe(c) << ", " << c.threads << " threads, " << c.trials.repetitions << " timed runs (+"
            << c.trials.warmup << " warm-up)\n\n";
  std::cout << "impl     median s  spread  data MB  peak extra MB   build s  index MB  vs first\n";
  for (const measure::WorkloadBenchResult& r : results) {
    std::cout << std::left << std::setw(7) << to_string(r.implementation) << std::right << std::fixed << std::setw(10)
              << seconds_text(r.timing.median) << "  " << std::setprecision(1) << std::setw(5) << r.timing.spread() * 100
              << "%  " << std::setw(7) << mb(r.data_bytes) << "  " << std::setw(13) << mb(r.peak_extra_bytes) << "  "
              << std::setw(8) << seconds_text(r.prepare_seconds) << "  " << std::setprecision(1) << std::setw(8)
              << mb(r.structure_bytes) << "  " << std::setprecision(2) << std::setw(7)
              << results.front().timing.median / r.timing.median << "x\n";
  }
}

int run_workload(WorkloadFlags& f) {
  measure::WorkloadBenchConfig& c = f.config;
  if (c.threads == 0) c.threads = runtime::default_thread_count();
  if (!f.npy_dir.empty()) {
    for (const std::string& path : measure::write_workload_dataset(c, f.npy_dir)) std::cout << "wrote " << path << "\n";
    return 0;
  }
  const measure::Progress progress(!f.quiet);
  const std::vector<measure::WorkloadBenchResult> results =
      measure::run_workload_bench(c, [&](const measure::WorkloadBenchProgress& p) {
        std::ostringstream line;
        line << std::fixed << std::setprecision(0) << progress.elapsed_seconds() << " s  " << to_string(c.workload) << " ";
        if (p.phase == "done") return progress.finish(line.str() + "done");
        if (p.phase == "generating") return progress.show(line.str() + "generating the dataset");
        line << to_string(p.implementation) << ": " << p.phase;
        if (p.phase == "running") line << " run " << p.run + 1 << "/" << p.runs;
        progress.show(line.str(), p.phase != "running");
      });
  measure::Report report("smartarrays.bench.workload/1");
  report.fields["created"] = measure::utc_now();
  report.fields["workload"] = to_string(c.workload);
  report.fields["query"] = describe(c);
  report.fields["config"] = {{"dataset", collections::to_string(c.dataset)}, {"records", c.records}, {"groups", c.groups},
                             {"join_ratio", c.join_ratio}, {"threads", c.threads}, {"repetitions", c.trials.repetitions},
                             {"warmup", c.trials.warmup}, {"placement", to_string(c.options.placement)}, {"seed", c.seed}};
  report.fields["results"] = measure::Json::array();
  for (const measure::WorkloadBenchResult& r : results) report.fields["results"].push_back(result_json(r));
  if (f.json_path == "-") {
    measure::write_report(report, "-");
    return 0;
  }
  print(c, results);
  if (!f.json_path.empty()) {
    measure::write_report(report, f.json_path);
    std::cout << "\nresults: " << f.json_path << "\n";
  }
  return 0;
}

void check_workload(WorkloadFlags& f) {
  if (f.workload.empty()) throw UsageError("which workload? (w1, w2, w3, w4 or map)");
  check_output_file("--json", f.json_path);
  try {
    f.config.workload = measure::parse_workload(f.workload);
  } catch (const Error& e) {
    throw UsageError(std::string("WORKLOAD: ") + e.what());
  }
  try {
    measure::validate(f.config);
  } catch (const Error& e) {
    const std::string what = e.what();
    throw UsageError("--" + what.substr(0, what.find(':')) + what.substr(what.find(':')));
  }
  // The two columns as plain 64-bit copies (classic) plus their smart form: a lower bound of what a
  // run holds, so a size far beyond the machine is refused before generating anything.
  check_machine_memory("--records", std::to_string(f.config.records) + " records need",
                       24 * static_cast<double>(f.config.records));
}

void add_workload_flags(CLI::App& app, WorkloadFlags& f) {
  measure::WorkloadBenchConfig& c = f.config;
  app.add_option("WORKLOAD", f.workload);
  add_value(app, "--impl", "LIST", c.implementations, list_of<measure::Implementation>(measure::parse_implementation),
            "classic, smart or both, in run order (default classic,smart)");
  add_value<collections::Distribution>(app, "--dataset", "NAME", c.dataset, collections::parse_distribution,
                                       "keys of w1/w2: moving_cluster, sequential, heavy_hitter, zipf\n"
                                       "(default heavy_hitter)");
  add_value<std::uint64_t>(app, "--records", "N", c.records, parse_count,
                           "w1/w2 records; w3/w4/map probe rows |S| (default 16M; K, M, G suffixes)");
  add_value<std::uint64_t>(app, "--groups", "N", c.groups, parse_count, "w1/w2 group-by cardinality (default 64K)");
  add_value(app, "--join-ratio", "N", c.join_ratio, whole_number<std::uint64_t>(1, 1 << 20), "w3/w4/map |S| / |R| (default 16)");
  add_value(app, "--threads", "N", c.threads, whole_number<std::size_t>(1, 4096),
            "workers (default: SMARTARRAYS_THREADS, else every usable CPU)");
  add_value(app, "--repetitions", "N", c.trials.repetitions, whole_number<int>(1, 1000000), "timed runs (default 3)");
  add_value(app, "--warmup", "N", c.trials.warmup, whole_number<int>(0, 1000000), "untimed runs first (default 1)");
  add_value<Placement>(app, "--placement", "NAME", c.options.placement, parse_placement,
                       "placement of the smart columns and structures (default os_default)");
  add_value(app, "--seed", "N", c.seed, whole_number<std::uint64_t>(0, ~std::uint64_t{0} - 1), "data seed (default 1)");
  add_value<std::string>(app, "--json", "FILE", f.json_path, [](const std::string& s) { return s; },
                         "also write the results as JSON to FILE, '-' for stdout instead of the table");
  add_value<std::string>(app, "--write-npy", "DIR", f.npy_dir, [](const std::string& s) { return s; },
                         "write the dataset as .npy files into DIR instead of running");
  add_flag(app, "--quiet", f.quiet, "no progress line on stderr");
}

}  // namespace

void add_bench_workload(CommandTree& tree, CLI::App& bench) {
  auto f = std::make_shared<WorkloadFlags>();
  CLI::App& app = tree.add(bench, "workload", workload_header, [f] { return run_workload(*f); }, workload_footer);
  tree.define(app, [f](CLI::App& defined) { add_workload_flags(defined, *f); });
  tree.check(app, [f] { check_workload(*f); });
  tree.applies_only(app, {"--dataset", "--groups"}, "to w1 and w2", [f] {
    return f->config.workload == measure::Workload::w1 || f->config.workload == measure::Workload::w2;
  });
  tree.applies_only(app, {"--join-ratio"}, "to w3, w4 and map", [f] {
    return f->config.workload != measure::Workload::w1 && f->config.workload != measure::Workload::w2;
  });
  tree.applies_only(app, {"--impl", "--repetitions", "--warmup", "--placement", "--json"}, "without --write-npy",
                    [f] { return f->npy_dir.empty(); });
}

}  // namespace smartarrays::cli
