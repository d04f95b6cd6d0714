// Owns the workload profiles: the built-in workloads derived from their definitions, and the
// smartarrays.workload/1 JSON form with its strict reading.
#include "smartarrays/adapt/workload.hpp"

#include <bit>
#include <unordered_map>

#include "adapt/json_fields.hpp"

namespace smartarrays::adapt {

namespace {

using detail::Field;
using detail::Json;

ArrayUse use(std::string name, std::uint64_t length, unsigned value_bits, unsigned natural_bits, bool read_only,
             AccessPattern pattern, double passes) {
  ArrayUse a;
  a.name = std::move(name);
  a.length = length;
  a.value_bits = value_bits;
  a.natural_bits = natural_bits;
  a.hints.read_only = read_only;
  a.hints.pattern = pattern;
  a.hints.passes = passes;
  return a;
}

ArrayUse read_array(const Field& f) {
  ArrayUse a;
  a.name = f.at("name").label(1);
  a.length = f.at("length").whole(0, std::uint64_t{1} << 48);
  a.value_bits = static_cast<unsigned>(f.at("value_bits").whole(1, 64));
  a.natural_bits = static_cast<unsigned>(f.at("natural_bits").whole(1, 64));
  if (a.value_bits > a.natural_bits) f.at("value_bits").fail("exceeds natural_bits " + std::to_string(a.natural_bits));
  a.hints.read_only = f.at("read_only").boolean();
  try {
    a.hints.pattern = parse_access_pattern(f.at("pattern").text());
  } catch (const Error& e) {
    f.at("pattern").fail(e.what());
  }
  a.hints.passes = f.at("passes").number(0, true);
  a.fixed = f.has("fixed") && f.at("fixed").boolean();
  return a;
}

WorkloadProfile read_workload(const Field& root) {
  detail::check_format(root, "smartarrays.workload/1");
  WorkloadProfile w;
  w.workload = root.at("workload").text();
  if (w.workload != "aggregate" && w.workload != "degree" && w.workload != "pagerank" && w.workload != "array") {
    root.at("workload").fail("expected aggregate, degree, pagerank or array, got " + util::quoted(w.workload));
  }
  w.threads = static_cast<unsigned>(root.at("threads").whole(0, 4096));
  if (root.has("pinning")) {
    const Field pinning = root.at("pinning");
    const std::string name = pinning.text();
    if (name != "sparse" && name != "dense") pinning.fail("expected sparse or dense, got " + util::quoted(name));
    w.pinning = runtime::parse_pin_policy(name);
  }
  const Field arrays = root.at("arrays");
  const std::size_t n = arrays.array_size();
  if (n == 0) arrays.fail("expected at least one array");
  std::unordered_map<std::string, std::size_t> named;  // each name's first array
  for (std::size_t i = 0; i < n; ++i) {
    w.arrays.push_back(read_array(arrays[i]));
    const auto [first, added] = named.try_emplace(w.arrays[i].name, i);
    if (!added) {
      arrays[i].at("name").fail(util::quoted(w.arrays[i].name) + " is also the name of arrays[" +
                                std::to_string(first->second) + "]");
    }
  }
  if (root.has("edges")) w.edges = root.at("edges").whole(0, std::uint64_t{1} << 48);
  if (root.has("measured")) {
    const Field m = root.at("measured");
    WorkloadMeasurement r;
    r.placement = m.at("placement").text();
    try {
      parse_placement(r.placement);
    } catch (const Error& e) {
      m.at("placement").fail(e.what());
    }
    r.seconds = m.at("seconds").number(0, true);
    r.bytes_read = m.at("bytes_read").number(0, false);
    r.accesses_per_s = m.at("accesses_per_s").number(0, false);
    r.compute_seconds = m.at("compute_seconds").number(0, false);
    if (m.has("compressed_compute_seconds")) {
      r.compressed_compute_seconds = m.at("compressed_compute_seconds").number(0, false);
    }
    if (m.has("compressed_seconds")) r.compressed_seconds = m.at("compressed_seconds").number(0, false);
    w.measured = r;
  }
  return w;
}

}  // namespace

unsigned bits_for(std::uint64_t value) noexcept { return value == 0 ? 1 : static_cast<unsigned>(std::bit_width(value)); }

WorkloadProfile aggregate_workload(std::uint64_t length, unsigned value_bits, unsigned threads, double passes) {
  WorkloadProfile w;
  w.workload = "aggregate";
  w.threads = threads;
  for (const char* name : {"a1", "a2"}) {
    w.arrays.push_back(use(name, length, value_bits, 64, true, AccessPattern::indexed, passes));
  }
  return w;
}

WorkloadProfile degree_workload(std::uint64_t vertices, std::uint64_t edges, unsigned threads, double passes) {
  WorkloadProfile w;
  w.workload = "degree";
  w.threads = threads;
  w.edges = edges;
  const unsigned offset_bits = bits_for(edges);
  for (const char* name : {"begin", "rbegin"}) {
    w.arrays.push_back(use(name, vertices + 1, offset_bits, 64, true, AccessPattern::indexed, passes));
  }
  ArrayUse degrees = use("degrees", vertices, bits_for(2 * edges), bits_for(2 * edges), false, AccessPattern::indexed, passes);
  degrees.fixed = true;
  w.arrays.push_back(degrees);
  return w;
}

WorkloadProfile pagerank_workload(std::uint64_t vertices, std::uint64_t edges, unsigned threads, unsigned iterations) {
  WorkloadProfile w;
  w.workload = "pagerank";
  w.threads = threads;
  w.edges = edges;
  const double it = iterations;
  const double per_vertex = vertices > 0 ? static_cast<double>(edges) / static_cast<double>(vertices) : 0;
  w.arrays.push_back(use("rbegin", vertices + 1, bits_for(edges), 64, true, AccessPattern::indexed, it));
  w.arrays.push_back(use("redge", edges, bits_for(vertices > 0 ? vertices - 1 : 0), 32, true, AccessPattern::indexed, it));
  w.arrays.push_back(use("begin", vertices + 1, bits_for(edges), 64, true, AccessPattern::indexed, it));
  // Read once per in-edge at the neighbour's index, rewritten every iteration: not read-only.
  w.arrays.push_back(use("contributions", vertices, 64, 64, false, AccessPattern::random, std::max(it * per_vertex, it)));
  ArrayUse ranks = use("ranks", vertices, 64, 64, false, AccessPattern::indexed, it);
  ranks.fixed = true;
  w.arrays.push_back(ranks);
  return w;
}

WorkloadProfile array_workload(std::uint64_t length, unsigned value_bits, const AccessHints& hints) {
  WorkloadProfile w;
  w.workload = "array";
  w.threads = hints.threads;
  ArrayUse a = use("array", length, value_bits, 64, hints.read_only, hints.pattern, hints.passes);
  w.arrays.push_back(a);
  return w;
}

std::string to_json(const WorkloadProfile& w, int indent) {
  Json json;
  json["format"] = "smartarrays.workload/1";
  json["workload"] = w.workload;
  json["threads"] = w.threads;
  json["pinning"] = runtime::to_string(w.pinning);
  if (w.edges > 0) json["edges"] = w.edges;
  json["arrays"] = Json::array();
  for (const ArrayUse& a : w.arrays) {
    json["arrays"].push_back({{"name", a.name},
                              {"length", a.length},
                              {"value_bits", a.value_bits},
                              {"natural_bits", a.natural_bits},
                              {"read_only", a.hints.read_only},
                              {"pattern", to_string(a.hints.pattern)},
                              {"passes", a.hints.passes},
                              {"fixed", a.fixed}});
  }
  if (w.measured) {
    const WorkloadMeasurement& m = *w.measured;
    json["measured"] = {{"placement", m.placement},
                        {"seconds", m.seconds},
                        {"bytes_read", m.bytes_read},
                        {"accesses_per_s", m.accesses_per_s},
                        {"compute_seconds", m.compute_seconds}};
    if (m.compressed_compute_seconds > 0) json["measured"]["compressed_compute_seconds"] = m.compressed_compute_seconds;
    if (m.compressed_seconds > 0) json["measured"]["compressed_seconds"] = m.compressed_seconds;
  }
  return json.dump(indent, ' ', false, Json::error_handler_t::replace);
}

WorkloadProfile parse_workload_profile(std::string_view text, std::string_view source) {
  const Json json = detail::parse_document(text, source);
  return read_workload(Field(json, source));
}

void validate(const WorkloadProfile& profile) { parse_workload_profile(to_json(profile, -1), "workload"); }

WorkloadProfile read_workload_profile(const std::string& path) {
  return parse_workload_profile(detail::read_text_file(path), path);
}

void write_workload_profile(const WorkloadProfile& profile, const std::string& path) {
  detail::write_text_file(path, to_json(profile) + "\n");
}

}  // namespace smartarrays::adapt
