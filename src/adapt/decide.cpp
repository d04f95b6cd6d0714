// Owns the decision: the Figure 13 diagrams per array (uncompressed and compressed candidates),
// the prediction that picks between them, huge pages per array, and the explanation.
#include "smartarrays/adapt/decision.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

#include "adapt/json_fields.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/util/byte_size.hpp"

namespace smartarrays::adapt {

namespace {

using detail::Json;

std::string num(double v, int digits = 3) {
  if (!std::isfinite(v)) return v > 0 ? "inf" : "-inf";
  std::ostringstream out;
  out << std::setprecision(digits) << v;
  return out.str();
}

std::string mib(double bytes) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(bytes < 10 * 1048576.0 ? 2 : 0) << bytes / 1048576.0 << " MiB";
  return out.str();
}

std::string config_text(const ArrayConfig& c) {
  std::string s = to_string(c.placement);
  if (c.placement == Placement::single_node) s += "(" + std::to_string(c.node) + ")";
  return s + "/" + std::to_string(c.bits);
}

// Bytes config puts on each node.
std::vector<double> footprint(const MachineProfile& m, const ArrayUse& a, const ArrayConfig& c) {
  const double size = array_bytes(a.length, c.bits) + 8;
  std::vector<double> bytes(m.node_count(), 0.0);
  std::vector<std::size_t> memory;
  for (std::size_t j = 0; j < m.node_count(); ++j) {
    if (m.nodes[j].memory_bytes > 0) memory.push_back(j);
  }
  if (memory.empty()) return bytes;
  switch (c.placement) {
    case Placement::single_node:
      bytes[static_cast<std::size_t>(c.node)] = size;
      break;
    case Placement::interleaved:
    case Placement::partitioned:
      for (std::size_t j : memory) bytes[j] = size / static_cast<double>(memory.size());
      break;
    case Placement::replicated:
      for (std::size_t j : memory) bytes[j] = size;
      break;
    case Placement::os_default:
      bytes[memory.front()] = size;
      break;
  }
  return bytes;
}

class Decider {
 public:
  Decider(const MachineProfile& m, const WorkloadProfile& w) : m_(m), w_(w), fit_(fit_model(m, w)) {
    configs_.resize(w.arrays.size());
    decided_.assign(w.arrays.size(), false);
    for (std::size_t k = 0; k < w.arrays.size(); ++k) {
      const ArrayUse& a = w.arrays[k];
      configs_[k].placement = Placement::interleaved;
      configs_[k].bits = a.fixed ? a.natural_bits : a.value_bits;  // undecided arrays reserve their least
    }
  }

  Decision run() {
    Decision d;
    d.workload = w_;
    d.arrays.resize(w_.arrays.size());
    if (w_.measured) explain_fit();
    // Fixed arrays first (they take their memory whatever happens), then the others by accesses, largest first.
    std::vector<std::size_t> order(w_.arrays.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
      if (w_.arrays[x].fixed != w_.arrays[y].fixed) return w_.arrays[x].fixed;
      return w_.arrays[x].accesses() > w_.arrays[y].accesses();
    });
    for (std::size_t k : order) {
      ArrayDecision& ad = d.arrays[k];
      ad.name = w_.arrays[k].name;
      ad.fixed = w_.arrays[k].fixed;
      if (ad.fixed) {
        rule(k, "uncompressed", "fixed", "interleaved",
             "an output array: interleaved at " + std::to_string(configs_[k].bits) + " bits, as the paper keeps outputs", {});
        ad.choice = configs_[k];
        decided_[k] = true;
        continue;
      }
      ad.uncompressed = uncompressed_diagram(k);
      ad.compressed = compressed_diagram(k);
      ad.choice = step2(k, ad);
      ad.choice.huge_pages = huge_pages(k, ad.choice);
      configs_[k] = ad.choice;
      decided_[k] = true;
    }
    check_jointly(d);
    WorkloadProfile run_as = w_;
    decide_threads(run_as);
    d.threads = run_as.threads;
    d.threads_decided = w_.threads == 0;
    d.pinning = run_as.pinning;
    d.predicted = predict(m_, run_as, configs_, fit_);
    d.explanation = std::move(rules_);
    d.candidates = uniform_candidates(m_, run_as, fit_);
    Candidate adaptive{"adaptive", configs_, d.predicted, true};
    d.candidates.push_back(adaptive);
    return d;
  }

 private:
  // Predictions of the decided arrays within this share of the fastest count count as equally fast.
  static constexpr double thread_tolerance = 0.02;
  // A uniform candidate replaces the arrays' own choices only when predicted faster by this share.
  static constexpr double joint_tolerance = 0.02;
  // Machines of up to this many nodes have the dense-pinning boundary after every node predicted.
  static constexpr std::size_t every_boundary_nodes = 8;

