// Owns the one way a GAP .sg file becomes graphs (GraphSource's, so load_graph's, the command's, the
// C ABI's and the bindings'): open_sg reads the header and the offsets, holding nothing else; each
// build reads the ids straight into the graph's arrays, block by block and in parallel, with no
// 64-bit copy. The first build that reads every id checks them in the same pass (range, order, and
// the symmetry or transpose of the edges by a keyed multiset hash); later builds of the same source
// trust what it found while the file is unchanged. A file that is not valid with ascending lists,
// or options that drop edges the file holds, take the general reader (read_gap_sg), which names the
// problem or reads the lists to sort.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "smartarrays/graph/build.hpp"
#include "smartarrays/graph/csr_graph.hpp"
#include "smartarrays/graph/formats.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::graph::detail {

/// A file's size and modification time: a file that changes between open_sg and a build is refused.
struct FileStamp {
  std::uint64_t bytes = 0;        ///< st_size
  std::int64_t seconds = 0;       ///< st_mtim.tv_sec
  std::int64_t nanoseconds = 0;   ///< st_mtim.tv_nsec
  friend bool operator==(const FileStamp&, const FileStamp&) = default;
};

/// A .sg file opened for building (open_sg): its header and offsets, and what reading its ids found.
struct SgSource {
  std::string path;    ///< the file
  ReadOptions read;    ///< progress of the first read of the whole file
  FileStamp stamp;     ///< the file when opened
  bool directed = true;        ///< its flag
  std::uint64_t vertices = 0;  ///< n
  std::uint64_t edges = 0;     ///< m
  std::vector<std::uint64_t> out_offsets;  ///< the n + 1 out-offsets
  std::vector<std::uint64_t> in_offsets;   ///< the n + 1 in-offsets (directed files only)
  /// In a valid file, the largest id of each direction's lists (the last vertex the other
  /// direction's offsets give a list entry; 0 without edges): the widths of the id arrays.
  std::uint64_t largest_out_id = 0;
  std::uint64_t largest_in_id = 0;  ///< directed files only
  bool checked = false;     ///< every id was read and found valid, with ascending lists
  bool duplicates = false;  ///< (checked) some list repeats an id
  bool self_loops = false;  ///< (checked) some vertex lists itself
  /// The out-edges as the general reader read them, for a file whose lists do not stream (not
  /// ascending); every later build starts from them.
  std::optional<CsrParts> general;
  std::mutex building;  ///< held by a build: one at a time updates what is known of the file
};

/// Opens the .sg file at path for building on pool: the header checked (SgFile), the offsets read in
/// parallel and checked (a file whose offsets are wrong is read by the general reader, which names
/// the problem), and the offsets' memory checked against the process's limit. Throws
/// Error(invalid_argument) naming the file and byte offset, Error(os_error) when it cannot be read,
/// Error(out_of_memory) beyond the memory limit, Error(cancelled) on an interrupt.
std::shared_ptr<SgSource> open_sg(const std::string& path, const ReadOptions& read, runtime::ThreadPool& pool);

/// The graph of an opened .sg file in options' layout (undirected: one shared CSR), its ids read
/// from the file straight into the arrays: checked in the same pass the first time, or first by a
/// pass of their own when options drop edges, replicate an id array or name widths the ids may not
/// fit; trusted after that. A file that is not valid with ascending lists goes to the general reader
/// once (which throws naming the problem, or keeps the lists to sort in source.general); options
/// that drop edges the file holds read it with the general reader for this build. last_use moves
/// source.general into the build. Throws Error(invalid_argument) when the file changed since
/// open_sg or an id does not fit a width options name, Error(out_of_memory) beyond the memory limit.
CsrGraph build_sg(SgSource& source, const BuildOptions& options, runtime::ThreadPool& pool, bool last_use);

}  // namespace smartarrays::graph::detail
