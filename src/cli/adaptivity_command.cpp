// Owns `smartarrays bench adaptivity`: the evaluation of the adaptive choice (measure::
// run_adaptivity_bench) with a progress line, its case table, the summary against the targets, and
// the JSON result file.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/graph_options.hpp"
#include "cli/options.hpp"
#include "measure/adaptivity_bench.hpp"
#include "measure/progress.hpp"
#include "measure/report.hpp"
#include "smartarrays/adapt/calibrate.hpp"
#include "smartarrays/adapt/model.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::cli {

namespace {

const char* const adaptivity_header =
    "usage: smartarrays bench adaptivity [options]\n"
    "\n"
    "Evaluates the adaptive choice as the paper's section 6.3 does: aggregation at each --widths,\n"
    "degree centrality and PageRank (U / V / V+E), at 1 and every thread, in three memory scenarios\n"
    "set through the machine profile's free memory (enough; not enough for uncompressed replication;\n"
    "not enough for compressed replication). Every static configuration that fits and the adaptive\n"
    "choice are timed side by side; prints per case the choice, the measured best and the loss, then\n"
    "how often the choice was the best within the spread, the mean and worst loss, and the gain over\n"
    "the best static configuration. The machine profile is --machine FILE, else the cached one (calibrated\n"
    "first when none is cached: an estimate would judge default numbers, not the model). Each workload's\n"
    "profile is measured first at each thread count (interleaved, uncompressed, and its loop body on a\n"
    "cache-resident slice at natural and fewest bits), as `advise --measure` does; --derived decides\n"
    "with the profiles derived from the definitions instead. Ctrl-C stops it cleanly (exit 130).\n";

const char* const adaptivity_footer =
    "example:\n"
    "  smartarrays bench adaptivity --size 8M --vertices 1M --json adaptivity.json\n";

struct AdaptivityFlags {
  measure::AdaptivityConfig config;
  std::string machine;
  std::string json_path;
  std::string statistic = "median";
  bool derived = false;  // --derived: profiles from the definitions, not measured
  bool quiet = false;
};

std::string pct(double v) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1) << v * 100 << "%";
  return out.str();
}

std::string ms(double s) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(2) << s * 1e3;
  return out.str();
}

void print_result(const measure::AdaptivityResult& r, const AdaptivityFlags& f) {
  std::cout << "adaptive choice vs every static configuration (machine profile: " << f.machine << "; workload profiles: "
            << (f.derived ? "derived" : "measured") << "; times: " << f.statistic << " of the runs)\n\n";
  std::cout << "workload        threads  scenario                      best static         best ms  adaptive ms    loss  "
               "in spread  choice\n";
  for (const measure::AdaptivityCase& c : r.cases) {
    std::cout << std::left << std::setw(16) << c.workload << std::right << std::setw(7) << c.threads << "  " << std::left
              << std::setw(28) << c.scenario << "  ";
    if (!c.feasible) {
      std::cout << "(not applicable: nothing to compress, or no such memory on this machine)\n" << std::right;
      continue;
    }
    std::cout << std::setw(18) << c.best_label << std::right << std::setw(9) << ms(c.best_s) << std::setw(13)
              << ms(c.adaptive_s) << std::setw(8) << pct(c.loss) << std::setw(11)
              << (c.best_within_spread ? "yes" : "no") << "  " << c.choice << "\n";
  }
  const measure::AdaptivitySummary& s = r.summary;
  std::cout << "\ncases: " << s.cases << " (" << s.skipped << " not applicable)\n";
  std::cout << "choice is the measured best within the spread: " << s.best_within_spread << " of " << s.cases << "\n";
  std::cout << "choice within 5% of the best: " << s.within_5_percent << " of " << s.cases << " ("
            << pct(s.cases ? static_cast<double>(s.within_5_percent) / static_cast<double>(s.cases) : 0) << ")\n";
  std::cout << "loss against the best: mean " << pct(s.mean_loss) << ", worst " << pct(s.worst_loss) << "\n";
  std::cout << "best static configuration:";
  for (const auto& [family, label] : s.best_static) std::cout << " " << family << "=" << label;
  std::cout << "\nmean gain over the best static configuration: " << pct(s.gain_over_static)
            << " (a perfect choice among the static configurations: " << pct(s.static_oracle_gain) << ")\n";
  if (s.pooled) {
    std::cout << "\none memory node: placements put pages in the same memory, so configurations that differ only in\n"
                 "placement are pooled as one (their runs together):\n";
    std::cout << "choice within 5% of the best: " << s.pooled_within_5_percent << " of " << s.cases << " ("
              << pct(s.cases ? static_cast<double>(s.pooled_within_5_percent) / static_cast<double>(s.cases) : 0) << ")\n";
    std::cout << "loss against the best: mean " << pct(s.pooled_mean_loss) << ", worst " << pct(s.pooled_worst_loss) << "\n";
    std::cout << "best static width class:";
    for (const auto& [family, label] : s.pooled_best_static) std::cout << " " << family << "=" << label;
    std::cout << "\nmean gain over the best static width class: " << pct(s.pooled_gain_over_static)
              << " (a perfect choice among the static classes: " << pct(s.pooled_static_oracle_gain) << ")\n";
  }
}