  const ArrayUse& use(std::size_t k) const { return w_.arrays[k]; }

  // The decided arrays' predicted seconds with threads workers pinned as pinning.
  double seconds_with(unsigned threads, runtime::PinPolicy pinning) const {
    WorkloadProfile w = w_;
    w.threads = threads;
    w.pinning = pinning;
    return predict(m_, w, configs_, fit_).seconds;
  }

  // Beyond the paper: the diagrams and step 2 decide one array at a time, each against the others'
  // choices so far. A uniform configuration that fits and that the same model predicts faster than
  // the arrays' choices together (by more than the tolerance) replaces them, keeping each array's own
  // huge-page decision; the explanation says which and by how much either way. Among equally fast
  // uniform candidates an explicit placement wins over the OS default (where the allocating thread
  // runs).
  void check_jointly(Decision& d) {
    const double mine = predict(m_, w_, configs_, fit_).seconds;
    std::optional<Candidate> best;
    for (Candidate& c : uniform_candidates(m_, w_, fit_)) {
      if (!c.fits) continue;
      const bool faster = !best || c.prediction.seconds < best->prediction.seconds * (1 - 1e-9);
      const bool as_fast_and_explicit = best && c.prediction.seconds <= best->prediction.seconds * (1 + 1e-9) &&
                                        is_os_default(*best) && !is_os_default(c);
      if (faster || as_fast_and_explicit) best = std::move(c);
    }
    if (!best) return;
    const double theirs = best->prediction.seconds;
    const bool replace = theirs < mine * (1 - joint_tolerance);
    rules_.push_back({"", "joint", "uniform_candidate", replace ? best->label : "per_array",
                      "the arrays' choices together predicted " + num(mine * 1e3) + " ms; the fastest uniform candidate, " +
                          best->label + ", " + num(theirs * 1e3) + " ms" +
                          (replace ? ", faster by more than " + num(joint_tolerance * 100) + "%: it replaces them"
                                   : ": the arrays' choices stay"),
                      {{"per_array_s", mine}, {"uniform_s", theirs}}});
    if (!replace) return;
    for (std::size_t k = 0; k < configs_.size(); ++k) {
      if (use(k).fixed) continue;
      ArrayConfig c = best->configs[k];
      c.huge_pages = huge_pages(k, c);
      configs_[k] = c;
      d.arrays[k].choice = c;
    }
  }

  // Whether a uniform candidate leaves its arrays where the OS puts them.
  bool is_os_default(const Candidate& c) const {
    for (std::size_t k = 0; k < c.configs.size(); ++k) {
      if (!use(k).fixed) return c.configs[k].placement == Placement::os_default;
    }
    return false;
  }

  // The corrections a measured profile makes to the calibrated model, first in the explanation.
  void explain_fit() {
    std::ostringstream text;
    text << std::setprecision(3) << "measured in " << w_.measured->placement << " at natural widths"
         << (w_.measured->compressed_seconds > 0 ? " and at the fewest bits" : "") << ": compute x" << fit_.compute
         << ", compressed compute x" << fit_.compressed << ", memory x" << fit_.memory << ", overlap "
         << (fit_.serial_fraction >= 0 ? "fitted " : "the machine's ")
         << (fit_.serial_fraction >= 0 ? fit_.serial_fraction : m_.serial_fraction);
    rules_.push_back({"", "profile", "measured_fit", "fitted", text.str(),
                      {{"compute_scale", fit_.compute},
                       {"compressed_compute_scale", fit_.compressed},
                       {"memory_scale", fit_.memory},
                       {"serial_fraction", fit_.serial_fraction >= 0 ? fit_.serial_fraction : m_.serial_fraction}}});
  }

  // Whether every decided array lives on one and the same node (fixed outputs aside).
  bool data_on_one_node() const {
    int node = -1;
    for (std::size_t k = 0; k < configs_.size(); ++k) {
      if (use(k).fixed) continue;
      if (configs_[k].placement != Placement::single_node || (node >= 0 && configs_[k].node != node)) return false;
      node = configs_[k].node;
    }
    return node >= 0;
  }

  // Both pinnings' predictions at a thread count, and the one chosen.
  struct Pinned {
    double sparse = 0, dense = 0;
    runtime::PinPolicy pinning = runtime::PinPolicy::sparse;
    double seconds() const { return pinning == runtime::PinPolicy::dense ? dense : sparse; }
  };

