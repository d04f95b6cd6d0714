// Owns what the binding's source files share: the nanobind namespace alias, the one closeable
// handle type behind SmartArray and Graph with its Python protocol, long calls that Ctrl-C can
// interrupt, argument translation into ArrayOptions, the hand-over of decoded values to numpy, and
// each file's registration function.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/graph/csr_graph.hpp"
#include "smartarrays/runtime/interrupt.hpp"

namespace smartarrays::python {

namespace nb = nanobind;

/// A path as the bytes the system names the file by: the package's path_arg() encodes str and
/// os.PathLike with os.fsencode, so a non-UTF-8 name reaches the core as it is on disk.
inline std::string path_of(const nb::bytes& path) { return std::string(path.c_str(), path.size()); }

/// A 1-D uint64 numpy array that owns its buffer.
using U64Array = nb::ndarray<nb::numpy, std::uint64_t, nb::ndim<1>>;
/// A read-only, contiguous 1-D uint64 input array (never converted from another dtype).
using U64In = nb::ndarray<const std::uint64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

/// The object behind a closeable Python class: a core object shared (with running kernels,
/// zero-copy views and arrays taken from it) until close(). Name names the class in errors.
template <typename T, const char* Name>
class Handle {
 public:
  /// The core object as its users share it.
  using Shared = std::shared_ptr<const T>;

  /// Takes over value (which bulk writes may then change: see writable()).
  explicit Handle(T value) : writable_(std::make_shared<T>(std::move(value))), value_(writable_) {}
  /// Shares an object owned elsewhere (e.g. one array of a graph, which the pointer keeps alive).
  explicit Handle(Shared value) : value_(std::move(value)) {}

  /// "operation on a closed NAME", the ValueError of every use after close() (as Python files say).
  static const char* closed_message() noexcept {
    static const std::string message = std::string("operation on a closed ") + Name;
    return message.c_str();
  }
  /// The object; raises ValueError once closed.
  const Shared& get() const {
    if (!value_) throw nb::value_error(closed_message());
    return value_;
  }
  /// The object for writing; raises ValueError once closed, Error(invalid_argument) for an object
  /// shared from another owner (a graph's or a store's array, a live array's snapshot), which is read-only.
  std::shared_ptr<T> writable() const {
    get();
    if (!writable_) throw_error(ErrorCode::invalid_argument, std::string(Name) + " is read-only: it belongs to a graph, a store or a live array's snapshot");
    return writable_;
  }
  /// Makes the object read-only through this handle from now on (it stays readable): for an object
  /// another owner now shares as immutable, such as a live array's version 0.
  void freeze() noexcept { writable_.reset(); }
  /// Drops this handle's reference; other users keep the memory until they finish.
  void close() noexcept {
    writable_.reset();
    value_.reset();
  }
  /// True after close().
  bool closed() const noexcept { return !value_; }

 private:
  std::shared_ptr<T> writable_;  // the object when this handle made it, else null
  Shared value_;
};

/// Adds closed, close() and the context-manager protocol (whose exit closes) to the class of a Handle.
template <typename H>
void bind_closeable(nb::class_<H>& cls, const char* class_name, const char* close_doc) {
  static const std::string enter_signature = std::string("def __enter__(self) -> ") + class_name;
  cls.def_prop_ro("closed", &H::closed, "True after close().")
      .def("close", &H::close, close_doc)
      .def(
          "__enter__",
          [](nb::object self) {
            nb::cast<const H&>(self).get();
            return self;
          },
          nb::sig(enter_signature.c_str()), "Returns the object itself; ValueError once closed.")
      .def(
          "__exit__", [](H& self, nb::args) { self.close(); }, nb::sig("def __exit__(self, *args: object) -> None"),
          "Closes the object.");
}

/// The name of the Python SmartArray class.
inline constexpr char smart_array_name[] = "SmartArray";
/// The object behind a Python SmartArray.
using ArrayHandle = Handle<SmartArray, smart_array_name>;
/// A core array shared by its Python handle, running kernels and zero-copy views.
using SharedArray = ArrayHandle::Shared;

/// The name of the Python Graph class.
inline constexpr char graph_name[] = "Graph";
/// The object behind a Python Graph.
using GraphHandle = Handle<graph::CsrGraph, graph_name>;

/// Runs f() with the GIL released and Ctrl-C honoured: the core polls the thread's interrupt check
/// between its batches, and the check runs Python's pending signal handlers (taking the GIL
/// briefly). When a handler raises (KeyboardInterrupt), the core stops with Error(cancelled) and
/// that Python exception is raised instead of f's result. For any long call (loading, generating,
/// PageRank).
template <typename F>
auto interruptible(F&& f) -> decltype(f()) {
  bool raised = false;
  std::optional<decltype(f())> result;
  {
    nb::gil_scoped_release release;
    runtime::InterruptScope scope([&raised] {
      nb::gil_scoped_acquire gil;
      raised = PyErr_CheckSignals() != 0;
      return raised;
    });
    try {
      result.emplace(f());
    } catch (...) {
      // Whatever stopped the call, a raised signal handler's exception is what Python must see. A
      // signal can stop a call before any check ran (an open waiting on a FIFO returns EINTR): the
      // handlers run now.
      if (!raised) {
        nb::gil_scoped_acquire gil;
        raised = PyErr_CheckSignals() != 0;
      }
      if (!raised) throw;
    }
  }
  if (raised) throw nb::python_error();
  return std::move(*result);
}

/// ArrayOptions from the Python arguments: a placement name, its nodes (single_node takes at most
/// one, the default node 0), bits (0 = the fewest that hold the data) and huge pages.
ArrayOptions make_options(unsigned bits, std::string_view placement, std::vector<int> nodes, std::string_view huge_pages);

/// The owner of a zero-copy view: a capsule holding a reference that keeps array's memory mapped.
nb::capsule keep_alive(const SharedArray& array);

/// A new, uninitialised uint64 numpy array of n values (numpy's allocator, so its huge-page
/// advice applies), to be filled without the GIL through data().
U64Array new_numpy_array(std::uint64_t n);
/// Values [start, start + count) of array decoded, with the GIL released, into a new numpy array.
U64Array decode_to_numpy(const SmartArray& array, std::uint64_t start, std::uint64_t count);

/// The machine facts as the C ABI reports them (sa_machine_facts_json, schema smartarrays.machine/1):
/// the one machine-facts path of every tool and binding.
std::string machine_facts_json();

/// Registers smartarrays::Error -> ValueError / IndexError / MemoryError / OSError / ... translation.
void bind_errors(nb::module_& m);
/// Registers the SmartArray class and the array constructors.
void bind_array(nb::module_& m);
/// Registers placed buffers: numpy arrays over memory the core placed.
void bind_buffer(nb::module_& m);
/// Registers the topology queries and the fake-topology switch.
void bind_topology(nb::module_& m);
/// Registers the graph class, its constructors and its analytics.
void bind_graph(nb::module_& m);
/// Registers the collections: group-by, hash join and the Index class.
void bind_collections(nb::module_& m);
/// Registers the store calls (save, append, open, verify, send, receive) and the rebuilding of
/// arrays and graphs from their packed words (unpickling) or over received frames (Dask).
void bind_store(nb::module_& m);
/// Registers the tuning tool: one command under the knobs, and the grid search.
void bind_tune(nb::module_& m);
/// Registers the distributed-PageRank calls: graph parts and one part's start and iteration.
void bind_distributed(nb::module_& m);

}  // namespace smartarrays::python
