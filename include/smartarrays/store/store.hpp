// Owns the public API of the compact form (docs/compact-format.md): writing named arrays and
// graphs to a store file, appending to it, opening it mapped (arrays are read-only views over the
// file's pages) or loaded (copied in parallel into a chosen placement), and verifying it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/export.hpp"
#include "smartarrays/graph/csr_graph.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::store {

/// How Store::open makes arrays of the file's blocks.
enum class Mode {
  map,   ///< read-only views over the file's pages: no copy, nothing read but header and directory
  load,  ///< copies checked against their checksums into the requested placement, in parallel
};

/// What a named object is.
enum class ObjectKind { array = 1, graph = 2 };

/// One named object to write: an array or a graph, borrowed for the duration of the call.
struct SMARTARRAYS_API Object {
  /// An array named name (1..1024 bytes, no NUL).
  Object(std::string object_name, const SmartArray& object_array) : name(std::move(object_name)), array(&object_array) {}
  /// A graph named name; its five arrays become five blocks (three when its reverse is shared).
  Object(std::string object_name, const graph::CsrGraph& object_graph) : name(std::move(object_name)), graph(&object_graph) {}

  std::string name;                         ///< the object's name in the store
  const SmartArray* array = nullptr;        ///< the array, or nullptr for a graph
  const graph::CsrGraph* graph = nullptr;   ///< the graph, or nullptr for an array
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
  /// Opens the store at path. Mode::map needs no placement (its arrays are os_default views);
  /// Mode::load puts every array in placement (bits ignored: each keeps its stored width), filled
  /// on pool, each replica by its own node's workers. Throws Error naming the first problem.
  static Store open(const std::string& path, Mode mode = Mode::map, const ArrayOptions& placement = {},
                    runtime::ThreadPool& pool = runtime::default_pool());

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
  struct State;
  explicit Store(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

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