  // The pinning at threads workers: dense when predicted faster by the tolerance, or as fast when
  // all the data lives on one node (its workers then read locally, which the study found faster than
  // the model, blind to the interconnect's coherence traffic, can tell); otherwise sparse.
  Pinned pinning_for(unsigned threads) const {
    Pinned p;
    p.sparse = seconds_with(threads, runtime::PinPolicy::sparse);
    p.dense = seconds_with(threads, runtime::PinPolicy::dense);
    const bool faster = p.dense < p.sparse * (1 - thread_tolerance);
    const bool as_fast_and_local = p.dense <= p.sparse * (1 + thread_tolerance) && data_on_one_node();
    if (faster || as_fast_and_local) p.pinning = runtime::PinPolicy::dense;
    return p;
  }

  // Thread counts worth predicting: powers of two, the boundaries of dense pinning after each of the
  // first every_boundary_nodes nodes and after 16, 32, 64, ... nodes, and all CPUs. Every prediction
  // reads each node's share of each array (nodes squared), so a boundary after every node made the
  // search cubic in the nodes: a 1000-node profile took 27-124 s. Doubling keeps it to
  // O(log nodes) predictions, and a machine of up to 8 nodes keeps every boundary.
  std::vector<unsigned> thread_counts() const {
    const unsigned cpus = std::max(m_.total_cpus(), 1u);
    std::vector<unsigned> counts;
    for (unsigned t = 1; t < cpus; t *= 2) counts.push_back(t);
    unsigned filled = 0;
    for (std::size_t nodes = 1; nodes <= m_.node_count(); ++nodes) {
      filled += m_.nodes[nodes - 1].cpus;
      const bool boundary = nodes <= every_boundary_nodes || std::has_single_bit(nodes);
      if (boundary && filled > 0 && filled < cpus) counts.push_back(filled);
    }
    counts.push_back(cpus);
    std::sort(counts.begin(), counts.end());
    counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
    return counts;
  }

  // Threads and pinning, beyond the paper: a count the workload gives is kept; otherwise the fewest
  // threads predicted within thread_tolerance of the fastest count (a memory-bound loop frees CPUs
  // that add nothing). Pinning is the faster of sparse and dense at that count.
  void decide_threads(WorkloadProfile& run_as) {
    const unsigned cpus = std::max(m_.total_cpus(), 1u);
    Pinned at;  // the predictions at the count run_as takes
    if (w_.threads != 0) {
      run_as.threads = w_.threads;
      at = pinning_for(std::min(w_.threads, cpus));
      rules_.push_back({"", "threads", "threads_given", std::to_string(w_.threads),
                        "the workload names " + std::to_string(w_.threads) + " threads",
                        {{"threads", w_.threads}}});
    } else {
      double fastest = std::numeric_limits<double>::infinity();
      std::vector<std::pair<unsigned, Pinned>> predicted;
      for (unsigned t : thread_counts()) {
        predicted.emplace_back(t, pinning_for(t));
        fastest = std::min(fastest, predicted.back().second.seconds());
      }
      const auto best = std::find_if(predicted.begin(), predicted.end(), [&](const std::pair<unsigned, Pinned>& p) {
        return p.second.seconds() <= fastest * (1 + thread_tolerance);
      });
      const unsigned best_threads = best->first;
      const double all = predicted.back().second.seconds();
      const double chosen = best->second.seconds();
      at = best->second;
      run_as.threads = best_threads;
      rules_.push_back({"", "threads", "fewest_threads_near_fastest", std::to_string(best_threads),
                        "all " + std::to_string(cpus) + " CPUs predicted " + num(all * 1e3) + " ms, the fastest count " +
                            num(fastest * 1e3) + " ms; " + std::to_string(best_threads) + " threads predicted " +
                            num(chosen * 1e3) + " ms, the fewest within " + num(thread_tolerance * 100) + "% (" +
                            std::to_string(predicted.size()) + " counts predicted)",
                        {{"threads", best_threads}, {"cpus", cpus}, {"all_cpus_s", all}, {"fastest_s", fastest},
                         {"chosen_s", chosen}, {"counts_predicted", static_cast<double>(predicted.size())}}});
    }
    const unsigned t = std::min(run_as.threads, cpus);
    run_as.pinning = at.pinning;
    rules_.push_back({"", "threads", "pinning", runtime::to_string(run_as.pinning),
                      "at " + std::to_string(t) + " threads sparse pinning predicted " + num(at.sparse * 1e3) +
                          " ms, dense " + num(at.dense * 1e3) + " ms (dense when faster by " +
                          num(thread_tolerance * 100) + "%, or as fast with all data on one node: " +
                          (data_on_one_node() ? "it is" : "it is not") + ")",
                      {{"threads", t}, {"sparse_s", at.sparse}, {"dense_s", at.dense}}});
  }

