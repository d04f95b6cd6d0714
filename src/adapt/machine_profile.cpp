// Owns the machine profile's JSON form (smartarrays.machine/1 with a "model" member), its strict
// reading and validation, and the parser and file helpers the adaptive layer's documents share.
#include "smartarrays/adapt/machine_profile.hpp"

#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <utility>

#include "adapt/json_fields.hpp"
#include "os/open_file.hpp"
#include "os/output_file.hpp"
#include "smartarrays/runtime/interrupt.hpp"
#include "smartarrays/util/byte_size.hpp"

namespace smartarrays::adapt {

namespace detail {

namespace {

// Builds a document from nlohmann's SAX events in time linear in its text. nlohmann's own parser
// with a callback (the depth check) scans an object's parent for discarded values after every
// object, and ordered_json's operator[] looks a key up through every earlier member, each
// quadratic: 400,000 empty objects took 27 s, 100,000 keys 9 s. Here each open object indexes its
// keys in a hash table, and the interrupt check runs every few thousand values.
class DocumentBuilder {
 public:
  DocumentBuilder(Json& root, std::string_view source) : root_(root), source_(source) {}

  bool null() { return add(nullptr); }
  bool boolean(bool v) { return add(v); }
  bool number_integer(Json::number_integer_t v) { return add(v); }
  bool number_unsigned(Json::number_unsigned_t v) { return add(v); }
  bool number_float(Json::number_float_t v, const Json::string_t&) { return add(v); }
  bool string(Json::string_t& v) { return add(std::move(v)); }
  bool binary(Json::binary_t& v) { return add(Json::binary(std::move(v))); }
  bool start_object(std::size_t) { return open(Json::object()); }
  bool start_array(std::size_t) { return open(Json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(Json::string_t& k) {
    Open& object = open_.back();
    member_ = &object.keys.find_or_add(object.value->get_ref<Json::object_t&>(), k).second;
    return true;
  }
  template <class Exception>
  bool parse_error(std::size_t, const std::string&, const Exception& e) {
    throw e;
  }

 private:
  // An object's members by key: open addressing over each member's key hash and place, at most
  // half full, so a key costs one hash and a probe or two however many members came before.
  class KeyIndex {
   public:
    // The member of object named key, appended with a null value when key is new.
    Json::object_t::value_type& find_or_add(Json::object_t& object, Json::string_t& key) {
      auto& members = static_cast<Json::object_t::Container&>(object);
      if (2 * (members.size() + 1) > slots_.size()) grow(std::max<std::size_t>(8, 2 * slots_.size()));
      const std::size_t hash = std::hash<std::string>{}(key);
      for (std::size_t i = hash & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
        Slot& slot = slots_[i];
        if (slot.member == empty) {
          slot = {hash, members.size()};
          members.emplace_back(std::move(key), nullptr);
          return members.back();
        }
        if (slot.hash == hash && members[slot.member].first == key) return members[slot.member];
      }
    }

   private:
    struct Slot {
      std::size_t hash = 0;
      std::size_t member = empty;
    };
    static constexpr std::size_t empty = ~std::size_t{0};

    void grow(std::size_t size) {
      const std::vector<Slot> old = std::exchange(slots_, std::vector<Slot>(size));
      for (const Slot& slot : old) {
        if (slot.member == empty) continue;
        std::size_t i = slot.hash & (size - 1);
        while (slots_[i].member != empty) i = (i + 1) & (size - 1);
        slots_[i] = slot;
      }
    }

    std::vector<Slot> slots_;
  };

  // An array or object being read, with an object's key index.
  struct Open {
    Json* value;
    KeyIndex keys;
  };

  // Places v where the document is: the root, the next element of an array, or the member whose
  // key came last; returns where it went.
  template <class Value>
  Json* place(Value&& v) {
    if ((++values_ & 0xfff) == 0) runtime::check_interrupt();
    if (open_.empty()) {
      root_ = Json(std::forward<Value>(v));
      return &root_;
    }
    Json& parent = *open_.back().value;
    if (parent.is_array()) {
      parent.emplace_back(std::forward<Value>(v));
      return &parent.back();
    }
    *member_ = Json(std::forward<Value>(v));
    return member_;
  }
  template <class Value>
  bool add(Value&& v) {
    place(std::forward<Value>(v));
    return true;
  }
  bool open(Json container) {
    if (open_.size() >= static_cast<std::size_t>(max_document_depth)) {
      throw_error(ErrorCode::invalid_argument, std::string(source_) + ": arrays and objects nested deeper than " +
                                                   std::to_string(max_document_depth) + " levels");
    }
    open_.push_back({place(std::move(container)), {}});
    return true;
  }
  bool close() {
    open_.pop_back();
    return true;
  }

  Json& root_;
  std::string_view source_;
  std::vector<Open> open_;
  Json* member_ = nullptr;
  std::uint64_t values_ = 0;
};

}  // namespace

Json parse_document(std::string_view text, std::string_view source) {
  Json root;
  DocumentBuilder builder(root, source);
  try {
    Json::sax_parse(text.begin(), text.end(), &builder);
  } catch (const Json::exception& e) {
    throw_error(ErrorCode::invalid_argument, std::string(source) + ": not JSON: " + json_failure(e));
  }
  return root;
}

std::string read_text_file(const std::string& path, os::InputKind kind) {
  // Through the one open of every path: a NUL refused, a FIFO (a stream kind's `<(...)`) waited on
  // with Ctrl-C ending the wait as an interruption, the reason named when it cannot be opened.
  const os::InputFile file = os::InputFile::open(path, kind);
  // Reads at most one block past the cap, so an endless stream (/dev/zero, a pipe) ends in an error.
  std::string text;
  char block[64 * 1024];
  while (true) {
    const ssize_t n = ::read(file.descriptor(), block, sizeof block);
    if (n < 0 && errno == EINTR) {
      runtime::check_interrupt(true);
      continue;
    }
    if (n < 0) os::fail_on_path("read", path, errno);
    if (n == 0) return text;
    text.append(block, static_cast<std::size_t>(n));
    if (text.size() > profile_file_limit) {
      throw_error(ErrorCode::invalid_argument, util::quoted(path) + " is larger than " +
                                                   util::format_bytes(profile_file_limit) +
                                                   "; a profile is a few kilobytes of JSON");
    }
  }
}

void write_text_file(const std::string& path, const std::string& text) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  // Staged and renamed over the file: a full disk or a kill mid-write leaves the old file (the
  // cached profile every auto option reads), never a truncated one.
  os::OutputFile out(path);
  out.write(text.data(), text.size());
  out.commit();
}

}  // namespace detail

namespace {

using detail::Field;
using detail::Json;

Json matrix_json(const NodeMatrix& m) {
  Json rows = Json::array();
  for (const auto& row : m) rows.push_back(row);
  return rows;
}

// The range of each rate and time a profile may hold: what a machine can measure, wide enough for
// any real one. Beyond them a value is a slip (a unit, a typo) or made to break the model, whose
// predictions would then come out 0 s for every candidate, hundreds of digits long, or not a number
// (docs/adaptivity.md).
constexpr double min_gbs = 1e-3, max_gbs = 1e5;                    // bandwidths: 1 MB/s .. 100 TB/s
constexpr double min_latency_ns = 1, max_latency_ns = 1e6;         // a load beyond the caches: 1 ns .. 1 ms
constexpr double min_get_ns = 1e-2, max_get_ns = 1e6;              // a cache-resident get: 10 ps .. 1 ms
constexpr double min_values_per_s = 1e3, max_values_per_s = 1e13;  // decoding, one CPU
constexpr double max_memory_parallelism = 1e3;                     // misses in flight per CPU
constexpr double min_latency_ratio = 1e-2, max_latency_ratio = 1e2;  // huge pages against small

NodeMatrix read_matrix(const Field& f, std::size_t n, double min, double max) {
  f.array_size(n);
  NodeMatrix m(n, std::vector<double>(n));
  for (std::size_t i = 0; i < n; ++i) {
    f[i].array_size(n);
    for (std::size_t j = 0; j < n; ++j) m[i][j] = f[i][j].number_in(min, max);
  }
  return m;
}

MachineProfile read_profile(const Field& root) {
  detail::check_format(root, "smartarrays.machine/1");
  MachineProfile p;
  if (root.has("cpu_model")) p.cpu_model = root.at("cpu_model").label(0);
  if (root.has("codec_isa")) p.codec_isa = root.at("codec_isa").text();
  if (root.has("thp_enabled")) p.thp_enabled = root.at("thp_enabled").text();
  const Field model = root.at("model");
  const Field nodes = model.at("nodes");
  const std::size_t n = nodes.array_size();
  if (n == 0) nodes.fail("expected at least one node");
  if (n > 4096) nodes.fail("expected at most 4096 nodes, got " + std::to_string(n));
  for (std::size_t i = 0; i < n; ++i) {
    NodeProfile node;
    node.id = static_cast<int>(nodes[i].at("id").whole(i, i));
    node.cpus = static_cast<unsigned>(nodes[i].at("cpus").whole(0, 4096));
    node.memory_bytes = nodes[i].at("memory_bytes").whole(0, ~std::uint64_t{0});
    node.memory_free_bytes = nodes[i].at("memory_free_bytes").whole(0, node.memory_bytes);
    p.nodes.push_back(node);
  }
  p.read_gbs = read_matrix(model.at("read_gbs"), n, min_gbs, max_gbs);
  p.read_gbs_1t = read_matrix(model.at("read_gbs_1t"), n, min_gbs, max_gbs);
  p.latency_ns = read_matrix(model.at("latency_ns"), n, min_latency_ns, max_latency_ns);
  const Field copy = model.at("copy_gbs");
  copy.array_size(n);
  for (std::size_t i = 0; i < n; ++i) p.copy_gbs.push_back(copy[i].number_in(min_gbs, max_gbs));
  const Field decode = model.at("decode");
  const Field scan = decode.at("scan_values_per_s_per_cpu");
  const Field get = decode.at("get_ns");
  scan.array_size(64);
  get.array_size(64);
  for (std::size_t b = 0; b < 64; ++b) {
    p.decode.scan_values_per_s_per_cpu[b] = scan[b].number_in(min_values_per_s, max_values_per_s);
    p.decode.get_ns[b] = get[b].number_in(min_get_ns, max_get_ns);
  }
  p.decode.plain_scan_values_per_s_per_cpu =
      decode.at("plain_scan_values_per_s_per_cpu").number_in(min_values_per_s, max_values_per_s);
  if (model.has("memory_parallelism")) {
    p.memory_parallelism = model.at("memory_parallelism").number_in(1, max_memory_parallelism);
  }
  if (model.has("llc_bytes")) p.llc_bytes = model.at("llc_bytes").whole(0, ~std::uint64_t{0});
  if (model.has("random_cache_bytes")) p.random_cache_bytes = model.at("random_cache_bytes").whole(0, ~std::uint64_t{0});
  if (model.has("huge_page_latency_ratio")) {
    p.huge_page_latency_ratio = model.at("huge_page_latency_ratio").number_in(min_latency_ratio, max_latency_ratio);
  }
  if (model.has("serial_fraction")) p.serial_fraction = model.at("serial_fraction").number_in(0, 1);
  if (model.has("calibration")) p.calibration = model.at("calibration").text();
  if (model.has("calibration_seconds")) p.calibration_seconds = model.at("calibration_seconds").number(0, false);
  if (model.has("machine_key")) p.machine_key = model.at("machine_key").text();
  bool any_cpu = false, any_memory = false;
  for (const NodeProfile& node : p.nodes) {
    any_cpu = any_cpu || node.cpus > 0;
    any_memory = any_memory || node.memory_bytes > 0;
  }
  if (!any_cpu) nodes.fail("expected a node with cpus > 0");
  if (!any_memory) nodes.fail("expected a node with memory_bytes > 0");
  return p;
}

}  // namespace

std::size_t MachineProfile::memory_node_count() const noexcept {
  std::size_t count = 0;
  for (const NodeProfile& node : nodes) count += node.memory_bytes > 0 ? 1 : 0;
  return count;
}

unsigned MachineProfile::total_cpus() const noexcept {
  unsigned cpus = 0;
  for (const NodeProfile& node : nodes) cpus += node.cpus;
  return cpus;
}

std::string to_json(const MachineProfile& p, int indent) {
  Json json;
  json["format"] = "smartarrays.machine/1";
  json["cpu_model"] = p.cpu_model;
  json["usable_cpus"] = p.total_cpus();
  json["nodes"] = p.nodes.size();
  std::uint64_t total = 0, free = 0;
  for (const NodeProfile& node : p.nodes) {
    total += node.memory_bytes;
    free += node.memory_free_bytes;
  }
  json["memory_total_bytes"] = total;
  json["memory_free_bytes"] = free;
  json["codec_isa"] = p.codec_isa;
  json["thp_enabled"] = p.thp_enabled;
  Json model;
  model["nodes"] = Json::array();
  for (const NodeProfile& node : p.nodes) {
    model["nodes"].push_back({{"id", node.id},
                              {"cpus", node.cpus},
                              {"memory_bytes", node.memory_bytes},
                              {"memory_free_bytes", node.memory_free_bytes}});
  }
  model["read_gbs"] = matrix_json(p.read_gbs);
  model["read_gbs_1t"] = matrix_json(p.read_gbs_1t);
  model["latency_ns"] = matrix_json(p.latency_ns);
  model["copy_gbs"] = p.copy_gbs;
  model["decode"] = {{"scan_values_per_s_per_cpu", p.decode.scan_values_per_s_per_cpu},
                     {"get_ns", p.decode.get_ns},
                     {"plain_scan_values_per_s_per_cpu", p.decode.plain_scan_values_per_s_per_cpu}};
  model["memory_parallelism"] = p.memory_parallelism;
  model["llc_bytes"] = p.llc_bytes;
  model["random_cache_bytes"] = p.random_cache_bytes;
  model["huge_page_latency_ratio"] = p.huge_page_latency_ratio;
  model["serial_fraction"] = p.serial_fraction;
  model["calibration"] = p.calibration;
  model["calibration_seconds"] = p.calibration_seconds;
  model["machine_key"] = p.machine_key;
  json["model"] = std::move(model);
  return json.dump(indent, ' ', false, Json::error_handler_t::replace);
}

MachineProfile parse_machine_profile(std::string_view text, std::string_view source) {
  const Json json = detail::parse_document(text, source);
  return read_profile(Field(json, source));
}

void validate(const MachineProfile& profile) { parse_machine_profile(to_json(profile, -1), "profile"); }

MachineProfile read_machine_profile(const std::string& path) {
  return parse_machine_profile(detail::read_text_file(path), path);
}

void write_machine_profile(const MachineProfile& profile, const std::string& path) {
  detail::write_text_file(path, to_json(profile) + "\n");
}

MachineProfile with_free_memory(MachineProfile profile, std::uint64_t bytes_per_node) {
  for (NodeProfile& node : profile.nodes) {
    if (node.memory_bytes > 0) node.memory_free_bytes = std::min(bytes_per_node, node.memory_bytes);
  }
  return profile;
}

}  // namespace smartarrays::adapt
