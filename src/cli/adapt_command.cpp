// Owns `smartarrays calibrate` (measure this machine for the adaptive choice and cache or write its
// profile) and `smartarrays advise` (the decision for a built-in workload: the choice, every
// candidate's predicted time and the explanation, as a table or JSON).
#include <chrono>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "measure/progress.hpp"
#include "measure/report.hpp"
#include "measure/workload_profile.hpp"
#include "smartarrays/adapt/adaptive_array.hpp"
#include "smartarrays/adapt/calibrate.hpp"
#include "smartarrays/adapt/decision.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::cli {

namespace {

const char* const calibrate_header =
    "usage: smartarrays calibrate [--quick] [--output FILE] [--quiet]\n"
    "\n"
    "Measures this machine for the adaptive choice of placement, compression and huge pages: read\n"
    "bandwidth from every node to every node (all workers and one thread), dependent-load latency,\n"
    "replica copy rate, and per bit width the decode+sum rate and random get cost. Writes the\n"
    "profile (smartarrays.machine/1 with a model member, docs/adaptivity.md) to this machine's cache\n"
    "entry, where placement=auto and bits=auto find it, or to --output FILE.\n";

const char* const calibrate_footer =
    "examples:\n"
    "  smartarrays calibrate --quick\n"
    "  smartarrays calibrate --output machine.json\n";

const char* const advise_header =
    "usage: smartarrays advise --workload aggregate|degree|pagerank --length N [--bits B] [--threads T]\n"
    "                          [--edges E] [--iterations I] [--hints LIST] [--free-memory BYTES]\n"
    "                          [--machine FILE] [--profile FILE] [--measure] [--write-profile FILE]\n"
    "                          [--json FILE]\n"
    "\n"
    "Decides placement, bit width and huge pages for every array of a workload (the paper's Figure 13\n"
    "diagrams, then the predicted time of each candidate) and explains why. The machine is --machine\n"
    "FILE, else this machine's cached calibration, else an estimate from its topology. The workload is\n"
    "--profile FILE (smartarrays.workload/1), else derived from its definition: aggregate reads two\n"
    "arrays of N values of B bits; degree and pagerank a graph of N vertices and E edges. --measure\n"
    "runs it here first (interleaved, uncompressed) and decides with what the run measured.\n";

const char* const advise_footer =
    "examples:\n"
    "  smartarrays advise --workload aggregate --length 64M --bits 33 --threads 2\n"
    "  smartarrays advise --workload pagerank --length 1M --edges 16M --machine two-socket.json --json -\n";

struct CalibrateFlags {
  bool quick = false;
  std::string output;
  bool quiet = false;
};

struct AdviseFlags {
  std::string workload;
  std::uint64_t length = 0;
  unsigned bits = 0;
  unsigned threads = 0;
  std::uint64_t edges = 0;
  unsigned iterations = 15;
  std::string hints;
  std::uint64_t free_memory = 0;
  std::string machine;
  std::string profile;
  std::string write_profile;
  std::string json_path;
  bool measure = false;
};

struct AdviseResult {
  adapt::MachineProfile machine;
  std::string machine_source;
  adapt::Decision decision;
  double decide_seconds = 0;
};

std::string fixed(double v, int digits) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(digits) << v;
  return out.str();
}

void print_matrix(const char* title, const adapt::NodeMatrix& m, int digits) {
  std::cout << title << "\n      ";
  for (std::size_t j = 0; j < m.size(); ++j) std::cout << std::setw(9) << ("node " + std::to_string(j));
  std::cout << "\n";
  for (std::size_t i = 0; i < m.size(); ++i) {
    std::cout << "node " << i;
    for (double v : m[i]) std::cout << std::setw(9) << fixed(v, digits);
    std::cout << "\n";
  }
}

