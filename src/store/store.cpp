// Owns opening stores: the catalogue read from a read-only mapping, then per block either a
// read-only array over the mapping's pages (Mode::map) or a checksummed copy built in parallel
// into the requested placement (Mode::load); and the lookups by name.
#include "smartarrays/store/store.hpp"

#include <memory>
#include <optional>
#include <utility>

#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/codec/kernels.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/os/mapped_file.hpp"
#include "smartarrays/util/text.hpp"
#include "store/crc32c.hpp"
#include "store/format.hpp"

namespace smartarrays::store {

struct Store::State {
  struct Entry {
    std::string name;
    ObjectKind kind;
    std::optional<SmartArray> array;
    std::unique_ptr<graph::CsrGraph> graph;
  };
  Mode mode = Mode::map;
  std::vector<Entry> entries;
  std::uint64_t uncommitted_bytes = 0;

  const Entry& find(std::string_view name) const {
    for (const Entry& e : entries) {
      if (e.name == name) return e;
    }
    throw_error(ErrorCode::invalid_argument, "store: no object named " + util::quoted(name));
  }
};

namespace {

using detail::BlockEntry;
using detail::ObjectEntry;

std::string block_name(const ObjectEntry& object, std::size_t slot) {
  std::string name = std::string(detail::object_kind_name(object.kind)) + " " + util::quoted(object.name);
  if (object.kind == detail::object_kind_graph) {
    name += std::string(" array ") + graph::to_string(static_cast<graph::GraphArray>(slot));
  }
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
  const std::uint32_t crc = detail::crc32c(bytes, block.byte_length);
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

}  // namespace

Store::Store(std::unique_ptr<State> state) : state_(std::move(state)) {}
Store::Store(Store&&) noexcept = default;
Store& Store::operator=(Store&&) noexcept = default;
Store::~Store() = default;

Store Store::open(const std::string& path, Mode mode, const ArrayOptions& placement, runtime::ThreadPool& pool) {
  auto file = std::make_shared<const os::MappedFile>(os::MappedFile::open(path));
  const detail::Catalogue catalogue = detail::read_catalogue(file->data(), file->size());
  auto state = std::make_unique<State>();
  state->mode = mode;
  state->uncommitted_bytes = file->size() - catalogue.committed_bytes;
  for (const ObjectEntry& object : catalogue.objects) {
    auto make = [&](std::size_t k) {
      const BlockEntry& block = catalogue.blocks[object.blocks[k]];
      return mode == Mode::map ? map_block(block, file) : load_block(block, *file, block_name(object, k), placement, pool);
    };
    State::Entry entry{object.name, static_cast<ObjectKind>(object.kind), std::nullopt, nullptr};
    if (object.kind == detail::object_kind_array) {
      entry.array.emplace(make(0));
    } else {
      try {
        if (object.shares_reverse()) {
          entry.graph = std::make_unique<graph::CsrGraph>(make(0), make(1), make(4));
        } else {
          std::array<SmartArray, graph::graph_array_count> arrays{make(0), make(1), make(2), make(3), make(4)};
          entry.graph = std::make_unique<graph::CsrGraph>(std::move(arrays), object.directed);
        }
      } catch (const Error& e) {
        throw_error(ErrorCode::invalid_argument, "store: graph " + util::quoted(object.name) + " (entry at offset " +
                                                     std::to_string(object.entry_offset) + "): " + e.what());
      }
    }
    state->entries.push_back(std::move(entry));
  }
  return Store(std::move(state));
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