  void rule(std::size_t k, const char* step, const char* id, std::string outcome, std::string text,
            std::vector<std::pair<std::string, double>> numbers) {
    rules_.push_back({use(k).name, step, id, std::move(outcome), std::move(text), std::move(numbers)});
  }

  // Free bytes on each node once every other array holds its current configuration.
  std::vector<double> free_for(std::size_t k) const {
    std::vector<double> free(m_.node_count());
    for (std::size_t j = 0; j < m_.node_count(); ++j) free[j] = static_cast<double>(m_.nodes[j].memory_free_bytes);
    for (std::size_t o = 0; o < w_.arrays.size(); ++o) {
      if (o == k) continue;
      const std::vector<double> used = footprint(m_, use(o), configs_[o]);
      for (std::size_t j = 0; j < free.size(); ++j) free[j] -= used[j];
    }
    return free;
  }

  bool fits_as(std::size_t k, const ArrayConfig& c) const {
    const std::vector<double> need = footprint(m_, use(k), c);
    const std::vector<double> free = free_for(k);
    for (std::size_t j = 0; j < need.size(); ++j) {
      if (need[j] > 0 && need[j] > free[j]) return false;
    }
    return true;
  }

  Prediction predict_as(std::size_t k, const ArrayConfig& c) const {
    std::vector<ArrayConfig> configs = configs_;
    configs[k] = c;
    return predict(m_, w_, configs, fit_);
  }

  std::size_t first_memory_node() const {
    for (std::size_t j = 0; j < m_.node_count(); ++j) {
      if (m_.nodes[j].memory_bytes > 0) return j;
    }
    return 0;
  }

  // "All local speedup > all remote slowdown" for the array at bits, from the interleaved profile.
  bool local_beats_remote(std::size_t k, unsigned bits, const char* step) {
    const std::size_t s = first_memory_node();
    ArrayConfig inter{Placement::interleaved, 0, bits, false};
    const Prediction p = predict_as(k, inter);
    const NodeLoad& local = p.nodes[s];
    double interconnect = 0;
    std::size_t remotes = 0;
    for (std::size_t r = 0; r < m_.node_count(); ++r) {
      if (r == s || m_.nodes[r].cpus == 0) continue;
      interconnect += m_.read_gbs[r][s];
      ++remotes;
    }
    interconnect = remotes > 0 ? interconnect / static_cast<double>(remotes) : m_.read_gbs[s][s];
    const double bw_current = std::max(local.bytes_per_s / 1e9, 1e-9);
    const double busy = std::max(local.compute_s, local.memory_s);
    const double ie = local.compute_s > 0 ? formulas::improvement_exec(busy, local.compute_s)
                                          : std::numeric_limits<double>::infinity();
    const double ibw = formulas::improvement_bw(m_.read_gbs[s][s], interconnect, bw_current);
    const double sl = formulas::speedup_local(ie, ibw);
    const double sr = formulas::speedup_remote(interconnect, bw_current);
    const bool pays = formulas::single_node_pays(sl, sr);
    rule(k, step, "local_vs_remote", pays ? "single_node" : "interleaved",
         "all-local speedup vs all-remote slowdown on node " + std::to_string(s) + ": improvement_exec " + num(ie) +
             ", improvement_bw (" + num(m_.read_gbs[s][s]) + " - " + num(interconnect) + ") / " + num(bw_current) +
             " GB/s = " + num(ibw) + ", speedup_local " + num(sl) + ", speedup_remote " + num(sr) + "; mean " +
             num((sl + sr) / 2) + (pays ? " > 1" : " <= 1"),
         {{"improvement_exec", ie},
          {"improvement_bw", ibw},
          {"bw_max_memory_gbs", m_.read_gbs[s][s]},
          {"bw_max_interconnect_gbs", interconnect},
          {"bw_current_memory_gbs", bw_current},
          {"speedup_local", sl},
          {"speedup_remote", sr}});
    return pays;
  }

  // Whether passes amortise replica initialisation at bits (rule "amortise_replication").
  bool amortised(std::size_t k, unsigned bits, const char* step) {
    const ArrayUse& a = use(k);
    const ArrayConfig rep{Placement::replicated, 0, bits, false};
    const Prediction pr = predict_as(k, rep);
    double alternative = std::numeric_limits<double>::infinity();
    for (Placement p : {Placement::interleaved, Placement::single_node}) {
      const ArrayConfig c{p, static_cast<int>(first_memory_node()), bits, false};
      if (fits_as(k, c)) alternative = std::min(alternative, predict_as(k, c).loop_seconds);
    }
    const double saving = std::isfinite(alternative) ? (alternative - pr.loop_seconds) / a.hints.passes : 0;
    const double needed = saving > 0 ? pr.init_seconds / saving : std::numeric_limits<double>::infinity();
    const bool yes = saving > 0 && a.hints.passes >= needed;
    rule(k, step, "amortise_replication", yes ? "yes" : "no",
         "replicas cost " + num(pr.init_seconds * 1e3) + " ms to initialise and save " + num(saving * 1e3) +
             " ms per pass: " + num(needed) + " passes needed, " + num(a.hints.passes) + " expected",
         {{"init_s", pr.init_seconds}, {"saving_per_pass_s", saving}, {"passes_needed", needed}, {"passes", a.hints.passes}});
    return yes;
  }

