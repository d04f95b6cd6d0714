// Owns the public API of the compact form (docs/compact-format.md): writing named arrays and
// graphs to a store file, appending to it, opening it mapped (arrays are read-only views over the
// file's pages) or loaded (copied in parallel into a chosen placement), and verifying it; and
// rebuilding a graph received as arrays under a store's rules.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/export.hpp"
#include "smartarrays/graph/csr_graph.hpp"
#include "smartarrays/os/memory_region.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::store {

/// True when name can name an object in a store: 1..1024 bytes, no control byte (below 0x20, or 0x7f).
SMARTARRAYS_API bool is_object_name(std::string_view name);

/// How Store::open makes arrays of the file's blocks.
enum class Mode {
  map,   ///< read-only views over the file's pages: no copy; a graph's offsets and ids are read once (bounds)
  load,  ///< copies checked against their checksums into the requested placement, in parallel
};

/// What a named object is.
enum class ObjectKind { array = 1, graph = 2 };

/// One named object to write: an array or a graph, borrowed for the duration of the call.
struct SMARTARRAYS_API Object {
  /// An array named name (1..1024 bytes, no control byte).
  Object(std::string object_name, const SmartArray& object_array) : name(std::move(object_name)), array(&object_array) {}
  /// A graph named name; its five arrays become five blocks (three when its reverse is shared).
  Object(std::string object_name, const graph::CsrGraph& object_graph) : name(std::move(object_name)), graph(&object_graph) {}

  std::string name;                         ///< the object's name in the store
  const SmartArray* array = nullptr;        ///< the array, or nullptr for a graph
  const graph::CsrGraph* graph = nullptr;   ///< the graph, or nullptr for an array
};

/// How Store::receive takes a stream.
struct ReceiveOptions {
  /// Where the one region holding the stream goes: os_default, single_node, interleaved or
  /// partitioned (replicated needs copies; bits ignored).
  ArrayOptions placement{};
  /// The largest stream accepted, in bytes; 0 = the process memory limit (os::memory_limit).
  std::uint64_t max_bytes = 0;
  /// Check every block's CRC32C before the store is returned (as Mode::load does).
  bool verify_blocks = true;
};

/// An open store: its objects as arrays and graphs, in directory order. Move-only.
class SMARTARRAYS_API Store {
 public:
  /// Writes objects as a new store at path, replacing any file there only once the new one is
  /// complete and synced (written beside it, then renamed). Throws Error naming a bad object or the failing call.
  static void write(const std::string& path, const std::vector<Object>& objects);
  /// Adds objects to the store at path without rewriting it: new blocks, then a new directory and
  /// trailer, synced in that order so a crash leaves the previous version readable. Names must be new.
  static void append(const std::string& path, const std::vector<Object>& objects);
  /// Opens the store at path. Mode::map takes no placement (its arrays are os_default views: any
  /// other placement, nodes or huge pages is Error(invalid_argument)); Mode::load puts every array in
  /// placement (bits ignored: each keeps its stored width), filled on pool, each replica by its own
  /// node's workers. Every graph, in either mode, is checked with graph::CsrGraph::check_bounds.
  /// Throws Error naming the first problem.
  static Store open(const std::string& path, Mode mode = Mode::map, const ArrayOptions& placement = {},
                    runtime::ThreadPool& pool = runtime::default_pool());
  /// Opens only the graph named name (empty: the store's only graph) of the store at path: mapped
  /// (placement as in open()), or loaded with each array into placement's options for it (bits
  /// ignored: stored widths kept), as graph::GraphSource::open does for a compact file. Throws
  /// Error(invalid_argument) for no such graph, or for an empty name when the store holds none or several.
  static graph::CsrGraph open_graph(const std::string& path, std::string_view name = {}, Mode mode = Mode::map,
                                    const graph::GraphLayout& placement = {},
                                    runtime::ThreadPool& pool = runtime::default_pool());

