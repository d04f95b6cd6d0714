// Owns writing stores: Store::write (a new file beside the target, its room reserved, synced, then
// renamed over it under the old file's writer lock) and Store::append (under the file's writer lock:
// its room reserved, new blocks after the committed part, then a new directory, synced, then the
// trailer that commits them, synced, under the commit lock), so a crash at any moment leaves a
// readable version and a failure (a full disk, an interrupt taken before each MiB of a block) leaves
// the committed one; and the check of objects to write or send (names, kinds,
// duplicates, an undirected graph held as one CSR).
#include <fcntl.h>

#include <algorithm>
#include <set>
#include <string>
#include <string_view>

#include "smartarrays/error.hpp"
#include "smartarrays/runtime/interrupt.hpp"
#include "smartarrays/store/store.hpp"
#include "smartarrays/util/text.hpp"
#include "codec/crc32c.hpp"
#include "os/output_file.hpp"
#include "store/format.hpp"
#include "store/state.hpp"
#include "store/store_file.hpp"

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

// An array to write and the block its words go to.
struct PendingBlock {
  const SmartArray* array;
  std::string name;
  std::size_t index;  // in the catalogue's blocks
};

// Where everything an append adds goes: each new block at the next aligned offset after the last,
// then the directory of the catalogue with them (block CRCs still 0), then the trailer; so the bytes
// can be reserved before any is written.
struct Layout {
  detail::Catalogue catalogue;
  std::vector<PendingBlock> blocks;
  std::uint64_t directory_offset = 0;
  std::uint64_t end = 0;  // after the trailer
};

BlockEntry plan_block(const SmartArray& array, const std::string& name, std::uint64_t& end) {
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
  end = block.offset + block.byte_length;
  return block;
}

Layout plan(Catalogue catalogue, const std::vector<Object>& objects, std::uint64_t end) {
  Layout layout;
  for (const Object& object : objects) {
    catalogue.objects.push_back(detail::plan_object(object, [&](const SmartArray& array, const std::string& name) {
      catalogue.blocks.push_back(plan_block(array, name, end));
      layout.blocks.push_back({&array, name, catalogue.blocks.size() - 1});
      return static_cast<std::uint32_t>(catalogue.blocks.size() - 1);
    }));
  }
  layout.directory_offset = align_up(end, 8);
  layout.end = layout.directory_offset + detail::encode_directory(catalogue).size() + detail::trailer_bytes;
  layout.catalogue = std::move(catalogue);
  return layout;
}

// Writes array's words and a zero padding word at block's offset; returns the block's CRC.
std::uint32_t write_block(const os::File& file, const SmartArray& array, const BlockEntry& block) {
  const std::uint64_t stream_bytes = block.byte_length - 8;
  const auto* stream = reinterpret_cast<const std::uint8_t*>(array.replica(0));
  std::uint32_t crc = 0;
  for (std::uint64_t done = 0; done < stream_bytes;) {
    runtime::check_interrupt();
    const std::uint64_t piece = std::min(write_piece_bytes, stream_bytes - done);
    file.write_at(stream + done, piece, block.offset + done);
    crc = codec::crc32c(stream + done, piece, crc);
    done += piece;
  }
  const std::uint64_t padding = 0;
  file.write_at(&padding, sizeof padding, block.offset + stream_bytes);
  return codec::crc32c(&padding, sizeof padding, crc);
}

// Writes layout's blocks and directory and syncs them, then calls commit(trailer bytes, offset):
// the trailer is the commit point.
template <typename Commit>
void write_layout(const os::File& file, Layout& layout, Commit&& commit) {
  for (const PendingBlock& pending : layout.blocks) {
    BlockEntry& block = layout.catalogue.blocks[pending.index];
    block.crc = write_block(file, *pending.array, block);
  }
  const std::vector<std::uint8_t> directory = detail::encode_directory(layout.catalogue);
  file.write_at(directory.data(), directory.size(), layout.directory_offset);
  file.sync();
  commit(detail::encode_trailer(layout.directory_offset, directory), layout.directory_offset + directory.size());
}

}  // namespace

void Store::write(const std::string& path, const std::vector<Object>& objects) {
  detail::check_objects(objects, {});
  os::OutputFile staged(path);
  const auto header = detail::encode_header();
  Layout layout = plan({}, objects, header.size());
  detail::reserve(staged.file(), 0, layout.end);
  staged.file().write_at(header.data(), header.size(), 0);
  write_layout(staged.file(), layout, [&](const auto& trailer, std::uint64_t at) {
    staged.file().write_at(trailer.data(), trailer.size(), at);
    staged.file().sync();
  });
  // The writer lock of the file it replaces: an append to that file under way ends first, and one
  // waiting for it appends to this file instead.
  const detail::HeldFile replaced = detail::HeldFile::for_replace(path);
  staged.commit(os::Durability::synced);
}

void Store::append(const std::string& path, const std::vector<Object>& objects) {
  const detail::HeldFile held = detail::HeldFile::for_append(path);
  const os::File& file = held.file();
  const detail::CommittedFile opened = detail::open_committed(path);
  detail::check_objects(objects, opened.catalogue);
  const std::uint64_t committed = opened.catalogue.committed_bytes;
  Layout layout = plan(opened.catalogue, objects, committed);
  try {
    // The remains of an interrupted append are dropped, so the new blocks follow the committed part.
    if (opened.file_bytes > committed) {
      const os::ByteLock commit = detail::lock_commit(file);
      file.truncate(committed);
    }
    detail::reserve(file, committed, layout.end);
    write_layout(file, layout, [&](const auto& trailer, std::uint64_t at) {
      const os::ByteLock commit = detail::lock_commit(file);
      // An older version's file takes this version's header: the objects appended are written as
      // this version writes them (a graph without an out_degree block), which an older reader must refuse.
      if (opened.version != detail::format_version) {
        const auto header = detail::encode_header();
        file.write_at(header.data(), header.size(), 0);
      }
      file.write_at(trailer.data(), trailer.size(), at);
      file.sync();
    });
  } catch (...) {
    // A failure (a full disk, an interrupt, a refused write) leaves the file as it was committed.
    detail::roll_back(file, committed, layout.end);
    throw;
  }
}

}  // namespace smartarrays::store