void print_profile(const adapt::MachineProfile& p) {
  std::cout << "machine: " << p.cpu_model << ", " << p.node_count() << " node(s), " << p.total_cpus()
            << " CPUs, codec " << p.codec_isa << "\n";
  std::cout << "calibration: " << p.calibration << ", " << fixed(p.calibration_seconds, 1) << " s\n\n";
  print_matrix("read GB/s, all workers of a node (rows read columns)", p.read_gbs, 2);
  print_matrix("read GB/s, one thread", p.read_gbs_1t, 2);
  print_matrix("dependent-load latency, ns", p.latency_ns, 1);
  std::cout << "replica copy GB/s:";
  for (double v : p.copy_gbs) std::cout << " " << fixed(v, 2);
  std::cout << "\nmemory parallelism: " << fixed(p.memory_parallelism, 1)
            << "   huge-page latency ratio: " << fixed(p.huge_page_latency_ratio, 3)
            << "   last-level cache: " << (p.llc_bytes >> 20) << " MiB (random loads see "
            << fixed(static_cast<double>(p.random_cache()) / (1 << 20), 1) << " MiB)   serial fraction: "
            << fixed(p.serial_fraction, 2) << "\n\n";
  std::cout << " bits  scan Gvalues/s/CPU  get ns\n";
  for (unsigned b : {1u, 8u, 10u, 16u, 31u, 32u, 33u, 50u, 63u, 64u}) {
    std::cout << std::setw(5) << b << "  " << std::setw(18) << fixed(p.decode.scan_values_per_s_per_cpu[b - 1] / 1e9, 2)
              << "  " << std::setw(6) << fixed(p.decode.get_ns[b - 1], 2) << "\n";
  }
  std::cout << "plain 64-bit sum: " << fixed(p.decode.plain_scan_values_per_s_per_cpu / 1e9, 2) << " Gvalues/s/CPU\n";
}

// Calibrates with a progress line (none when quiet).
adapt::MachineProfile calibrate_with_progress(bool quick, bool quiet) {
  const measure::Progress progress(!quiet);
  adapt::CalibrationOptions options;
  options.quick = quick;
  options.progress = [&](const std::string& what, double fraction) {
    progress.show("calibrating (" + std::string(quick ? "quick" : "full") + ") " + fixed(fraction * 100, 0) + "%  " +
                      fixed(progress.elapsed_seconds(), 1) + " s  " + what,
                  false);
  };
  adapt::MachineProfile profile = adapt::calibrate(options);
  progress.finish("calibrated in " + fixed(progress.elapsed_seconds(), 1) + " s");
  return profile;
}

int calibrate(const CalibrateFlags& flags) {
  const adapt::MachineProfile profile = calibrate_with_progress(flags.quick, flags.quiet);
  const std::string path = flags.output.empty() ? adapt::cached_profile_path() : flags.output;
  if (path == "-") {
    std::cout << adapt::to_json(profile) << "\n";
    return 0;
  }
  adapt::write_machine_profile(profile, path);
  print_profile(profile);
  std::cout << "\nprofile: " << path << "\n";
  return 0;
}

