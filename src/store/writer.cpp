// Owns writing stores: Store::write (a new file beside the target, synced, then renamed over it)
// and Store::append (new blocks after the committed part, then a new directory, synced, then the
// trailer that commits them, synced), so a crash or an interrupt (taken before each MiB of a block)
// at any moment leaves a readable version; and the check of objects to write or send (names, kinds,
// duplicates, an undirected graph held as one CSR).
#include <fcntl.h>

#include <algorithm>
#include <set>
#include <string>
#include <string_view>

#include "smartarrays/error.hpp"
#include "smartarrays/os/mapped_file.hpp"
#include "smartarrays/runtime/interrupt.hpp"
#include "smartarrays/store/store.hpp"
#include "smartarrays/util/text.hpp"
#include "os/crc32c.hpp"
#include "os/output_file.hpp"
#include "store/format.hpp"
#include "store/state.hpp"

namespace smartarrays::store {
namespace {

using detail::BlockEntry;
using detail::Catalogue;
using detail::ObjectEntry;

std::uint64_t align_up(std::uint64_t offset, std::uint64_t alignment) { return (offset + alignment - 1) / alignment * alignment; }

// A block is written in pieces of this size, and an interrupt (Ctrl-C in Python or the command) is
// taken before each, as the graph file writers take one before each MiB.
constexpr std::uint64_t write_piece_bytes = std::uint64_t{1} << 20;

}  // namespace

ObjectEntry detail::plan_object(const Object& object, const AddBlock& add_block) {
  ObjectEntry entry;
  entry.name = object.name;
  if (object.array != nullptr) {
    entry.kind = detail::object_kind_array;
    entry.blocks[0] = add_block(*object.array, "array " + util::quoted(object.name));
    return entry;
  }
  const graph::CsrGraph& g = *object.graph;
  entry.kind = detail::object_kind_graph;
  entry.directed = g.directed();
  entry.vertices = g.vertices();
  entry.edges = g.edges();
  entry.variant = static_cast<std::uint32_t>(g.variant());
  // Slot 4 (a version 1 file's out_degree) stays no_block: out-degrees are derived from begin.
  for (std::size_t k = 0; k < detail::graph_array_slots; ++k) {
    const auto which = static_cast<graph::GraphArray>(k);
    // A shared rbegin / redge is written once, as begin / edge.
    if (g.shares_reverse() && (which == graph::GraphArray::rbegin || which == graph::GraphArray::redge)) {
      entry.blocks[k] = entry.blocks[k - 2];
      continue;
    }
    entry.blocks[k] = add_block(g.array(which), "graph " + util::quoted(object.name) + " array " + graph::to_string(which));
  }
  return entry;
}

bool is_object_name(std::string_view name) {
  // Names are shown and typed (store list, --name): no control bytes; UTF-8 is kept as it is.
  return !name.empty() && name.size() <= detail::max_name_bytes && std::none_of(name.begin(), name.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) == 0x7f;
  });
}

void detail::check_objects(const std::vector<Object>& objects, const Catalogue& existing) {
  std::set<std::string> names;
  for (const ObjectEntry& o : existing.objects) names.insert(o.name);
  for (const Object& object : objects) {
    if (!is_object_name(object.name)) {
      throw_error(ErrorCode::invalid_argument, "store: object name " + util::quoted(object.name) + " must have 1.." +
                                                   std::to_string(detail::max_name_bytes) +
                                                   " bytes and no control byte (below 0x20, or 0x7f)");
    }
    if ((object.array == nullptr) == (object.graph == nullptr)) {
      throw_error(ErrorCode::invalid_argument, "store: object " + util::quoted(object.name) + " must be an array or a graph");
    }
    if (object.graph != nullptr && !object.graph->directed() && !object.graph->shares_reverse()) {
      throw_error(ErrorCode::invalid_argument, "store: graph " + util::quoted(object.name) +
                                                   " is undirected but its rbegin and redge are arrays of their own; a store "
                                                   "holds an undirected graph as one CSR (rbegin and redge naming begin's and edge's blocks)");
    }
    if (!names.insert(object.name).second) {
      throw_error(ErrorCode::invalid_argument, "store: an object named " + util::quoted(object.name) + " already exists");
    }
  }
}

