// Owns what an open Store holds (its objects by name, how it was opened), shared by the files that
// make stores: opening a file (store.cpp) and receiving a stream (stream.cpp); and the check of
// objects to write or send (writer.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "smartarrays/error.hpp"
#include "smartarrays/os/mapped_file.hpp"
#include "smartarrays/store/store.hpp"
#include "smartarrays/util/text.hpp"
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

namespace detail {
/// Checks objects before any byte is written: each an array or a graph, named as is_object_name
/// accepts, unique and not in existing. Throws Error(invalid_argument) naming the object.
void check_objects(const std::vector<Object>& objects, const Catalogue& existing);

/// Where a writer puts one array: the block index it assigns (the array named as in messages).
using AddBlock = std::function<std::uint32_t(const SmartArray& array, const std::string& name)>;

/// The directory entry of object, each of its arrays placed by add_block in order; a graph that
/// shares its reverse CSR (undirected) names begin's and edge's blocks for rbegin and redge.
ObjectEntry plan_object(const Object& object, const AddBlock& add_block);

/// The graph of a directory entry, its k-th array made by array_of(k): one shared CSR when the entry
/// shares its reverse (undirected), else four arrays. In every form (a loaded or mapped file, a
/// received stream, arrays from Dask frames or a pickle) it is checked with CsrGraph::check_bounds
/// on pool, so no traversal of it leaves its arrays. Throws Error "<where>: ..." (where: "store:
/// graph 'name' (entry at offset N)", say) with the code of the failure (invalid_argument when the
/// arrays do not form a graph).
graph::CsrGraph graph_of(const ObjectEntry& object, const std::function<SmartArray(std::size_t)>& array_of,
                         std::string_view where, runtime::ThreadPool& pool);

/// The graph of object in the store file mapped by file, whose catalogue is catalogue: mapped, or
/// each array loaded into placement's options for it; checked as graph_of checks ("store: graph ...").
graph::CsrGraph open_graph_object(const Catalogue& catalogue, const ObjectEntry& object, Mode mode,
                                  const std::shared_ptr<const os::MappedFile>& file, const graph::GraphLayout& placement,
                                  runtime::ThreadPool& pool);
}  // namespace detail

}  // namespace smartarrays::store