  bool significant_random(std::size_t k, const char* step) {
    const ArrayUse& a = use(k);
    const bool random = a.hints.pattern == AccessPattern::random;
    const std::size_t s = first_memory_node();
    double remote = m_.latency_ns[s][s];
    for (std::size_t r = 0; r < m_.node_count(); ++r) remote = std::max(remote, m_.latency_ns[r][s]);
    rule(k, step, "random_accesses", random ? "yes" : "no",
         std::string("pattern ") + to_string(a.hints.pattern) + ": " +
             (random ? "replication judged by latency (local " + num(m_.latency_ns[s][s]) + " ns, remote " + num(remote) +
                           " ns)"
                     : "replication judged by bandwidth"),
         {{"latency_local_ns", m_.latency_ns[s][s]}, {"latency_remote_ns", remote}});
    return random;
  }

  // Placement without replication: single node if it fits and pays, else interleaved.
  ArrayConfig place_without_replication(std::size_t k, unsigned bits, const char* step) {
    const int s = static_cast<int>(first_memory_node());
    const ArrayConfig single{Placement::single_node, s, bits, false};
    const ArrayConfig inter{Placement::interleaved, 0, bits, false};
    const bool space = fits_as(k, single);
    rule(k, step, "space_on_one_node", space ? "yes" : "no",
         mib(array_bytes(use(k).length, bits)) + " at " + std::to_string(bits) + " bits " +
             (space ? "fits" : "does not fit") + " in node " + std::to_string(s) + "'s " +
             mib(free_for(k)[static_cast<std::size_t>(s)]) + " free",
         {{"bytes", array_bytes(use(k).length, bits)}, {"free_bytes", free_for(k)[static_cast<std::size_t>(s)]}});
    if (space && local_beats_remote(k, bits, step)) return single;
    return inter;
  }

  std::optional<ArrayConfig> diagram_tail(std::size_t k, unsigned bits, const char* step, const char* space_rule) {
    const ArrayUse& a = use(k);
    if (m_.memory_node_count() <= 1) {
      const ArrayConfig c{Placement::os_default, 0, bits, false};
      const bool fit = fits_as(k, c);
      rule(k, step, "one_memory_node", fit ? "os_default" : "none",
           "one node with memory: every placement reads the same memory, so the array is not bound (os_default); " +
               mib(array_bytes(a.length, bits)) + " " + (fit ? "fits" : "does not fit") + " in " +
               mib(free_for(k)[first_memory_node()]) + " free",
           {{"bytes", array_bytes(a.length, bits)}, {"free_bytes", free_for(k)[first_memory_node()]}});
      if (!fit) return std::nullopt;
      return c;
    }
    const ArrayConfig inter{Placement::interleaved, 0, bits, false};
    if (!fits_as(k, inter)) {
      rule(k, step, "space", "none",
           mib(array_bytes(a.length, bits)) + " at " + std::to_string(bits) +
               " bits does not fit even interleaved",
           {{"bytes", array_bytes(a.length, bits)}});
      return std::nullopt;
    }
    rule(k, step, "read_only", a.hints.read_only ? "yes" : "no",
         a.hints.read_only ? "read-only (hint): replicas allowed" : "written after it is built: no replicas", {});
    if (a.hints.read_only) {
      const ArrayConfig rep{Placement::replicated, 0, bits, false};
      const bool space = fits_as(k, rep);
      double least_free = std::numeric_limits<double>::infinity();
      for (std::size_t j = 0; j < m_.node_count(); ++j) {
        if (m_.nodes[j].memory_bytes > 0) least_free = std::min(least_free, free_for(k)[j]);
      }
      rule(k, step, space_rule, space ? "yes" : "no",
           "a replica of " + mib(array_bytes(a.length, bits)) + " per node " +
               (space ? "fits" : "does not fit") + " in the " + mib(least_free) + " free on the fullest node",
           {{"bytes_per_node", array_bytes(a.length, bits)}, {"least_free_bytes", least_free}});
      if (space) {
        significant_random(k, step);
        if (amortised(k, bits, step)) return rep;
      }
    }
    return place_without_replication(k, bits, step);
  }