measure::Json configs_json(const std::vector<adapt::ArrayConfig>& configs) {
  measure::Json list = measure::Json::array();
  for (const adapt::ArrayConfig& c : configs) {
    list.push_back({{"placement", to_string(c.placement)}, {"bits", c.bits}, {"huge_pages", c.huge_pages}});
  }
  return list;
}

measure::Report report(const measure::AdaptivityResult& r, const AdaptivityFlags& f) {
  measure::Report report("smartarrays.bench.adaptivity/1");
  report.fields["created"] = measure::utc_now();
  report.fields["config"] = {{"aggregate_length", f.config.aggregate_length},
                             {"widths", f.config.widths},
                             {"vertices", f.config.vertices},
                             {"average_degree", f.config.average_degree},
                             {"iterations", f.config.iterations},
                             {"repetitions", f.config.trials.repetitions},
                             {"min_seconds", f.config.min_seconds},
                             {"warmup", f.config.trials.warmup},
                             {"statistic", f.statistic},
                             {"profiles", f.config.measure_profiles ? "measured" : "derived"},
                             {"machine_profile", f.machine}};
  report.fields["cases"] = measure::Json::array();
  for (const measure::AdaptivityCase& c : r.cases) {
    measure::Json j = {{"family", c.family},         {"workload", c.workload}, {"threads", c.threads},
                       {"scenario", c.scenario},     {"free_bytes_per_node", c.free_bytes_per_node},
                       {"feasible", c.feasible}};
    if (c.feasible) {
      j["choice"] = c.choice;
      j["profile"] = measure::Json::parse(adapt::to_json(c.profile, -1));
      const adapt::ModelFit fit = adapt::fit_model(f.config.machine, c.profile);
      j["fit"] = {{"compute_scale", fit.compute},
                  {"compressed_compute_scale", fit.compressed},
                  {"memory_scale", fit.memory},
                  {"serial_fraction", fit.serial_fraction >= 0 ? fit.serial_fraction : f.config.machine.serial_fraction}};
      j["adaptive"] = {{"configs", configs_json(c.adaptive.configs)},
                       {"timing", measure::timing_json(c.adaptive.timing)},
                       {"predicted_s", c.adaptive.predicted_s}};
      j["best"] = {{"label", c.best_label}, {"seconds", c.best_s}};
      j["adaptive_s"] = c.adaptive_s;
      j["loss"] = c.loss;
      j["best_static_s"] = c.best_static_s;
      j["pooled_best"] = c.pooled_best;
      j["pooled_loss"] = c.pooled_loss;
      j["best_within_spread"] = c.best_within_spread;
      j["statics"] = measure::Json::array();
      for (const measure::ConfigTiming& s : c.statics) {
        j["statics"].push_back({{"label", s.label},
                                {"configs", configs_json(s.configs)},
                                {"timing", measure::timing_json(s.timing)},
                                {"predicted_s", s.predicted_s}});
      }
    }
    report.fields["cases"].push_back(std::move(j));
  }
  const measure::AdaptivitySummary& s = r.summary;
  measure::Json best_static = measure::Json::object();
  for (const auto& [family, label] : s.best_static) best_static[family] = label;
  report.fields["summary"] = {{"cases", s.cases},
                              {"not_applicable", s.skipped},
                              {"best_within_spread", s.best_within_spread},
                              {"within_5_percent", s.within_5_percent},
                              {"mean_loss", s.mean_loss},
                              {"worst_loss", s.worst_loss},
                              {"best_static", best_static},
                              {"gain_over_best_static", s.gain_over_static},
                              {"static_oracle_gain", s.static_oracle_gain}};
  if (s.pooled) {
    measure::Json pooled_static = measure::Json::object();
    for (const auto& [family, label] : s.pooled_best_static) pooled_static[family] = label;
    report.fields["summary"]["pooled"] = {{"within_5_percent", s.pooled_within_5_percent},
                                          {"mean_loss", s.pooled_mean_loss},
                                          {"worst_loss", s.pooled_worst_loss},
                                          {"best_static", pooled_static},
                                          {"gain_over_best_static", s.pooled_gain_over_static},
                                          {"static_oracle_gain", s.pooled_static_oracle_gain}};
  }
  return report;
}

