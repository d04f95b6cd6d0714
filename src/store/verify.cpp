// Owns verifying stores: every block's checksum and zero padding (the padding word and the unused
// values of the last chunk), and on request the CSR invariants of every graph.
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "smartarrays/codec/kernels.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/os/mapped_file.hpp"
#include "smartarrays/runtime/thread_pool.hpp"
#include "smartarrays/store/store.hpp"
#include "smartarrays/util/text.hpp"
#include "codec/crc32c.hpp"
#include "store/format.hpp"
#include "store/state.hpp"
#include "store/store_file.hpp"

namespace smartarrays::store {
namespace {

using detail::BlockEntry;

// The problem with block's bytes, or "" when its checksum and padding are right.
std::string check_block(const BlockEntry& block, const std::uint8_t* bytes) {
  const std::uint32_t crc = codec::crc32c(bytes, block.byte_length);
  if (crc != block.crc) {
    return "checksum " + std::to_string(crc) + " of the block at offset " + std::to_string(block.offset) +
           " does not match the directory's " + std::to_string(block.crc);
  }
  const std::uint64_t padding_offset = block.byte_length - 8;
  std::uint64_t padding = 0;
  std::memcpy(&padding, bytes + padding_offset, sizeof padding);
  if (padding != 0) return "padding word at offset " + std::to_string(block.offset + padding_offset) + " is not zero";
  const std::uint64_t used = block.length % 64;
  if (used != 0) {
    std::uint64_t values[64];
    const std::uint64_t last_chunk = block.length / 64;
    codec::kernels(block.bits).unpack(reinterpret_cast<const std::uint64_t*>(bytes), last_chunk, 1, values);
    for (std::uint64_t k = used; k < 64; ++k) {
      if (values[k] != 0) {
        return "value slot " + std::to_string(last_chunk * 64 + k) + " past the length " + std::to_string(block.length) +
               " in the block at offset " + std::to_string(block.offset) + " is not zero";
      }
    }
  }
  return {};
}

}  // namespace

VerifyReport verify(const std::string& path, bool deep) {
  VerifyReport report;
  // Shared: the deep check's mapped graphs view this mapping.
  const detail::CommittedFile committed = detail::open_committed(path);
  const std::shared_ptr<const os::MappedFile>& file = committed.mapping;
  const detail::Catalogue& catalogue = committed.catalogue;
  report.objects = catalogue.objects.size();
  report.uncommitted_bytes = committed.file_bytes - catalogue.committed_bytes;
  bool blocks_ok = true;
  for (const detail::ObjectEntry& object : catalogue.objects) {
    const std::size_t slots = object.kind == detail::object_kind_array ? 1 : detail::graph_blocks;
    const std::string name = std::string(detail::object_kind_name(object.kind)) + " " + util::quoted(object.name);
    for (std::size_t k = 0; k < slots; ++k) {
      if (object.shares_reverse() && (k == 2 || k == 3)) continue;
      if (object.blocks[k] == detail::no_block) continue;
      const BlockEntry& block = catalogue.blocks[object.blocks[k]];
      ++report.blocks;
      report.bytes_checked += block.byte_length;
      const std::string problem = check_block(block, file->data() + block.offset);
      if (!problem.empty()) {
        blocks_ok = false;
        report.problems.push_back(name + (slots > 1 ? std::string(" array ") + detail::graph_slot_name(k) : "") +
                                  ": " + problem);
      }
    }
  }
  if (!deep || !blocks_ok) return report;
  for (const detail::ObjectEntry& object : catalogue.objects) {
    if (object.kind != detail::object_kind_graph) continue;
    std::optional<graph::CsrGraph> opened;
    try {
      // Opening checks the bounds (Store::open would stop at the first graph that fails them).
      opened.emplace(detail::open_graph_object(catalogue, object, Mode::map, file, {}, runtime::default_pool()));
    } catch (const Error& e) {
      if (e.code() == ErrorCode::cancelled) throw;
      report.problems.push_back(e.what());
      continue;
    }
    const graph::CsrGraph& g = *opened;
    try {
      g.validate();
      if (static_cast<std::uint32_t>(g.variant()) != object.variant) {
        report.problems.push_back("graph " + util::quoted(object.name) + ": the directory says variant " +
                                  std::to_string(object.variant) + ", the arrays' widths make it " +
                                  graph::to_string(g.variant()));
      }
    } catch (const Error& e) {
      if (e.code() == ErrorCode::cancelled) throw;
      report.problems.push_back("graph " + util::quoted(object.name) + ": " + e.what());
    }
  }
  return report;
}

}  // namespace smartarrays::store