  // Figure 13 (a).
  std::optional<ArrayConfig> uncompressed_diagram(std::size_t k) {
    return diagram_tail(k, use(k).natural_bits, "uncompressed", "space_for_replication");
  }

  // Figure 13 (b): compression's own tests come first.
  std::optional<ArrayConfig> compressed_diagram(std::size_t k) {
    const ArrayUse& a = use(k);
    const bool possible = a.value_bits < a.natural_bits;
    rule(k, "compressed", "compression_possible", possible ? "yes" : "no",
         "values need " + std::to_string(a.value_bits) + " bits of the " + std::to_string(a.natural_bits) +
             " stored uncompressed" + (possible ? "" : ": nothing to save"),
         {{"value_bits", a.value_bits}, {"natural_bits", a.natural_bits}});
    if (!possible) return std::nullopt;
    if (a.hints.pattern == AccessPattern::random) {
      const std::size_t s = first_memory_node();
      const double extra = m_.decode.get_ns[a.value_bits - 1] - m_.decode.get_ns[a.natural_bits - 1];
      const double memory = m_.latency_ns[s][s] / m_.memory_parallelism;
      const bool too_costly = extra > memory;
      rule(k, "compressed", "random_decode_cost", too_costly ? "yes" : "no",
           "random accesses: decoding adds " + num(extra) + " ns per get, " + (too_costly ? "more" : "less") +
               " than the " + num(memory) + " ns of memory time per access it could save",
           {{"extra_get_ns", extra}, {"memory_ns_per_access", memory}});
      if (too_costly) return std::nullopt;
    }
    return diagram_tail(k, a.value_bits, "compressed", "space_for_compressed_replication");
  }

  // Step 2: the prediction of both candidates; the faster is chosen.
  ArrayConfig step2(std::size_t k, const ArrayDecision& ad) {
    const ArrayUse& a = use(k);
    if (!ad.uncompressed && !ad.compressed) {
      throw_error(ErrorCode::out_of_memory, "array " + util::quoted(a.name) + " of " + std::to_string(a.length) +
                                                " values fits in no configuration: it needs " +
                                                util::format_bytes(static_cast<std::uint64_t>(array_bytes(a.length, a.value_bits))) +
                                                " even compressed and interleaved");
    }
    if (!ad.compressed || !ad.uncompressed) {
      const ArrayConfig only = ad.compressed ? *ad.compressed : *ad.uncompressed;
      const Prediction p = predict_as(k, only);
      rule(k, "prediction", "only_candidate", config_text(only),
           "the only candidate: " + config_text(only) + ", predicted " + num(p.seconds * 1e3) + " ms",
           {{"predicted_s", p.seconds}});
      return only;
    }
    const ArrayConfig u = *ad.uncompressed;
    const ArrayConfig c = *ad.compressed;
    const Prediction pu = predict_as(k, u);
    const Prediction pc = predict_as(k, c);
    // The paper's quantities, from the uncompressed candidate's predicted run.
    const double threads = w_.threads == 0 ? m_.total_cpus() : w_.threads;
    const double accesses_per_s = pu.loop_seconds > 0 ? a.accesses() / pu.loop_seconds : 0;
    const double cost = (a.hints.pattern == AccessPattern::random
                             ? (m_.decode.get_ns[c.bits - 1] - m_.decode.get_ns[u.bits - 1]) * 1e-9
                             : 1 / m_.decode.scan_values_per_s_per_cpu[c.bits - 1] -
                                   1 / m_.decode.scan_values_per_s_per_cpu[u.bits - 1]);
    const double exec_current = pu.loop_seconds > 0 ? threads * pu.compute_seconds / pu.loop_seconds : 0;
    const double exec_c = formulas::exec_compressed(exec_current, accesses_per_s, cost);
    const double bw_current = pu.loop_seconds > 0 ? pu.bytes / pu.loop_seconds / 1e9 : 0;
    const double r = static_cast<double>(c.bits) / u.bits;
    // Accesses served by caches move no bytes: the saving applies to the share that reaches memory.
    const double memory_share = pu.bytes > 0 ? std::min(1.0, pu.bytes / (a.accesses() * u.bits / 8.0)) : 0.0;
    const double bw_c = std::max(0.0, formulas::bw_compressed(bw_current, accesses_per_s * memory_share, r, u.bits / 8.0 / 1e9));
    const double bw_max_u = pu.memory_seconds > 0 ? pu.bytes / pu.memory_seconds / 1e9 : 0;
    const double bw_max_c = pc.memory_seconds > 0 ? pc.bytes / pc.memory_seconds / 1e9 : bw_max_u;
    const double speedup_u = formulas::node_speedup(threads, exec_current, bw_max_u, bw_current);
    const double speedup_c = formulas::node_speedup(threads, exec_c, bw_max_c, bw_c);
    const bool compress = pc.seconds < pu.seconds;
    const ArrayConfig chosen = compress ? c : u;
    rule(k, "prediction", "fastest", config_text(chosen),
         "uncompressed " + config_text(u) + " predicted " + num(pu.seconds * 1e3) + " ms (exec " + num(exec_current) +
             " CPUs, bw " + num(bw_current) + " GB/s, speedup " + num(speedup_u) + "); compressed " + config_text(c) +
             " predicted " + num(pc.seconds * 1e3) + " ms (exec_compressed " + num(exec_c) + " CPUs, bw_compressed " +
             num(bw_c) + " GB/s, speedup " + num(speedup_c) + ")",
         {{"predicted_uncompressed_s", pu.seconds},
          {"predicted_compressed_s", pc.seconds},
          {"accesses_per_s", accesses_per_s},
          {"cost_s_per_access", cost},
          {"exec_current", exec_current},
          {"exec_compressed", exec_c},
          {"bw_current_gbs", bw_current},
          {"bw_compressed_gbs", bw_c},
          {"compression_ratio", r},
          {"speedup_uncompressed", speedup_u},
          {"speedup_compressed", speedup_c}});
    return chosen;
  }

