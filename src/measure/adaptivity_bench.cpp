// Owns the evaluation of the adaptive choice: the cases (workload x threads x memory scenario), the
// static configurations and the adaptive one per case, each distinct configuration built once and
// timed at every thread count that needs it, and the summary.
#include "measure/adaptivity_bench.hpp"

#include "measure/workload_profile.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>

#include "smartarrays/adapt/model.hpp"
#include "smartarrays/adapt/workload.hpp"
#include "smartarrays/algo/aggregate.hpp"
#include "smartarrays/algo/degree_centrality.hpp"
#include "smartarrays/algo/pagerank.hpp"
#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/graph/source.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::measure {

namespace {

using adapt::ArrayConfig;

const char* const scenarios[] = {"enough", "no-uncompressed-replication", "no-compressed-replication"};

std::string signature(const std::vector<ArrayConfig>& configs) {
  std::string s;
  for (const ArrayConfig& c : configs) {
    s += std::string(to_string(c.placement)) + ":" + std::to_string(c.node) + ":" + std::to_string(c.bits) +
         (c.huge_pages ? "h" : "") + ";";
  }
  return s;
}

ArrayOptions options_of(const ArrayConfig& c) {
  ArrayOptions o;
  o.placement = c.placement;
  if (c.placement == Placement::single_node) o.node = c.node;
  o.bits = c.bits;
  o.huge_pages = c.huge_page_mode();
  return o;
}

// One workload of the evaluation: its profile, its static configurations and how to time one.
struct Family {
  std::string family;
  std::string name;
  adapt::WorkloadProfile workload;  // threads set per case
  std::vector<std::pair<std::string, std::vector<ArrayConfig>>> statics;
  std::map<std::string, std::vector<std::string>> keys;  // static label -> the family-wide choices it stands for
  // Builds the arrays of configs; returns a runner timing the workload on a pool.
  std::function<std::function<void(runtime::ThreadPool&)>(const std::vector<ArrayConfig>&, runtime::ThreadPool&)> prepare;
};

std::vector<ArrayConfig> uniform(const adapt::WorkloadProfile& w, Placement p, const std::function<unsigned(const adapt::ArrayUse&)>& bits) {
  std::vector<ArrayConfig> configs;
  for (const adapt::ArrayUse& a : w.arrays) {
    ArrayConfig c;
    if (a.fixed) {
      c.placement = Placement::interleaved;
      c.bits = a.natural_bits;
    } else {
      c.placement = p;
      c.bits = bits(a);
    }
    configs.push_back(c);
  }
  return configs;
}

const Placement static_placements[] = {Placement::os_default, Placement::single_node, Placement::interleaved,
                                       Placement::replicated};

Family aggregate_family(const AdaptivityConfig& config, unsigned width) {
  Family f;
  f.family = "aggregate";
  f.name = "aggregate/" + std::to_string(width);
  f.workload = adapt::aggregate_workload(config.aggregate_length, width, 0, 1);
  for (Placement p : static_placements) {
    const std::string name = to_string(p);
    f.statics.push_back({name + "/64", uniform(f.workload, p, [](const adapt::ArrayUse&) { return 64u; })});
    f.keys[name + "/64"] = {name + "/uncompressed"};
    if (width < 64) {
      f.statics.push_back({name + "/" + std::to_string(width),
                           uniform(f.workload, p, [](const adapt::ArrayUse& a) { return a.value_bits; })});
      f.keys[name + "/" + std::to_string(width)] = {name + "/compressed"};
    } else {
      f.keys[name + "/64"].push_back(name + "/compressed");  // the fewest bits are 64
    }
  }
  const std::uint64_t length = config.aggregate_length;
  f.prepare = [length, width](const std::vector<ArrayConfig>& configs, runtime::ThreadPool& builder) {
    auto arrays = std::make_shared<std::vector<SmartArray>>();
    for (std::size_t k = 0; k < 2; ++k) {
      const std::uint64_t seed = 1 + k;
      arrays->push_back(build::build_array(
          length, options_of(configs[k]),
          [width, seed](std::uint64_t lo, std::uint64_t hi, std::uint64_t* out) {
            for (std::uint64_t i = lo; i < hi; ++i) out[i - lo] = algo::aggregation_value(i, width, seed);
          },
          builder));
    }
    return std::function<void(runtime::ThreadPool&)>(
        [arrays](runtime::ThreadPool& pool) { algo::aggregate((*arrays)[0], (*arrays)[1], pool); });
  };
  return f;
}

struct GraphData {
  graph::GraphSource source;
  unsigned offset_bits = 64;
  unsigned id_bits = 32;
  std::uint64_t edges = 0;
};

graph::GraphLayout layout_with(const std::map<graph::GraphArray, ArrayConfig>& chosen) {
  graph::GraphLayout layout = graph::GraphLayout::for_variant(graph::Variant::VE);
  for (const auto& [array, c] : chosen) layout[array] = options_of(c);
  return layout;
}

Family degree_family(const std::shared_ptr<GraphData>& g) {
  Family f;
  f.family = "degree";
  f.name = "degree";
  f.workload = adapt::degree_workload(g->source.vertices(), g->edges, 0, 1);
  for (Placement p : static_placements) {
    const std::string name = to_string(p);
    f.statics.push_back({name + "/U", uniform(f.workload, p, [](const adapt::ArrayUse& a) { return a.natural_bits; })});
    f.statics.push_back({name + "/V", uniform(f.workload, p, [](const adapt::ArrayUse& a) { return a.value_bits; })});
    f.keys[name + "/U"] = {name + "/U"};
    f.keys[name + "/V"] = {name + "/V"};
  }
  f.prepare = [g](const std::vector<ArrayConfig>& configs, runtime::ThreadPool& builder) {
    graph::BuildOptions options;
    options.layout = layout_with({{graph::GraphArray::begin, configs[0]}, {graph::GraphArray::rbegin, configs[1]}});
    auto csr = std::make_shared<graph::CsrGraph>(g->source.build(options, builder));
    auto out = std::make_shared<SmartArray>(SmartArray::allocate(csr->vertices(), options_of(configs[2])));
    return std::function<void(runtime::ThreadPool&)>(
        [csr, out](runtime::ThreadPool& pool) { algo::degree_centrality(csr->begin(), csr->rbegin(), *out, pool); });
  };
  return f;
}

Family pagerank_family(const std::shared_ptr<GraphData>& g, unsigned iterations) {
  Family f;
  f.family = "pagerank";
  f.name = "pagerank";
  f.workload = adapt::pagerank_workload(g->source.vertices(), g->edges, 0, iterations);
  for (Placement p : static_placements) {
    auto variant = [&](const char* name, bool offsets, bool ids) {
      std::vector<ArrayConfig> configs = uniform(f.workload, p, [&](const adapt::ArrayUse& a) {
        if (a.name == "redge") return ids ? a.value_bits : a.natural_bits;
        if (a.name == "contributions") return 64u;
        return offsets ? a.value_bits : a.natural_bits;
      });
      const std::string label = std::string(to_string(p)) + "/" + name;
      f.statics.push_back({label, configs});
      f.keys[label] = {label};
    };
    variant("U", false, false);
    variant("V", true, false);
    variant("V+E", true, true);
  }
  f.prepare = [g, iterations](const std::vector<ArrayConfig>& configs, runtime::ThreadPool& builder) {
    graph::BuildOptions options;
    options.layout = layout_with({{graph::GraphArray::rbegin, configs[0]},
                                  {graph::GraphArray::redge, configs[1]},
                                  {graph::GraphArray::begin, configs[2]}});
    auto csr = std::make_shared<graph::CsrGraph>(g->source.build(options, builder));
    algo::PageRankOptions pr;
    pr.tolerance = 0;
    pr.max_iterations = iterations;
    pr.contributions = options_of(configs[3]);
    pr.contributions.bits = 0;
    pr.ranks = options_of(configs[4]);
    pr.ranks.bits = 0;
    return std::function<void(runtime::ThreadPool&)>([csr, pr](runtime::ThreadPool& pool) {
      algo::pagerank(csr->rbegin(), csr->redge(), csr->begin(), pr, pool);
    });
  };
  return f;
}

// The scenario's free memory per node, or 0 when the scenario does not apply to this workload.
std::uint64_t scenario_free(const AdaptivityConfig& config, const adapt::WorkloadProfile& w, const std::string& scenario) {
  const adapt::MachineProfile& m = config.machine;
  if (scenario == "enough") {
    std::uint64_t least = ~std::uint64_t{0};
    for (const adapt::NodeProfile& n : m.nodes) {
      if (n.memory_bytes > 0) least = std::min(least, n.memory_free_bytes);
    }
    return least;
  }
  const double nodes = static_cast<double>(std::max<std::size_t>(m.memory_node_count(), 1));
  double fixed = 0, natural = 0, compressed = 0;
  for (const adapt::ArrayUse& a : w.arrays) {
    const double page = 4096;
    if (a.fixed) {
      fixed += adapt::array_bytes(a.length, a.natural_bits) / nodes + page;
    } else {
      natural += adapt::array_bytes(a.length, a.natural_bits) + page;
      compressed += adapt::array_bytes(a.length, a.value_bits) + page;
    }
  }
  if (compressed * 1.02 >= natural) return 0;  // nothing to compress: the scenario is "enough" again
  if (scenario == "no-uncompressed-replication") {
    return static_cast<std::uint64_t>(fixed + std::max(compressed, natural / nodes) * 1.02);
  }
  const double free = fixed + std::max(compressed / nodes, natural / nodes) * 1.02;
  if (free >= fixed + compressed) return 0;  // one node: compressed data always fits where the scenario would not
  return static_cast<std::uint64_t>(free);
}

// A configuration without its placements: its widths and huge pages, array by array.
std::string width_class(const std::vector<ArrayConfig>& configs) {
  std::string s;
  for (const ArrayConfig& c : configs) s += (s.empty() ? "" : ",") + std::to_string(c.bits) + (c.huge_pages ? "+hp" : "");
  return s;
}

double median_of(std::vector<double> v) { return summarize(std::move(v)).median; }

// The pooled figures of one memory node (see AdaptivityCase::pooled_best).
void pool_case(AdaptivityCase& c) {
  std::map<std::string, std::vector<double>> runs;
  for (const ConfigTiming& s : c.statics) {
    auto& r = runs[width_class(s.configs)];
    r.insert(r.end(), s.timing.seconds.begin(), s.timing.seconds.end());
  }
  const std::string adaptive = width_class(c.adaptive.configs);
  std::vector<double> adaptive_runs = runs[adaptive];
  bool counted = false;
  for (const ConfigTiming& s : c.statics) counted = counted || width_class(s.configs) == adaptive;
  if (!counted || adaptive_runs.empty()) adaptive_runs = c.adaptive.timing.seconds;
  double best = 0;
  for (const auto& [key, r] : runs) {
    if (r.empty()) continue;
    const double m = median_of(r);
    if (c.pooled_best.empty() || m < best) {
      c.pooled_best = key;
      best = m;
    }
  }
  c.pooled_loss = best > 0 ? median_of(adaptive_runs) / best - 1 : 0;
}

std::string choice_text(const adapt::Decision& d) {
  std::string s;
  for (const adapt::ArrayDecision& a : d.arrays) {
    if (a.fixed) continue;
    s += (s.empty() ? "" : " ") + a.name + "=" + to_string(a.choice.placement) + "/" + std::to_string(a.choice.bits) +
         (a.choice.huge_pages ? "+hp" : "");
  }
  return s;
}

// The key with the lowest mean ratio among those present in every one of cases cases.
std::string best_mean_key(const std::map<std::string, std::pair<double, std::size_t>>& ratio, std::size_t cases) {
  std::string best_key;
  double best_ratio = 0;
  for (const auto& [key, sum] : ratio) {
    if (sum.second != cases) continue;
    const double mean = sum.first / static_cast<double>(sum.second);
    if (best_key.empty() || mean < best_ratio) {
      best_key = key;
      best_ratio = mean;
    }
  }
  return best_key;
}

// The families (workloads) of config: aggregation per width, then degree and PageRank over one
// generated graph (built on builder).
std::vector<Family> make_families(const AdaptivityConfig& config, runtime::ThreadPool& builder,
                                  const std::function<void(const AdaptivityProgress&)>& progress) {
  std::vector<Family> families;
  for (const std::string& name : config.workloads) {
    if (name == "aggregate") {
      for (unsigned w : config.widths) families.push_back(aggregate_family(config, w));
    }
  }
  const bool graphs = std::find(config.workloads.begin(), config.workloads.end(), "degree") != config.workloads.end() ||
                      std::find(config.workloads.begin(), config.workloads.end(), "pagerank") != config.workloads.end();
  if (graphs) {
    AdaptivityProgress p{0, "generating the graph", true};
    if (progress) progress(p);
    graph::UniformOptions u;
    u.vertices = config.vertices;
    u.average_degree = config.average_degree;
    auto g = std::make_shared<GraphData>(GraphData{graph::GraphSource::uniform(u, false, builder)});
    graph::BuildOptions probe;
    const graph::CsrGraph csr = g->source.build(probe, builder);
    g->edges = csr.edges();
    for (const std::string& name : config.workloads) {
      if (name == "degree") families.push_back(degree_family(g));
      if (name == "pagerank") families.push_back(pagerank_family(g, config.iterations));
    }
  }
  return families;
}

// The cases of family f (threads x memory scenarios), each with the adaptive decision; adds every
// configuration to time (the statics' and the decisions') to needed, keyed by signature.
std::vector<AdaptivityCase> decide_cases(const AdaptivityConfig& config, const Family& f, const std::vector<std::size_t>& threads,
                                         std::map<std::string, std::vector<ArrayConfig>>& needed, AdaptivityProgress& state,
                                         const std::function<void(const AdaptivityProgress&)>& progress) {
  std::vector<AdaptivityCase> cases;
  for (std::size_t t : threads) {
    adapt::WorkloadProfile w = f.workload;
    w.threads = static_cast<unsigned>(t);
    if (config.measure_profiles) {
      state.what = f.name + ": measuring its profile on " + std::to_string(t) + " thread(s)";
      state.milestone = true;
      if (progress) progress(state);
      w = measure_workload(w, Trials{1, config.trials.repetitions});
    }
    for (const char* scenario : scenarios) {
      AdaptivityCase c;
      c.family = f.family;
      c.workload = f.name;
      c.threads = t;
      c.scenario = scenario;
      c.profile = w;
      c.free_bytes_per_node = scenario_free(config, w, scenario);
      const adapt::MachineProfile m = adapt::with_free_memory(config.machine, c.free_bytes_per_node);
      c.feasible = c.free_bytes_per_node > 0;
      if (c.feasible) {
        try {
          const adapt::Decision d = adapt::decide(m, w);
          c.adaptive.label = "adaptive";
          for (const adapt::ArrayDecision& a : d.arrays) c.adaptive.configs.push_back(a.choice);
          c.adaptive.predicted_s = d.predicted.seconds;
          c.choice = choice_text(d);
          needed[signature(c.adaptive.configs)] = c.adaptive.configs;
        } catch (const Error& e) {
          if (e.code() != ErrorCode::out_of_memory) throw;
          c.feasible = false;
        }
      }
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

using Pools = std::map<std::size_t, std::unique_ptr<runtime::ThreadPool>>;

// Builds every needed configuration of f, then times them round robin at every thread count.
std::map<std::pair<std::string, std::size_t>, Timing> time_configs(
    const AdaptivityConfig& config, const Family& f, const std::map<std::string, std::vector<ArrayConfig>>& needed,
    const std::vector<std::size_t>& threads, Pools& pools, runtime::ThreadPool& builder, AdaptivityProgress& state,
    const std::function<void(const AdaptivityProgress&)>& progress) {
  // Every needed configuration is built first, then timed round robin (one run of each in turn,
  // the order reversed every other round), so that on a shared machine every configuration sees
  // the same load over the rounds rather than one quiet or busy stretch each.
  std::vector<std::pair<std::string, std::function<void(runtime::ThreadPool&)>>> runs;
  for (const auto& [sig, configs] : needed) {
    state.what = f.name + ": building " + sig;
    state.milestone = false;
    if (progress) progress(state);
    runs.emplace_back(sig, f.prepare(configs, builder));
  }
  std::map<std::pair<std::string, std::size_t>, std::vector<double>> seconds;
  const int last_round = config.trials.warmup + std::max(config.trials.repetitions, config.max_repetitions);
  for (std::size_t t : threads) {
    // The rounds go on past the repetitions while some configuration's timed runs add up to less
    // than min_seconds (and the cap is not reached).
    std::map<std::string, double> timed;
    const auto more = [&](int round) {
      if (round < config.trials.warmup + config.trials.repetitions) return true;
      if (round >= last_round) return false;
      return std::any_of(runs.begin(), runs.end(), [&](const auto& r) { return timed[r.first] < config.min_seconds; });
    };
    for (int round = 0; more(round); ++round) {
      state.what = f.name + ": round " + std::to_string(round + 1) + " on " + std::to_string(t) + " thread(s)";
      state.milestone = round == 0;
      if (progress) progress(state);
      for (std::size_t i = 0; i < runs.size(); ++i) {
        const auto& named = runs[round % 2 == 0 ? i : runs.size() - 1 - i];  // (signature, runner)
        const double s = time_once([&] { named.second(*pools[t]); });
        if (round >= config.trials.warmup) {
          seconds[{named.first, t}].push_back(s);
          timed[named.first] += s;
        }
      }
    }
    state.done += runs.size();
  }
  std::map<std::pair<std::string, std::size_t>, Timing> timings;
  for (auto& [key, values] : seconds) timings[key] = summarize(std::move(values));
  return timings;
}

// Fills c's statics (those that fit its scenario), its adaptive timing, best, loss and spread test;
// false when nothing fits or nothing was timed.
bool evaluate_case(const AdaptivityConfig& config, const Family& f,
                   const std::map<std::pair<std::string, std::size_t>, Timing>& timings, AdaptivityCase& c) {
  const auto timing_of = [&](const std::vector<ArrayConfig>& configs) {
    const auto found = timings.find({signature(configs), c.threads});
    return found == timings.end() ? Timing{} : found->second;
  };
  const adapt::MachineProfile m = adapt::with_free_memory(config.machine, c.free_bytes_per_node);
  const adapt::WorkloadProfile& w = c.profile;
  for (const auto& [label, configs] : f.statics) {
    if (!adapt::fits(m, w, configs)) continue;
    const auto keys = f.keys.find(label);
    ConfigTiming s{label, configs, timing_of(configs), adapt::predict(m, w, configs).seconds,
                   keys == f.keys.end() ? std::vector<std::string>{} : keys->second};
    c.statics.push_back(std::move(s));
  }
  c.adaptive.timing = timing_of(c.adaptive.configs);
  auto stat = [&](const Timing& t) { return config.compare_min ? t.min : t.median; };
  const ConfigTiming* best = nullptr;
  for (const ConfigTiming& s : c.statics) {
    if (best == nullptr || stat(s.timing) < stat(best->timing)) best = &s;
  }
  c.adaptive_s = stat(c.adaptive.timing);
  if (best == nullptr || c.adaptive_s <= 0) return false;
  c.best_label = best->label;
  c.best_s = stat(best->timing);
  c.loss = c.adaptive_s / c.best_s - 1;
  c.best_within_spread = signature(best->configs) == signature(c.adaptive.configs) ||
                         c.adaptive_s <= c.best_s * (1 + best->timing.spread());
  return true;
}

// The summary over the feasible cases without pooling: counts, losses, and the gain over the best
// static configuration per family (the label with the lowest mean ratio to each case's best among
// labels that fit in all of the family's cases). Returns the feasible cases by family.
std::map<std::string, std::vector<AdaptivityCase*>> summarize_cases(const AdaptivityConfig& config, AdaptivityResult& result) {
  AdaptivitySummary& s = result.summary;
  double loss_sum = 0, gain_sum = 0, oracle_sum = 0;
  std::map<std::string, std::vector<AdaptivityCase*>> by_family;
  for (AdaptivityCase& c : result.cases) {
    if (!c.feasible) {
      ++s.skipped;
      continue;
    }
    ++s.cases;
    s.best_within_spread += c.best_within_spread ? 1 : 0;
    s.within_5_percent += c.loss <= 0.05 ? 1 : 0;
    loss_sum += std::max(c.loss, 0.0);
    s.worst_loss = std::max(s.worst_loss, c.loss);
    by_family[c.family].push_back(&c);
  }
  for (const auto& [family, group] : by_family) {
    std::map<std::string, std::pair<double, std::size_t>> ratio;  // key -> (sum of ratios to the best, cases it fits)
    for (const AdaptivityCase* c : group) {
      for (const ConfigTiming& st : c->statics) {
        for (const std::string& key : st.static_keys) {
          ratio[key].first += (config.compare_min ? st.timing.min : st.timing.median) / c->best_s;
          ratio[key].second += 1;
        }
      }
    }
    const std::string best_key = best_mean_key(ratio, group.size());
    s.best_static.push_back({family, best_key});
    for (AdaptivityCase* c : group) {
      for (const ConfigTiming& st : c->statics) {
        if (std::find(st.static_keys.begin(), st.static_keys.end(), best_key) != st.static_keys.end()) {
          c->best_static_s = config.compare_min ? st.timing.min : st.timing.median;
          gain_sum += c->best_static_s / c->adaptive_s - 1;
          oracle_sum += c->best_static_s / c->best_s - 1;
          ++s.static_cases;
        }
      }
    }
  }
  if (s.cases > 0) {
    s.mean_loss = loss_sum / static_cast<double>(s.cases);
    s.gain_over_static = s.static_cases > 0 ? gain_sum / static_cast<double>(s.static_cases) : 0;
    s.static_oracle_gain = s.static_cases > 0 ? oracle_sum / static_cast<double>(s.static_cases) : 0;
  }
  return by_family;
}

// The pooled summary for a one-node machine, where placements are the same memory (see
// AdaptivityCase::pooled_best): static configurations pooled by width class.
void summarize_pooled(const std::map<std::string, std::vector<AdaptivityCase*>>& by_family, AdaptivitySummary& s) {
  double pooled_loss_sum = 0, pooled_gain_sum = 0, pooled_oracle_sum = 0;
  std::size_t pooled_static_cases = 0;
  for (const auto& [family, group] : by_family) {
    // Per case, the pooled median of each static width class ("uncompressed", "compressed", "V", ...).
    std::vector<std::map<std::string, double>> class_times;
    std::map<std::string, std::pair<double, std::size_t>> ratio;
    for (AdaptivityCase* c : group) {
      pool_case(*c);
      pooled_loss_sum += std::max(c->pooled_loss, 0.0);
      s.pooled_worst_loss = std::max(s.pooled_worst_loss, c->pooled_loss);
      s.pooled_within_5_percent += c->pooled_loss <= 0.05 ? 1 : 0;
      std::map<std::string, std::vector<double>> runs;
      for (const ConfigTiming& st : c->statics) {
        for (const std::string& key : st.static_keys) {
          auto& r = runs[key.substr(key.find('/') + 1)];
          r.insert(r.end(), st.timing.seconds.begin(), st.timing.seconds.end());
        }
      }
      std::map<std::string, double> times;
      double best = 0;
      for (auto& [key, r] : runs) {
        times[key] = median_of(r);
        best = best == 0 ? times[key] : std::min(best, times[key]);
      }
      for (const auto& [key, t] : times) {
        ratio[key].first += t / best;
        ratio[key].second += 1;
      }
      class_times.push_back(std::move(times));
    }
    const std::string best_key = best_mean_key(ratio, group.size());
    s.pooled_best_static.push_back({family, best_key});
    for (std::size_t i = 0; i < group.size(); ++i) {
      AdaptivityCase* c = group[i];
      std::vector<double> adaptive_runs;
      for (const ConfigTiming& st : c->statics) {
        if (width_class(st.configs) == width_class(c->adaptive.configs)) {
          adaptive_runs.insert(adaptive_runs.end(), st.timing.seconds.begin(), st.timing.seconds.end());
        }
      }
      if (adaptive_runs.empty()) adaptive_runs = c->adaptive.timing.seconds;
      if (!best_key.empty() && class_times[i].count(best_key) != 0) {
        pooled_gain_sum += class_times[i][best_key] / median_of(adaptive_runs) - 1;
        const auto fastest = std::min_element(class_times[i].begin(), class_times[i].end(),
                                              [](const auto& a, const auto& b) { return a.second < b.second; });
        pooled_oracle_sum += class_times[i][best_key] / fastest->second - 1;
        ++pooled_static_cases;
      }
    }
  }
  if (s.cases > 0) s.pooled_mean_loss = pooled_loss_sum / static_cast<double>(s.cases);
  if (pooled_static_cases > 0) {
    s.pooled_gain_over_static = pooled_gain_sum / static_cast<double>(pooled_static_cases);
    s.pooled_static_oracle_gain = pooled_oracle_sum / static_cast<double>(pooled_static_cases);
  }
}

}  // namespace

AdaptivityResult run_adaptivity_bench(const AdaptivityConfig& config,
                                      const std::function<void(const AdaptivityProgress&)>& progress) {
  adapt::validate(config.machine);
  std::vector<std::size_t> threads = config.threads;
  if (threads.empty()) {
    threads = {1};
    if (runtime::default_thread_count() > 1) threads.push_back(runtime::default_thread_count());
  }
  Pools pools;
  for (std::size_t t : threads) pools[t] = std::make_unique<runtime::ThreadPool>(runtime::PoolOptions{t});
  runtime::ThreadPool& builder = *pools[*std::max_element(threads.begin(), threads.end())];

  AdaptivityResult result;
  AdaptivityProgress state;
  for (const Family& f : make_families(config, builder, progress)) {
    // Decide every case first, so each distinct configuration is built once.
    std::map<std::string, std::vector<ArrayConfig>> needed;  // signature -> configs
    for (const auto& [label, configs] : f.statics) needed[signature(configs)] = configs;
    std::vector<AdaptivityCase> cases = decide_cases(config, f, threads, needed, state, progress);
    const auto timings = time_configs(config, f, needed, threads, pools, builder, state, progress);
    for (AdaptivityCase& c : cases) {
      if (c.feasible) c.feasible = evaluate_case(config, f, timings, c);
      result.cases.push_back(std::move(c));
    }
  }
  const auto by_family = summarize_cases(config, result);
  result.summary.pooled = config.machine.memory_node_count() == 1;
  if (result.summary.pooled) summarize_pooled(by_family, result.summary);
  return result;
}

}  // namespace smartarrays::measure