// The check of bench adaptivity, before any calibration or work: the arrays it builds at once fit in
// the machine's memory. Every configuration of a family is built before the timing, so aggregation
// holds at least its 64-bit pair at each of four placements, and the graph is generated as an edge
// list of 16 bytes an edge first.
void check_adaptivity(const AdaptivityFlags& f) {
  check_output_file("--json", f.json_path);
  const measure::AdaptivityConfig& c = f.config;
  const bool aggregate = std::find(c.workloads.begin(), c.workloads.end(), "aggregate") != c.workloads.end();
  if (aggregate) {
    check_machine_memory("--size", "aggregation's 64-bit pair of " + std::to_string(c.aggregate_length) +
                                       "-value arrays at four placements needs",
                         64 * static_cast<double>(c.aggregate_length));
  }
  if (std::any_of(c.workloads.begin(), c.workloads.end(), [](const std::string& w) { return w != "aggregate"; })) {
    graph_cli::check_edge_list_memory("--vertices and --degree", static_cast<double>(c.vertices) * c.average_degree, false);
  }
}

int adaptivity(AdaptivityFlags& f) {
  if (!f.machine.empty()) {
    f.config.machine = adapt::read_machine_profile(f.machine);
  } else {
    f.config.machine = adapt::current_machine_profile();
    if (f.config.machine.calibration == "estimated") {
      // An estimate prices decoding and bandwidth from defaults, not from this machine: evaluating
      // the model on it would judge the defaults. Calibrate once, as `smartarrays calibrate` does.
      std::cerr << "bench adaptivity: no calibrated profile of this machine is cached; calibrating first (full, "
                   "under a minute; it is cached for later runs)\n";
      f.config.machine = calibrate_and_cache(false, f.quiet);
    }
    f.machine = adapt::cached_profile_path();
  }
  f.config.compare_min = f.statistic == "min";
  f.config.measure_profiles = !f.derived;
  const measure::Progress progress(!f.quiet);
  const measure::AdaptivityResult result = measure::run_adaptivity_bench(f.config, [&](const measure::AdaptivityProgress& p) {
    std::ostringstream line;
    line << "[" << p.done << "] " << std::fixed << std::setprecision(0) << progress.elapsed_seconds() << " s  " << p.what;
    progress.step(line.str(), p.milestone ? "bench adaptivity: " + line.str() : "");
  });
  progress.finish("evaluated in " + std::to_string(static_cast<int>(progress.elapsed_seconds())) + " s");
  if (f.json_path == "-") {
    measure::write_report(report(result, f), "-");
    return 0;
  }
  print_result(result, f);
  if (!f.json_path.empty()) {
    measure::write_report(report(result, f), f.json_path);
    std::cout << "\nresults: " << f.json_path << "\n";
  }
  return 0;
}

std::string text_value(const std::string& s) { return s; }