  /// Sends objects over fd (socket, pipe or file) as one store stream (docs/compact-format.md,
  /// "Streams"): a 16-byte preamble, then the bytes of a store file whose blocks are written with
  /// writev straight from the arrays' memory (no staging copy). SIGPIPE is held off for the call,
  /// so a peer that closed is Error(os_error) naming the bytes sent, not a signal.
  static void send(int fd, const std::vector<Object>& objects);
  /// Sends the committed part of the store file at path over fd as one stream, with sendfile (the
  /// kernel copies from the page cache). Throws Error like open for a malformed file, like send otherwise.
  static void send_file(int fd, const std::string& path);
  /// Receives one store stream from fd into one region placed as options say, checks it as open
  /// checks a file (and every block's checksum unless options.verify_blocks is false) and returns
  /// its objects as read-only arrays and graphs over that region, used in place (mode() is
  /// Mode::load). Throws Error(invalid_argument) for a malformed or oversized stream, Error(os_error)
  /// when fd fails or ends early (naming the bytes received), Error(cancelled) when interrupted.
  static Store receive(int fd, const ReceiveOptions& options = {});
  /// Sends this store's objects over fd as one stream (as send(fd, objects)).
  void send(int fd) const;

  Store(Store&&) noexcept;
  Store& operator=(Store&&) noexcept;
  ~Store();

  /// How the store was opened.
  Mode mode() const noexcept;
  /// The objects' names, in directory order (oldest first).
  std::vector<std::string> names() const;
  /// True when an object is named name.
  bool contains(std::string_view name) const noexcept;
  /// The kind of object name; throws Error(invalid_argument) if there is none.
  ObjectKind kind(std::string_view name) const;
  /// The array named name; throws Error(invalid_argument) if there is none or it is a graph.
  const SmartArray& array(std::string_view name) const;
  /// The graph named name; throws Error(invalid_argument) if there is none or it is an array.
  const graph::CsrGraph& graph(std::string_view name) const;
  /// Bytes after the trailer in force: the remains of an interrupted append (0 normally).
  std::uint64_t uncommitted_bytes() const noexcept;

