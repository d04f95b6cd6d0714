// Owns the W1-W4 and map measurement: the dataset, one kernel per (workload, implementation), the
// checks of every run and across implementations, and the peak memory of each implementation's runs.
#include "measure/workload_bench.hpp"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "measure/peak_memory.hpp"
#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/collections/classic.hpp"
#include "smartarrays/collections/group_by.hpp"
#include "smartarrays/collections/hash_join.hpp"
#include "smartarrays/collections/hash_map.hpp"
#include "smartarrays/collections/sorted_index.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/runtime/interrupt.hpp"
#include "smartarrays/util/mix64.hpp"
#include "smartarrays/util/names.hpp"

namespace smartarrays::measure {

namespace {

constexpr util::NameTable<Workload, 5> workload_names{
    "workload",
    {{{Workload::w1, "w1"}, {Workload::w2, "w2"}, {Workload::w3, "w3"}, {Workload::w4, "w4"}, {Workload::map, "map"}}}};
constexpr util::NameTable<Implementation, 2> implementation_names{
    "implementation", {{{Implementation::classic, "classic"}, {Implementation::smart, "smart"}}}};

bool is_aggregation(Workload w) { return w == Workload::w1 || w == Workload::w2; }

// The two input columns, smart, and as plain 64-bit vectors when the classic side runs (and for
// the map, whose batch lookups take plain probe keys on both sides).
struct Dataset {
  SmartArray a = collections::detail::empty_array();     // W1/W2 keys, W3/W4/map build keys
  SmartArray b = collections::detail::empty_array();     // W1/W2 values, W3/W4/map probe keys
  SmartArray rows = collections::detail::empty_array();  // map: the values, R's row numbers 0..|R|-1
  std::vector<std::uint64_t> plain_a, plain_b;
};

std::vector<std::uint64_t> plain_copy(const SmartArray& array, runtime::ThreadPool& pool) {
  std::vector<std::uint64_t> out(array.length());
  pool.parallel_for(0, out.size(), [&](std::uint64_t lo, std::uint64_t hi) { array.decode(lo, hi - lo, out.data() + lo); });
  return out;
}

Dataset make_dataset(const WorkloadBenchConfig& c, runtime::ThreadPool& pool, bool plain) {
  Dataset d;
  if (is_aggregation(c.workload)) {
    collections::Records r = collections::make_records({c.records, c.groups, c.dataset, c.seed}, c.options, pool);
    d.a = std::move(r.keys);
    d.b = std::move(r.values);
  } else {
    collections::JoinTables t = collections::make_join_tables(join_spec(c), c.options, pool);
    d.a = std::move(t.build);
    d.b = std::move(t.probe);
    if (c.workload == Workload::map) {
      ArrayOptions row_options = c.options;
      row_options.bits = codec::min_bits(d.a.length() == 0 ? 0 : d.a.length() - 1);
      d.rows = build::build_array(d.a.length(), row_options, [](std::uint64_t lo, std::uint64_t hi, std::uint64_t* out) {
        for (std::uint64_t i = lo; i < hi; ++i) out[i - lo] = i;
      }, pool);
    }
  }
  if (plain) {
    d.plain_a = plain_copy(d.a, pool);
    d.plain_b = plain_copy(d.b, pool);
  }
  return d;
}

// What one run produced, reduced outside the timed span.
struct Outcome {
  collections::classic::Groups groups;  // W1/W2
  std::uint64_t count = 0;              // W3/W4: matches; map: probe keys found
  std::uint64_t value_sum = 0;          // map: wrapping sum of the values found
};

// The map's missing value: no row number reaches it.
constexpr std::uint64_t missing_value = ~std::uint64_t{0};

Outcome map_outcome(const std::vector<std::uint64_t>& values) {
  Outcome o;
  for (std::uint64_t v : values) {
    o.count += v != missing_value ? 1 : 0;
    o.value_sum += v != missing_value ? v : 0;
  }
  return o;
}

std::uint64_t checksum(const collections::classic::Groups& groups) {
  std::uint64_t sum = 0;
  for (const auto& [key, value] : groups) sum += util::mix64(key ^ util::mix64(value));
  return sum;
}

collections::classic::Groups as_groups(const collections::GroupResult& r) {
  std::vector<std::uint64_t> keys(r.keys.length()), values(r.values.length());
  if (!keys.empty()) {
    r.keys.decode(0, keys.size(), keys.data());
    r.values.decode(0, values.size(), values.data());
  }
  collections::classic::Groups groups(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) groups[i] = {keys[i], values[i]};
  return groups;
}

// W1's check against a sort: the lower median of three sampled keys' values, from the columns.
std::string check_medians(const Dataset& d, const collections::classic::Groups& groups) {
  const std::uint64_t n = d.a.length();
  if (n == 0) return groups.empty() ? "" : "groups from no records";
  for (std::uint64_t row : {std::uint64_t{0}, n / 2, n - 1}) {
    const std::uint64_t key = d.a.get(row);
    std::vector<std::uint64_t> values;
    for (std::uint64_t i = 0; i < n; ++i) {
      if (d.a.get_unchecked(i) == key) values.push_back(d.b.get_unchecked(i));
    }
    std::sort(values.begin(), values.end());
    const auto found = std::lower_bound(groups.begin(), groups.end(), std::make_pair(key, std::uint64_t{0}));
    if (found == groups.end() || found->first != key) return "key " + std::to_string(key) + " missing";
    if (found->second != values[(values.size() - 1) / 2]) {
      return "median of key " + std::to_string(key) + " is " + std::to_string(found->second) + ", a sort gives " +
             std::to_string(values[(values.size() - 1) / 2]);
    }
  }
  return "";
}

}  // namespace

const char* to_string(Workload workload) noexcept { return workload_names.c_name(workload); }
Workload parse_workload(std::string_view name) { return workload_names.parse(name); }
const char* to_string(Implementation implementation) noexcept { return implementation_names.c_name(implementation); }
Implementation parse_implementation(std::string_view name) { return implementation_names.parse(name); }

void validate(const WorkloadBenchConfig& c) {
  if (c.implementations.empty()) throw_error(ErrorCode::invalid_argument, "implementations: none chosen");
  if (c.options.bits != 0) throw_error(ErrorCode::invalid_argument, "options: bits must be 0 (each column gets its fewest)");
  if (c.trials.repetitions < 1 || c.trials.warmup < 0) throw_error(ErrorCode::invalid_argument, "trials: at least 1 timed run");
  if (is_aggregation(c.workload) && (c.groups == 0 || c.groups > std::max<std::uint64_t>(c.records, 1))) {
    throw_error(ErrorCode::invalid_argument, "groups: must be 1..records (" + std::to_string(c.records) + "), got " +
                                                 std::to_string(c.groups));
  }
  if (!is_aggregation(c.workload) && (c.join_ratio == 0 || c.records < c.join_ratio)) {
    throw_error(ErrorCode::invalid_argument, "records: a join needs at least join_ratio (" + std::to_string(c.join_ratio) +
                                                 ") probe rows, got " + std::to_string(c.records));
  }
}

collections::JoinSpec join_spec(const WorkloadBenchConfig& c) {
  return {c.records / std::max<std::uint64_t>(c.join_ratio, 1), std::max<std::uint64_t>(c.join_ratio, 1), c.seed};
}

namespace {

using Kernel = std::function<Outcome()>;

// The structures W4 and map build before their timed lookups.
struct Prepared {
  std::optional<collections::SortedIndex> index;
  std::optional<collections::classic::TreeIndex> tree;
  std::optional<collections::HashMap> map;
  std::optional<std::unordered_map<std::uint64_t, std::uint64_t>> plain_map;
  /// The smart structure's own report, else (a classic one) what the build grew resident.
  std::uint64_t bytes(std::uint64_t grown) const {
    if (index) return index->memory_bytes();
    if (map) return map->memory_bytes();
    return grown;
  }
};

// The timed kernel of (workload, implementation); W4's index and the map are built into p first.
Kernel make_kernel(const WorkloadBenchConfig& c, Implementation impl, const Dataset& d, runtime::ThreadPool& pool, Prepared& p) {
  namespace classic = collections::classic;
  const bool smart = impl == Implementation::smart;
  switch (c.workload) {
    case Workload::w1:
    case Workload::w2: {
      const collections::Aggregate aggregate = c.workload == Workload::w1 ? collections::Aggregate::median : collections::Aggregate::count;
      if (smart) return [&d, &pool, &c, aggregate] { return Outcome{as_groups(collections::GroupBy(d.a, d.b, pool, c.options).run(aggregate)), 0, 0}; };
      if (c.workload == Workload::w1) return [&d, &pool] { return Outcome{classic::median_by_key(d.plain_a, d.plain_b, pool), 0, 0}; };
      return [&d, &pool] { return Outcome{classic::count_by_key(d.plain_a, pool), 0, 0}; };
    }
    case Workload::w3:
      if (smart) return [&d, &pool, &c] { return Outcome{{}, collections::hash_join_count(d.a, d.b, c.options, pool), 0}; };
      return [&d, &pool] { return Outcome{{}, classic::hash_join_count(d.plain_a, d.plain_b, pool), 0}; };
    case Workload::w4:
      if (smart) {
        p.index.emplace(collections::SortedIndex::build(d.a, c.options, pool));
        return [&d, &pool, &p] { return Outcome{{}, p.index->count_matches(d.b, pool), 0}; };
      }
      p.tree.emplace(d.plain_a);
      return [&d, &pool, &p] { return Outcome{{}, classic::index_join_count(*p.tree, d.plain_b, pool), 0}; };
    case Workload::map:
      if (smart) {
        p.map.emplace(collections::HashMap::build(d.a, d.rows, c.options, pool));
        return [&d, &pool, &p] {
          std::vector<std::uint64_t> values(d.plain_b.size());
          p.map->get(d.plain_b, values, missing_value, {}, pool);
          return map_outcome(values);
        };
      }
      // The ordinary way: one thread fills a reserved std::unordered_map (a key's last row wins, as
      // in HashMap), the workers look up in it.
      p.plain_map.emplace();
      p.plain_map->reserve(d.plain_a.size());
      for (std::uint64_t i = 0; i < d.plain_a.size(); ++i) {
        if (i % (std::uint64_t{1} << 20) == 0) runtime::check_interrupt();  // a serial step: Ctrl-C stops it
        (*p.plain_map)[d.plain_a[i]] = i;
      }
      return [&d, &pool, &p] {
        std::vector<std::uint64_t> values(d.plain_b.size());
        pool.parallel_for(0, values.size(), [&](std::uint64_t lo, std::uint64_t hi) {
          for (std::uint64_t i = lo; i < hi; ++i) {
            const auto found = p.plain_map->find(d.plain_b[i]);
            values[i] = found == p.plain_map->end() ? missing_value : found->second;
          }
        });
        return map_outcome(values);
      };
  }
  throw_error(ErrorCode::invalid_argument, "workload: invalid");
}

WorkloadBenchResult run_one(const WorkloadBenchConfig& c, Implementation impl, const Dataset& d, runtime::ThreadPool& pool,
                            const std::function<void(const WorkloadBenchProgress&)>& progress) {
  WorkloadBenchResult r;
  r.implementation = impl;
  r.data_bytes = impl == Implementation::smart ? d.a.memory_bytes() + d.b.memory_bytes() : 8 * (d.a.length() + d.b.length());
  const int runs = c.trials.warmup + c.trials.repetitions;
  auto report = [&](const char* phase, int run) {
    if (progress) progress({phase, impl, run, runs});
  };
  Prepared prepared;
  Kernel kernel;
  const bool prebuilt = c.workload == Workload::w4 || c.workload == Workload::map;
  {
    report("preparing", 0);
    PeakMemory memory;
    r.prepare_seconds = time_once([&] { kernel = make_kernel(c, impl, d, pool, prepared); });
    const std::uint64_t grown = memory.stop();
    if (prebuilt) r.structure_bytes = prepared.bytes(grown);
    if (!prebuilt) r.prepare_seconds = 0;
  }
  int run = 0;
  PeakMemory memory;
  r.timing = run_trials(
      c.trials,
      [&] {
        report("running", run);
        return kernel();
      },
      [&](const Outcome& o) -> std::string {
        ++run;
        r.groups = o.groups.size();
        r.checksum = is_aggregation(c.workload) ? checksum(o.groups) : c.workload == Workload::map ? o.value_sum : o.count;
        if (!is_aggregation(c.workload)) {
          const std::uint64_t expected = d.b.length();
          const char* what = c.workload == Workload::map ? "keys found " : "join count ";
          return o.count == expected ? "" : what + std::to_string(o.count) + ", expected " + std::to_string(expected);
        }
        std::uint64_t rows = 0;
        for (const auto& g : o.groups) rows += g.second;
        if (c.workload == Workload::w2) return rows == d.a.length() ? "" : "counts add up to " + std::to_string(rows);
        if (run > 1) return "";
        report("checking", run);
        return check_medians(d, o.groups);
      });
  r.peak_extra_bytes = memory.stop();
  return r;
}

}  // namespace

std::vector<WorkloadBenchResult> run_workload_bench(const WorkloadBenchConfig& c,
                                                    const std::function<void(const WorkloadBenchProgress&)>& progress) {
  validate(c);
  runtime::PoolOptions pool_options;
  pool_options.threads = c.threads;
  runtime::ThreadPool pool(pool_options);
  if (progress) progress({"generating", c.implementations.front(), 0, 0});
  const bool plain = c.workload == Workload::map ||
                     std::find(c.implementations.begin(), c.implementations.end(), Implementation::classic) != c.implementations.end();
  const Dataset d = make_dataset(c, pool, plain);
  std::vector<WorkloadBenchResult> results;
  for (Implementation impl : c.implementations) {
    results.push_back(run_one(c, impl, d, pool, progress));
    if (results.front().checksum != results.back().checksum || results.front().groups != results.back().groups) {
      throw_error(ErrorCode::internal, std::string("implementations disagree: ") + to_string(results.front().implementation) +
                                           " and " + to_string(impl) + " give different results");
    }
  }
  if (progress) progress({"done", c.implementations.back(), 0, 0});
  return results;
}

std::vector<std::string> write_workload_dataset(const WorkloadBenchConfig& c, const std::string& dir) {
  validate(c);
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) throw_error(ErrorCode::os_error, "cannot create directory " + util::quoted(dir) + ": " + error.message());
  runtime::PoolOptions pool_options;
  pool_options.threads = c.threads;
  runtime::ThreadPool pool(pool_options);
  const Dataset d = make_dataset(c, pool, false);
  const bool aggregation = is_aggregation(c.workload);
  const std::vector<std::string> paths = {dir + (aggregation ? "/keys.npy" : "/build.npy"),
                                          dir + (aggregation ? "/values.npy" : "/probe.npy")};
  collections::write_npy(d.a, paths[0]);
  collections::write_npy(d.b, paths[1]);
  return paths;
}

}  // namespace smartarrays::measure
