// Owns opening stores: the catalogue of the committed part (store_file.hpp), then per block either a
// read-only array over the mapping's pages (Mode::map) or a checksummed copy built in parallel
// into the requested placement (Mode::load); the lookups by name; opening one graph alone, which
// is the compact graph format's reader that this layer registers with the graph layer; and a graph
// from arrays received in another form (Dask frames, a pickle), checked as a store's graph.
#include "smartarrays/store/store.hpp"

#include <cstring>
#include <memory>
#include <optional>
#include <utility>

#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/codec/kernels.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/os/mapped_file.hpp"
#include "smartarrays/util/names.hpp"
#include "smartarrays/util/text.hpp"
#include "graph/compact_hooks.hpp"
#include "codec/crc32c.hpp"
#include "store/format.hpp"
#include "store/state.hpp"
#include "store/store_file.hpp"

namespace smartarrays::store {

namespace {

using detail::BlockEntry;
using detail::ObjectEntry;

std::string block_name(const ObjectEntry& object, std::size_t slot) {
  std::string name = std::string(detail::object_kind_name(object.kind)) + " " + util::quoted(object.name);
  if (object.kind == detail::object_kind_graph) name += std::string(" array ") + detail::graph_slot_name(slot);
  return name;
}

// A read-only array over the block's bytes in the mapping, which owner keeps alive.
SmartArray map_block(const BlockEntry& block, const std::shared_ptr<const os::MappedFile>& file) {
  const std::uint8_t* words = file->data() + block.offset;
  return SmartArray::over_region(block.length, block.bits,
                                 os::MemoryRegion::borrow(words, block.byte_length, std::shared_ptr<const void>(file)));
}

// A copy of the block in placement, after checking its checksum (so a copy never hides corruption).
SmartArray load_block(const BlockEntry& block, const os::MappedFile& file, const std::string& name,
                      const ArrayOptions& placement, runtime::ThreadPool& pool) {
  const std::uint8_t* bytes = file.data() + block.offset;
  const std::uint32_t crc = codec::crc32c(bytes, block.byte_length);
  if (crc != block.crc) {
    throw_error(ErrorCode::invalid_argument, "store: " + name + ": the block at offset " + std::to_string(block.offset) +
                                                 " has checksum " + std::to_string(crc) + ", the directory says " +
                                                 std::to_string(block.crc) + " (the file is corrupt)");
  }
  ArrayOptions options = placement;
  options.bits = block.bits;
  const auto* words = reinterpret_cast<const std::uint64_t*>(bytes);
  const unsigned bits = block.bits;
  return build::build_array(block.length, options, [&](std::uint64_t lo, std::uint64_t hi, std::uint64_t* out) {
    codec::decode(words, bits, lo, hi - lo, out);
  }, pool);
}

// The array of block slot k of object: a view over the mapping or a copy in placement.
SmartArray open_block(const detail::Catalogue& catalogue, const ObjectEntry& object, std::size_t k, Mode mode,
                      const std::shared_ptr<const os::MappedFile>& file, const ArrayOptions& placement,
                      runtime::ThreadPool& pool) {
  const BlockEntry& block = catalogue.blocks[object.blocks[k]];
  return mode == Mode::map ? map_block(block, file) : load_block(block, *file, block_name(object, k), placement, pool);
}

// A mapped store is the file's pages: a placement asked for with it would be silently ignored.
void check_mapped_placement(Mode mode, const ArrayOptions& placement) {
  if (mode == Mode::map && (placement.placement != Placement::os_default || !placement.nodes.empty() ||
                            placement.huge_pages != HugePages::automatic || placement.auto_placement)) {
    throw_error(ErrorCode::invalid_argument,
                "store: placement, nodes and huge pages apply to load mode; a mapped store stays in the file's pages");
  }
}

constexpr util::NameTable<Mode, 2> mode_names{"store mode", {{{Mode::map, "map"}, {Mode::load, "load"}}}};

// The compact graph format's reader and writer, registered with the graph layer when this layer is linked.
graph::CsrGraph open_compact_graph(const std::string& path, const graph::SourceOptions& options, runtime::ThreadPool& pool) {
  return Store::open_graph(path, options.object, options.mode == graph::OpenMode::map ? Mode::map : Mode::load,
                           options.placement, pool);
}

void write_compact_graph(const graph::CsrGraph& graph, const std::string& path) { Store::write(path, {{"graph", graph}}); }

}  // namespace
}  // namespace smartarrays::store