  bool huge_pages(std::size_t k, const ArrayConfig& c) {
    const ArrayUse& a = use(k);
    const double bytes = array_bytes(a.length, c.bits);
    const double min_bytes = 64.0 * 1048576.0;
    if (m_.thp_enabled == "never") {
      rule(k, "huge pages", "huge_pages", "no", "transparent huge pages are off (never) on this machine", {});
      return false;
    }
    if (a.hints.pattern == AccessPattern::random && static_cast<double>(m_.random_cache()) < bytes) {
      const bool yes = m_.huge_page_latency_ratio < 0.95;
      rule(k, "huge pages", "huge_pages", yes ? "yes" : "no",
           "random accesses beyond the cache: huge pages change load latency by x" + num(m_.huge_page_latency_ratio) +
               (yes ? " (fewer TLB misses)" : " (no gain measured)"),
           {{"huge_page_latency_ratio", m_.huge_page_latency_ratio}, {"bytes", bytes}});
      return yes;
    }
    const bool yes = bytes >= min_bytes;
    rule(k, "huge pages", "huge_pages", yes ? "yes" : "no",
         mib(bytes) + " read in order: " +
             (yes ? std::string("huge pages cut page faults and TLB walks, and rounding wastes < 4%")
                  : std::string("below 64 MiB the rounding to 2 MiB pages is not worth it")),
         {{"bytes", bytes}, {"threshold_bytes", min_bytes}});
    return yes;
  }

  const MachineProfile& m_;
  const WorkloadProfile& w_;
  const ModelFit fit_;  // the measured profile's corrections, fitted once
  std::vector<ArrayConfig> configs_;
  std::vector<bool> decided_;
  std::vector<Rule> rules_;
};

Json config_json(const ArrayUse& a, const ArrayConfig& c) {
  Json j = {{"name", a.name}, {"placement", to_string(c.placement)}, {"bits", c.bits}, {"huge_pages", c.huge_pages}};
  if (c.placement == Placement::single_node) j["node"] = c.node;
  return j;
}

Json prediction_json(const Prediction& p) {
  return {{"predicted_s", p.seconds},
          {"loop_s", p.loop_seconds},
          {"init_s", p.init_seconds},
          {"compute_s", p.compute_seconds},
          {"memory_s", p.memory_seconds},
          {"bytes", p.bytes}};
}

std::size_t main_array(const Decision& d) {
  for (std::size_t k = 0; k < d.arrays.size(); ++k) {
    if (!d.arrays[k].fixed) return k;
  }
  return 0;
}

}  // namespace

bool fits(const MachineProfile& machine, const WorkloadProfile& workload, const std::vector<ArrayConfig>& configs) {
  std::vector<double> used(machine.node_count(), 0.0);
  for (std::size_t k = 0; k < workload.arrays.size(); ++k) {
    const std::vector<double> f = footprint(machine, workload.arrays[k], configs[k]);
    for (std::size_t j = 0; j < used.size(); ++j) used[j] += f[j];
  }
  for (std::size_t j = 0; j < used.size(); ++j) {
    if (used[j] > static_cast<double>(machine.nodes[j].memory_free_bytes)) return false;
  }
  return true;
}