 private:
  friend class Receiver;
  struct State;
  explicit Store(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

/// Receives store streams one after another, reusing one region: the region of the last stream
/// received is kept and the next stream is read into it when every array of the previous store
/// is gone and the stream fits (a partitioned placement reuses only a region of the same size);
/// otherwise a new region is placed. Saves the page faults of a fresh region per message. Calls
/// from several threads take turns: one stream at a time.
class SMARTARRAYS_API Receiver {
 public:
  /// A receiver placing its regions as options say (options.max_bytes and verify_blocks apply to every stream).
  explicit Receiver(ReceiveOptions options = {});
  Receiver(Receiver&&) noexcept;
  Receiver& operator=(Receiver&&) noexcept;
  ~Receiver();

  /// Receives one stream from fd as Store::receive does, into the kept region when it can be reused.
  Store receive(int fd);
  /// Bytes of the region kept for the next stream (0 before the first stream).
  std::uint64_t reserved_bytes() const;
  /// How many streams were read into a reused region rather than a new one.
  std::uint64_t reuses() const;

 private:
  Store read(int fd, std::uint64_t length);

  ReceiveOptions options_;
  std::unique_ptr<std::mutex> turn_ = std::make_unique<std::mutex>();
  std::shared_ptr<os::MemoryRegion> region_;
  std::uint64_t faulted_ = 0;  // bytes of region_ faulted in, from its start
  std::uint64_t reuses_ = 0;
};

/// One block of a store as its directory describes it.
struct BlockInfo {
  std::string array;            ///< "" for an array object, else the graph array's name ("begin", ...)
  std::uint64_t length = 0;     ///< values
  unsigned bits = 0;            ///< bits per value
  std::uint64_t offset = 0;     ///< file offset of the block
  std::uint64_t bytes = 0;      ///< the block's bytes (packed words and the padding word)
  std::uint32_t crc = 0;        ///< its CRC32C as the directory states it
};

/// One named object of a store as its directory describes it.
struct ObjectInfo {
  std::string name;               ///< its name
  ObjectKind kind = ObjectKind::array;  ///< array or graph
  /// One for an array; four for a graph (GraphArray order), then a version 1 file's out_degree
  /// block (unused: out-degrees are derived from begin) when the file has one.
  std::vector<BlockInfo> blocks;
  std::uint64_t vertices = 0;     ///< graph: n
  std::uint64_t edges = 0;        ///< graph: m (stored edges)
  bool directed = false;          ///< graph: directed
  graph::Variant variant = graph::Variant::U;  ///< graph: the stored variant
  /// The bytes of its blocks.
  std::uint64_t bytes() const noexcept {
    std::uint64_t total = 0;
    for (const BlockInfo& b : blocks) total += b.bytes;
    return total;
  }
};

/// What a store's header, trailer and directory say (describe()).
struct StoreInfo {
  std::uint32_t version = 0;            ///< format version
  std::uint64_t file_bytes = 0;         ///< the file's size
  std::uint64_t directory_offset = 0;   ///< where the directory in force lies
  std::uint64_t directory_bytes = 0;    ///< its size
  std::uint64_t uncommitted_bytes = 0;  ///< bytes after the trailer in force
  std::vector<ObjectInfo> objects;      ///< in directory order
};

/// The catalogue of the store at path, checked as open checks it (no block is read). Throws Error like open.
SMARTARRAYS_API StoreInfo describe(const std::string& path);

/// Seconds a store writer waits for another writer's lock (and a reader for a commit) before it
/// fails with Error(os_error): SMARTARRAYS_STORE_LOCK_WAIT, 60 by default (docs/settings.md).
/// Throws Error(invalid_argument) naming the variable when it does not parse.
SMARTARRAYS_API double lock_wait_seconds();

/// A graph over arrays received in a form other than a store (Dask frames, a pickle), checked as a
/// store's graph is: a directed graph's four arrays in GraphArray order; an undirected graph's one
/// CSR, as begin and edge alone or as four arrays whose rbegin and redge hold begin's and edge's
/// words (then shared); every offset and id within the arrays (CsrGraph::check_bounds on pool).
/// Throws Error(invalid_argument) "<what>: ..." naming the slots, or the first offset or id outside.
SMARTARRAYS_API graph::CsrGraph graph_from_arrays(std::vector<SmartArray> arrays, bool directed, std::string_view what,
                                                  runtime::ThreadPool& pool = runtime::default_pool());

/// "array" or "graph".
SMARTARRAYS_API const char* to_string(ObjectKind kind) noexcept;
/// "map" or "load".
SMARTARRAYS_API const char* to_string(Mode mode) noexcept;
/// The mode spelled "map" or "load" (any case); throws Error(invalid_argument) otherwise.
SMARTARRAYS_API Mode parse_mode(std::string_view name);

/// The outcome of verify().
struct VerifyReport {
  std::uint64_t objects = 0;            ///< named objects
  std::uint64_t blocks = 0;             ///< blocks checked
  std::uint64_t bytes_checked = 0;      ///< block bytes read and checksummed
  std::uint64_t uncommitted_bytes = 0;  ///< bytes after the trailer in force (an interrupted append)
  std::vector<std::string> problems;    ///< one line per problem found, naming the object and offset
  /// True when no problem was found.
  bool ok() const noexcept { return problems.empty(); }
};

/// Checks the store at path: its header, directory and trailer (a malformed one throws Error like
/// open), every block's checksum and zero padding, and with deep the CSR invariants of every graph
/// (CsrGraph::validate on the default pool: monotone offsets, ids < n, reverse = transpose, degrees).
SMARTARRAYS_API VerifyReport verify(const std::string& path, bool deep = false);

}  // namespace smartarrays::store