AdviseResult advise(const AdviseFlags& f) {
  AdviseResult r;
  if (!f.machine.empty()) {
    r.machine = adapt::read_machine_profile(f.machine);
    r.machine_source = f.machine;
  } else {
    r.machine = adapt::current_machine_profile();
    r.machine_source = r.machine.calibration == "estimated" ? "estimated from the topology (run smartarrays calibrate)"
                                                             : adapt::cached_profile_path();
  }
  if (f.free_memory > 0) r.machine = adapt::with_free_memory(r.machine, f.free_memory);
  adapt::WorkloadProfile workload;
  if (!f.profile.empty()) {
    workload = adapt::read_workload_profile(f.profile);
    if (f.threads > 0) workload.threads = f.threads;
  } else if (f.workload == "aggregate") {
    workload = adapt::aggregate_workload(f.length, f.bits == 0 ? 64 : f.bits, f.threads);
  } else if (f.workload == "degree") {
    workload = adapt::degree_workload(f.length, f.edges, f.threads);
  } else {
    workload = adapt::pagerank_workload(f.length, f.edges, f.threads, f.iterations);
  }
  if (f.profile.empty()) {
    for (adapt::ArrayUse& a : workload.arrays) {
      if (a.fixed) continue;
      if (!f.hints.empty()) a.hints = adapt::parse_hints(f.hints, a.hints);
      // --bits gives the width of a graph's offsets (the values the V variant compresses).
      if (f.bits != 0 && f.workload != "aggregate" && a.name != "redge" && a.name != "contributions") {
        a.value_bits = std::min(f.bits, a.natural_bits);
      }
    }
  }
  if (f.measure) {
    // Measuring holds the workload's arrays at their natural widths: refused before anything is
    // built when they exceed the machine's memory.
    double needed = 0;
    for (const adapt::ArrayUse& a : workload.arrays) needed += static_cast<double>(a.length) * a.natural_bits / 8;
    check_machine_memory(f.profile.empty() ? "--length" : "--profile",
                         "measuring the workload holds its arrays at their natural widths:", needed);
    workload = measure::measure_workload(workload);
  }
  if (!f.write_profile.empty()) adapt::write_workload_profile(workload, f.write_profile);
  const auto start = std::chrono::steady_clock::now();
  r.decision = adapt::decide(r.machine, workload);
  r.decide_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

void print_advice(const AdviseResult& r) {
  const adapt::Decision& d = r.decision;
  std::cout << "workload: " << d.workload.workload << ", "
            << (d.workload.threads == 0 ? "threads not given" : std::to_string(d.workload.threads) + " threads") << "\n";
  std::cout << "machine: " << r.machine_source << " (" << r.machine.node_count() << " node(s), calibration "
            << r.machine.calibration << ")\n\n";
  std::cout << "choice:\n";
  for (std::size_t k = 0; k < d.arrays.size(); ++k) {
    const adapt::ArrayConfig& c = d.arrays[k].choice;
    std::cout << "  " << std::left << std::setw(14) << d.arrays[k].name << std::right << " " << std::left << std::setw(12)
              << to_string(c.placement) << std::right << std::setw(3) << c.bits << " bits"
              << (c.huge_pages ? ", huge pages" : "") << (d.arrays[k].fixed ? "  (fixed)" : "") << "\n";
  }
  std::cout << "  " << d.threads << " threads" << (d.threads_decided ? " (decided)" : "") << ", "
            << runtime::to_string(d.pinning) << " pinning\n";
  std::cout << "  predicted " << fixed(d.predicted.seconds * 1e3, 3) << " ms\n\n";
  std::cout << "candidates (predicted):\n";
  for (const adapt::Candidate& c : d.candidates) {
    std::cout << "  " << std::left << std::setw(26) << c.label << std::right << std::setw(12)
              << fixed(c.prediction.seconds * 1e3, 3) << " ms" << (c.fits ? "" : "  (does not fit)") << "\n";
  }
  std::cout << "\nexplanation:\n";
  std::istringstream lines(d.text());
  for (std::string line; std::getline(lines, line);) std::cout << "  " << line << "\n";
  std::cout << "\ndecided in " << fixed(r.decide_seconds * 1e3, 3) << " ms\n";
}

measure::Report advice_report(const AdviseResult& r) {
  measure::Report report("smartarrays.advice/1", measure::Json::parse(r.decision.json(-1)));
  report.fields["workload"] = measure::Json::parse(adapt::to_json(r.decision.workload, -1));
  report.fields["machine_profile"] = r.machine_source;
  report.fields["decide_seconds"] = r.decide_seconds;
  return report;
}

int run_advise(const AdviseFlags& flags) {
  const AdviseResult result = advise(flags);
  if (flags.json_path == "-") {
    measure::write_report(advice_report(result), "-");
    return 0;
  }
  print_advice(result);
  if (!flags.json_path.empty()) {
    measure::write_report(advice_report(result), flags.json_path);
    std::cout << "\nresults: " << flags.json_path << "\n";
  }
  return 0;
}

void check_advise(const AdviseFlags& f) {
  check_output_file("--json", f.json_path);
  check_output_file("--write-profile", f.write_profile, {.dash_is_stdout = false, .creates_parents = true});
  if (f.profile.empty()) {
    if (f.workload.empty()) throw UsageError("--workload: required (aggregate, degree or pagerank) unless --profile is given");
    if (f.length == 0) throw UsageError("--length: required unless --profile is given");
    if (f.workload != "aggregate" && f.edges == 0) throw UsageError("--edges: required for --workload " + f.workload);
  }
  if (!f.hints.empty()) {
    try {
      adapt::parse_hints(f.hints);
    } catch (const Error& e) {
      throw UsageError(std::string("--hints: ") + e.what());
    }
  }
}

std::string text_value(const std::string& s) { return s; }

void add_advise_flags(CLI::App& app, AdviseFlags& f) {
  add_value<std::string>(app, "--workload", "NAME", f.workload,
                         [](const std::string& s) {
                           if (s != "aggregate" && s != "degree" && s != "pagerank") {
                             throw UsageError("unknown workload " + util::quoted(s) +
                                              " (expected one of: aggregate, degree, pagerank)");
                           }
                           return s;
                         },
                         "aggregate, degree or pagerank");
  add_value<std::uint64_t>(app, "--length", "N", f.length, parse_count,
                           "values per array (aggregate) or vertices (degree, pagerank); K, M, G suffixes");
  add_value(app, "--bits", "B", f.bits, whole_number<unsigned>(1, 64),
            "bits the values need (aggregate; default 64) or the graph's offsets need");
  add_value(app, "--threads", "T", f.threads, whole_number<unsigned>(1, 4096),
            "worker threads (default: decided, the fewest predicted within 2% of the fastest count)");
  add_value<std::uint64_t>(app, "--edges", "E", f.edges, parse_count, "edges of the graph (degree, pagerank)");
  add_value(app, "--iterations", "I", f.iterations, whole_number<unsigned>(1, measure::max_measured_iterations),
            "PageRank iterations (default 15)");
  add_value<std::string>(app, "--hints", "LIST", f.hints, text_value,
                         "access hints of the decided arrays: read_only=true|false, pattern=sequential|random|indexed,\n"
                         "passes=X, threads=N, e.g. passes=100");
  add_value<std::uint64_t>(app, "--free-memory", "BYTES", f.free_memory,
                           whole_number<std::uint64_t>(1, ~std::uint64_t{0}),
                           "set every node's free memory to BYTES (a memory scenario)");
  add_value<std::string>(app, "--machine", "FILE", f.machine, text_value,
                         "machine profile to decide for (default: this machine's cached calibration)");
  add_value<std::string>(app, "--profile", "FILE", f.profile, text_value,
                         "workload profile (smartarrays.workload/1) instead of the derived one");
  add_flag(app, "--measure", f.measure,
           "run the workload once here in the profiling configuration (interleaved,\n"
           "uncompressed) and decide with the measured profile");
  add_value<std::string>(app, "--write-profile", "FILE", f.write_profile, text_value,
                         "write the workload profile used to FILE");
  add_value<std::string>(app, "--json", "FILE", f.json_path, text_value,
                         "also write the decision as JSON to FILE, '-' for stdout instead of the text");
}

}  // namespace