/// Set when this file's static initialisation registered the compact graph format with the graph
/// layer. Programs linking the static archive name it with -Wl,--undefined so that this file is
/// linked even when they call no store function themselves (src/measure/CMakeLists.txt).
extern "C" const bool smartarrays_store_registered = [] {
  smartarrays::graph::detail::register_compact_hooks(
      {&smartarrays::store::open_compact_graph, &smartarrays::store::write_compact_graph});
  return true;
}();

namespace smartarrays::store {

const char* to_string(Mode mode) noexcept { return mode_names.c_name(mode); }

Mode parse_mode(std::string_view name) { return mode_names.parse(name); }

const char* to_string(ObjectKind kind) noexcept { return detail::object_kind_name(static_cast<std::uint32_t>(kind)); }

Store::Store(std::unique_ptr<State> state) : state_(std::move(state)) {}
Store::Store(Store&&) noexcept = default;
Store& Store::operator=(Store&&) noexcept = default;
Store::~Store() = default;

Store Store::open(const std::string& path, Mode mode, const ArrayOptions& placement, runtime::ThreadPool& pool) {
  check_mapped_placement(mode, placement);
  const detail::CommittedFile opened = detail::open_committed(path);
  const std::shared_ptr<const os::MappedFile>& file = opened.mapping;
  const detail::Catalogue& catalogue = opened.catalogue;
  auto state = std::make_unique<State>();
  state->mode = mode;
  state->uncommitted_bytes = opened.file_bytes - catalogue.committed_bytes;
  graph::GraphLayout layout;
  layout.set_placement(placement);
  for (const ObjectEntry& object : catalogue.objects) {
    State::Entry entry{object.name, static_cast<ObjectKind>(object.kind), std::nullopt, nullptr};
    if (object.kind == detail::object_kind_array) {
      entry.array.emplace(open_block(catalogue, object, 0, mode, file, placement, pool));
    } else {
      entry.graph = std::make_unique<graph::CsrGraph>(detail::open_graph_object(catalogue, object, mode, file, layout, pool));
    }
    state->entries.push_back(std::move(entry));
  }
  return Store(std::move(state));
}

graph::CsrGraph Store::open_graph(const std::string& path, std::string_view name, Mode mode,
                                  const graph::GraphLayout& placement, runtime::ThreadPool& pool) {
  for (const ArrayOptions& array : placement.arrays) check_mapped_placement(mode, array);
  const detail::CommittedFile opened = detail::open_committed(path);
  const detail::Catalogue& catalogue = opened.catalogue;
  const ObjectEntry* found = nullptr;
  std::size_t graphs = 0;
  for (const ObjectEntry& object : catalogue.objects) {
    if (!name.empty() && object.name == name) found = &object;
    if (object.kind != detail::object_kind_graph) continue;
    ++graphs;
    if (name.empty()) found = &object;
  }
  const std::string where = "store " + util::quoted(path, 4096);
  if (!name.empty() && found == nullptr) throw_error(ErrorCode::invalid_argument, where + " has no object named " + util::quoted(name));
  if (!name.empty() && found->kind != detail::object_kind_graph) {
    throw_error(ErrorCode::invalid_argument, where + ": " + util::quoted(name) + " is an array, not a graph");
  }
  if (name.empty() && graphs != 1) {
    throw_error(ErrorCode::invalid_argument, where + " holds " + std::to_string(graphs) +
                                                 " graphs; name the one to open" + (graphs == 0 ? " (it has none)" : ""));
  }
  return detail::open_graph_object(catalogue, *found, mode, opened.mapping, placement, pool);
}

graph::CsrGraph detail::open_graph_object(const Catalogue& catalogue, const ObjectEntry& object, Mode mode,
                                          const std::shared_ptr<const os::MappedFile>& file,
                                          const graph::GraphLayout& placement, runtime::ThreadPool& pool) {
  return graph_of(
      object, [&](std::size_t k) { return open_block(catalogue, object, k, mode, file, placement.arrays[k], pool); },
      "store: " + detail::entry_label(object), pool);
}

graph::CsrGraph detail::graph_of(const ObjectEntry& object, const std::function<SmartArray(std::size_t)>& array_of,
                                 std::string_view where, runtime::ThreadPool& pool) {
  try {
    // An undirected graph's rbegin and redge name begin's and edge's blocks: one CSR, shared.
    // A version 1 file's out_degree block (slot 4) is never opened: out-degrees come from begin.
    graph::CsrGraph graph = object.shares_reverse()
                                ? graph::CsrGraph(array_of(0), array_of(1))
                                : graph::CsrGraph({array_of(0), array_of(1), array_of(2), array_of(3)}, object.directed);
    // Mapped too: a traversal of ids past n would read outside the mapping (one pass over the pages
    // an algorithm reads anyway; before, PageRank on a corrupt mapped file died with SIGSEGV).
    graph.check_bounds(pool);
    return graph;
  } catch (const Error& e) {
    // The code stays the failure's: an interrupt is still Error(cancelled), a refused copy out_of_memory.
    throw_error(e.code(), std::string(where) + ": " + e.what());
  }
}

namespace {

// True when a and b hold the same values in the same width (the slots past the length are zero in both).
bool same_words(const SmartArray& a, const SmartArray& b) {
  return a.length() == b.length() && a.bits() == b.bits() &&
         (a.words_per_replica() == 0 || std::memcmp(a.replica(0), b.replica(0), a.words_per_replica() * 8) == 0);
}

}  // namespace

graph::CsrGraph graph_from_arrays(std::vector<SmartArray> arrays, bool directed, std::string_view what,
                                  runtime::ThreadPool& pool) {
  const std::string where(what);
  if (arrays.size() != 2 && arrays.size() != graph::graph_array_count) {
    throw_error(ErrorCode::invalid_argument, where + ": a graph is four arrays (begin, edge, rbegin, redge), or two (begin, edge) " +
                                                 "for an undirected graph's one CSR; " + std::to_string(arrays.size()) + " came");
  }
  // Array k stands for block k, and as its entry in a store the graph keeps the rule of a graph's
  // slots: two arrays are one CSR (rbegin and redge name begin's and edge's blocks), and so is an
  // undirected graph's rbegin or redge holding begin's or edge's words (a pickle holds each array by value).
  ObjectEntry entry;
  entry.kind = detail::object_kind_graph;
  entry.directed = directed;
  for (std::size_t k = 0; k < graph::graph_array_count; ++k) {
    const bool same = k >= arrays.size() || (!directed && k >= 2 && same_words(arrays[k], arrays[k - 2]));
    entry.blocks[k] = static_cast<std::uint32_t>(same ? k - 2 : k);
  }
  const std::string problem = detail::graph_slots_problem(directed, entry.blocks);
  if (!problem.empty()) throw_error(ErrorCode::invalid_argument, where + ": " + problem);
  return detail::graph_of(entry, [&](std::size_t k) { return std::move(arrays[k]); }, where, pool);
}

StoreInfo describe(const std::string& path) {
  const detail::CommittedFile opened = detail::open_committed(path);
  const detail::Catalogue& catalogue = opened.catalogue;
  StoreInfo info;
  info.version = opened.version;
  info.file_bytes = opened.file_bytes;
  info.directory_offset = catalogue.directory_offset;
  info.directory_bytes = catalogue.committed_bytes - detail::trailer_bytes - catalogue.directory_offset;
  info.uncommitted_bytes = opened.file_bytes - catalogue.committed_bytes;
  for (const ObjectEntry& object : catalogue.objects) {
    ObjectInfo o;
    o.name = object.name;
    o.kind = static_cast<ObjectKind>(object.kind);
    const bool is_graph = object.kind == detail::object_kind_graph;
    for (std::size_t k = 0; k < (is_graph ? detail::graph_blocks : 1); ++k) {
      if (object.blocks[k] == detail::no_block) continue;
      const BlockEntry& b = catalogue.blocks[object.blocks[k]];
      o.blocks.push_back({is_graph ? detail::graph_slot_name(k) : "", b.length, b.bits, b.offset, b.byte_length, b.crc});
    }
    if (is_graph) {
      o.vertices = object.vertices;
      o.edges = object.edges;
      o.directed = object.directed;
      o.variant = static_cast<graph::Variant>(object.variant);
    }
    info.objects.push_back(std::move(o));
  }
  return info;
}

Mode Store::mode() const noexcept { return state_->mode; }

std::vector<std::string> Store::names() const {
  std::vector<std::string> names;
  for (const State::Entry& e : state_->entries) names.push_back(e.name);
  return names;
}

bool Store::contains(std::string_view name) const noexcept {
  for (const State::Entry& e : state_->entries) {
    if (e.name == name) return true;
  }
  return false;
}

ObjectKind Store::kind(std::string_view name) const { return state_->find(name).kind; }

const SmartArray& Store::array(std::string_view name) const {
  const State::Entry& e = state_->find(name);
  if (!e.array) throw_error(ErrorCode::invalid_argument, "store: " + util::quoted(name) + " is a graph, not an array");
  return *e.array;
}

const graph::CsrGraph& Store::graph(std::string_view name) const {
  const State::Entry& e = state_->find(name);
  if (!e.graph) throw_error(ErrorCode::invalid_argument, "store: " + util::quoted(name) + " is an array, not a graph");
  return *e.graph;
}

std::uint64_t Store::uncommitted_bytes() const noexcept { return state_->uncommitted_bytes; }

}  // namespace smartarrays::store