void add_adaptivity_flags(CLI::App& app, AdaptivityFlags& f) {
  measure::AdaptivityConfig& c = f.config;
  add_value<std::uint64_t>(app, "--size", "N", c.aggregate_length, parse_count, "values per aggregation array (default 8M)");
  add_value(app, "--widths", "LIST", c.widths, list_of(whole_number<unsigned>(1, 64)),
            "aggregation data widths (default 10,31,32,33,50,63,64)");
  add_value<std::uint64_t>(app, "--vertices", "N", c.vertices, parse_count, "graph vertices (default 1M)");
  add_value<double>(app, "--degree", "D", c.average_degree, graph_cli::parse_average_degree,
                    "graph edges per vertex (default 8)");
  add_value(app, "--iterations", "I", c.iterations, whole_number<unsigned>(1, 1000), "PageRank iterations per run (default 5)");
  add_value(app, "--threads", "LIST", c.threads, list_of(whole_number<std::size_t>(1, 4096)),
            "thread counts (default: 1 and every CPU)");
  add_value(app, "--workloads", "LIST", c.workloads, list_of<std::string>([](const std::string& s) {
              if (s != "aggregate" && s != "degree" && s != "pagerank") {
                throw UsageError("unknown workload '" + s + "' (expected one of: aggregate, degree, pagerank)");
              }
              return s;
            }),
            "aggregate, degree, pagerank (default all)");
  add_value(app, "--repetitions", "N", c.trials.repetitions, whole_number<int>(1, 1000),
            "timed runs per configuration, at least (default 3)");
  add_value<double>(app, "--min-seconds", "S", c.min_seconds,
                    [](const std::string& text) {
                      const double v = parse_real(text);
                      if (v < 0 || v > 3600) throw UsageError("expected seconds from 0 to 3600, got " + util::quoted(text));
                      return v;
                    },
                    "time each configuration until its runs add up to S seconds, up to 1000 runs (default 0.25)");
  add_value<std::string>(app, "--statistic", "S", f.statistic,
                         [](const std::string& s) {
                           if (s != "median" && s != "min") throw UsageError("expected median or min, got " + util::quoted(s));
                           return s;
                         },
                         "compare configurations by their median run (default) or fastest run (min)");
  add_value<std::string>(app, "--machine", "FILE", f.machine, text_value, "machine profile (default: the cached one)");
  add_value<std::string>(app, "--json", "FILE", f.json_path, text_value,
                         "also write the results as JSON to FILE, '-' for stdout instead of the tables");
  add_flag(app, "--derived", f.derived,
           "decide with profiles derived from the workloads' definitions (default: measured here first, as "
           "`advise --measure` does)");
  add_flag(app, "--quiet", f.quiet, "no progress line on stderr");
}

}  // namespace

void add_bench_adaptivity(CommandTree& tree, CLI::App& bench) {
  auto flags = std::make_shared<AdaptivityFlags>();
  CLI::App& adaptivity_app =
      tree.add(bench, "adaptivity", adaptivity_header, [flags] { return adaptivity(*flags); }, adaptivity_footer);
  tree.define(adaptivity_app, [flags](CLI::App& app) { add_adaptivity_flags(app, *flags); });
  tree.check(adaptivity_app, [flags] { check_adaptivity(*flags); });
  auto includes = [flags](std::initializer_list<const char*> names) {
    const std::vector<std::string>& w = flags->config.workloads;
    return std::any_of(names.begin(), names.end(),
                       [&](const char* name) { return std::find(w.begin(), w.end(), name) != w.end(); });
  };
  tree.applies_only(adaptivity_app, {"--size", "--widths"}, "when --workloads includes aggregate",
                    [includes] { return includes({"aggregate"}); });
  tree.applies_only(adaptivity_app, {"--vertices", "--degree"}, "when --workloads includes degree or pagerank",
                    [includes] { return includes({"degree", "pagerank"}); });
  tree.applies_only(adaptivity_app, {"--iterations"}, "when --workloads includes pagerank",
                    [includes] { return includes({"pagerank"}); });
}

}  // namespace smartarrays::cli