std::vector<Candidate> uniform_candidates(const MachineProfile& machine, const WorkloadProfile& workload,
                                          const ModelFit& fit) {
  std::vector<Candidate> out;
  for (Placement p : {Placement::os_default, Placement::single_node, Placement::interleaved, Placement::replicated}) {
    for (bool compressed : {false, true}) {
      std::vector<ArrayConfig> configs;
      bool any_compressible = false;
      bool any_free = false;
      for (const ArrayUse& a : workload.arrays) {
        ArrayConfig c;
        if (a.fixed) {
          c.bits = a.natural_bits;
        } else {
          any_free = true;
          // Written arrays are never replicated: they stay interleaved in the replicated configuration.
          c.placement = p == Placement::replicated && !a.hints.read_only ? Placement::interleaved : p;
          c.bits = compressed ? a.value_bits : a.natural_bits;
          any_compressible = any_compressible || a.value_bits < a.natural_bits;
        }
        configs.push_back(c);
      }
      if (!any_free || (compressed && !any_compressible)) continue;
      Candidate cand;
      cand.label = std::string(to_string(p)) + (compressed ? "/compressed" : "/uncompressed");
      cand.configs = configs;
      cand.prediction = predict(machine, workload, configs, fit);
      cand.fits = fits(machine, workload, configs);
      out.push_back(std::move(cand));
    }
  }
  return out;
}

std::vector<Candidate> uniform_candidates(const MachineProfile& machine, const WorkloadProfile& workload) {
  return uniform_candidates(machine, workload, fit_model(machine, workload));
}

Decision decide(const MachineProfile& machine, const WorkloadProfile& workload) {
  if (machine.read_gbs.size() != machine.node_count() || machine.latency_ns.size() != machine.node_count() ||
      machine.read_gbs_1t.size() != machine.node_count() || machine.copy_gbs.size() != machine.node_count()) {
    validate(machine);
  }
  if (workload.arrays.empty()) throw_error(ErrorCode::invalid_argument, "workload: no array to decide");
  return Decider(machine, workload).run();
}

const ArrayDecision& Decision::array(const std::string& name) const {
  for (const ArrayDecision& a : arrays) {
    if (a.name == name) return a;
  }
  throw_error(ErrorCode::invalid_argument, "the decision has no array " + util::quoted(name));
}

std::string Decision::text() const {
  std::ostringstream out;
  for (const Rule& r : explanation) {
    out << (r.array.empty() ? "" : r.array + " ") << "[" << r.step << "] " << r.rule << ": " << r.text << " -> "
        << r.outcome << "\n";
  }
  return out.str();
}

std::string Decision::json(int indent) const {
  Json json;
  const std::size_t main = main_array(*this);
  json["choice"] = config_json(workload.arrays[main], arrays[main].choice);
  json["choice"]["predicted_s"] = predicted.seconds;
  json["arrays"] = Json::array();
  for (std::size_t k = 0; k < arrays.size(); ++k) {
    Json a = config_json(workload.arrays[k], arrays[k].choice);
    a["fixed"] = arrays[k].fixed;
    a["uncompressed_candidate"] = arrays[k].uncompressed ? Json(config_json(workload.arrays[k], *arrays[k].uncompressed)) : Json();
    a["compressed_candidate"] = arrays[k].compressed ? Json(config_json(workload.arrays[k], *arrays[k].compressed)) : Json();
    json["arrays"].push_back(std::move(a));
  }
  json["candidates"] = Json::array();
  for (const Candidate& c : candidates) {
    Json j = prediction_json(c.prediction);
    j["label"] = c.label;
    j["placement"] = to_string(c.configs[main].placement);
    j["bits"] = c.configs[main].bits;
    j["fits"] = c.fits;
    j["arrays"] = Json::array();
    for (std::size_t k = 0; k < c.configs.size(); ++k) j["arrays"].push_back(config_json(workload.arrays[k], c.configs[k]));
    json["candidates"].push_back(std::move(j));
  }
  json["explanation"] = Json::array();
  for (const Rule& r : explanation) {
    Json numbers = Json::object();
    for (const auto& [name, value] : r.numbers) numbers[name] = std::isfinite(value) ? Json(value) : Json();
    json["explanation"].push_back({{"array", r.array},
                                   {"step", r.step},
                                   {"rule", r.rule},
                                   {"outcome", r.outcome},
                                   {"text", r.text},
                                   {"numbers", numbers}});
  }
  json["predicted"] = prediction_json(predicted);
  json["threads"] = threads;
  json["threads_decided"] = threads_decided;
  json["pinning"] = runtime::to_string(pinning);
  return json.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace smartarrays::adapt