adapt::MachineProfile calibrate_and_cache(bool quick, bool quiet) {
  adapt::MachineProfile profile = calibrate_with_progress(quick, quiet);
  adapt::write_machine_profile(profile, adapt::cached_profile_path());
  adapt::set_machine_profile(profile);
  return profile;
}

void add_adapt_commands(CommandTree& tree) {
  auto cflags = std::make_shared<CalibrateFlags>();
  CLI::App& cal = tree.add(tree.root(), "calibrate", calibrate_header, [cflags] { return calibrate(*cflags); },
                           calibrate_footer);
  tree.define(cal, [cflags](CLI::App& app) {
    add_flag(app, "--quick", cflags->quick, "smaller buffers and shorter runs (about 5 s)");
    add_value<std::string>(app, "--output", "FILE", cflags->output, text_value,
                           "write the profile to FILE ('-' for stdout) instead of the cache");
    add_flag(app, "--quiet", cflags->quiet, "no progress line on stderr");
  });

  auto aflags = std::make_shared<AdviseFlags>();
  CLI::App& adv = tree.add(tree.root(), "advise", advise_header, [aflags] { return run_advise(*aflags); }, advise_footer);
  tree.define(adv, [aflags](CLI::App& app) { add_advise_flags(app, *aflags); });
  tree.check(adv, [aflags] { check_advise(*aflags); });
  tree.applies_only(adv, {"--workload", "--length", "--bits", "--edges", "--iterations", "--hints"},
                    "without --profile (the profile describes the workload)", [aflags] { return aflags->profile.empty(); });
  tree.applies_only(adv, {"--edges"}, "to --workload degree and pagerank", [aflags] { return aflags->workload != "aggregate"; });
  tree.applies_only(adv, {"--iterations"}, "to --workload pagerank", [aflags] { return aflags->workload == "pagerank"; });
  tree.check(cal, [cflags] { check_output_file("--output", cflags->output, {.creates_parents = true}); });
}

}  // namespace smartarrays::cli