namespace {

// Writes array's words and a zero padding word at the next aligned offset after end; returns its entry.
BlockEntry write_block(const os::File& file, const SmartArray& array, const std::string& name, std::uint64_t& end) {
  if (array.replicas() == 0) throw_error(ErrorCode::invalid_argument, "store: " + name + " is an emptied (moved-from) array");
  BlockEntry block;
  block.bits = array.bits();
  block.length = array.length();
  if (!detail::block_byte_length(block.length, block.bits, block.byte_length)) {
    throw_error(ErrorCode::invalid_argument, "store: " + name + " is too large for the format");
  }
  const std::uint64_t alignment = block.byte_length >= detail::huge_block_alignment ? detail::huge_block_alignment
                                                                                      : detail::block_alignment;
  block.offset = align_up(end, alignment);
  const std::uint64_t stream_bytes = block.byte_length - 8;
  const auto* stream = reinterpret_cast<const std::uint8_t*>(array.replica(0));
  std::uint32_t crc = 0;
  for (std::uint64_t done = 0; done < stream_bytes;) {
    runtime::check_interrupt();
    const std::uint64_t piece = std::min(write_piece_bytes, stream_bytes - done);
    file.write_at(stream + done, piece, block.offset + done);
    crc = os::crc32c(stream + done, piece, crc);
    done += piece;
  }
  const std::uint64_t padding = 0;
  file.write_at(&padding, sizeof padding, block.offset + stream_bytes);
  block.crc = os::crc32c(&padding, sizeof padding, crc);
  end = block.offset + block.byte_length;
  return block;
}

// Appends objects' blocks from end on, then the directory of catalogue plus them, syncs, writes the
// trailer and syncs again: the trailer is the commit point.
void write_objects(const os::File& file, Catalogue catalogue, const std::vector<Object>& objects, std::uint64_t end) {
  for (const Object& object : objects) {
    catalogue.objects.push_back(detail::plan_object(object, [&](const SmartArray& array, const std::string& name) {
      catalogue.blocks.push_back(write_block(file, array, name, end));
      return static_cast<std::uint32_t>(catalogue.blocks.size() - 1);
    }));
  }
  const std::uint64_t directory_offset = align_up(end, 8);
  const std::vector<std::uint8_t> directory = detail::encode_directory(catalogue);
  file.write_at(directory.data(), directory.size(), directory_offset);
  file.sync();
  const auto trailer = detail::encode_trailer(directory_offset, directory);
  file.write_at(trailer.data(), trailer.size(), directory_offset + directory.size());
  file.sync();
}

}  // namespace

void Store::write(const std::string& path, const std::vector<Object>& objects) {
  detail::check_objects(objects, {});
  os::OutputFile staged(path);
  const auto header = detail::encode_header();
  staged.file().write_at(header.data(), header.size(), 0);
  write_objects(staged.file(), {}, objects, header.size());
  staged.commit(os::Durability::synced);
}

void Store::append(const std::string& path, const std::vector<Object>& objects) {
  const os::File file(path, O_RDWR);
  Catalogue catalogue;
  std::uint64_t size = 0;
  {
    const os::MappedFile mapped = os::MappedFile::open(path);
    catalogue = detail::read_catalogue(mapped.data(), mapped.size());
    size = mapped.size();
  }
  detail::check_objects(objects, catalogue);
  // The remains of an interrupted append are dropped, so the new blocks follow the committed part.
  if (size > catalogue.committed_bytes) file.truncate(catalogue.committed_bytes);
  // An older version's file takes this version's header: the objects appended are written as this
  // version writes them (a graph without an out_degree block), which an older reader must refuse.
  const auto header = detail::encode_header();
  file.write_at(header.data(), header.size(), 0);
  const std::uint64_t end = catalogue.committed_bytes;
  write_objects(file, std::move(catalogue), objects, end);
}

}  // namespace smartarrays::store
