// Owns the store part of smartarrays._core: writing and appending named arrays and graphs, opening
// a store mapped or loaded and receiving a stream, once or with a Receiver (their objects handed out as SmartArray and graph
// handles that share the open store), verifying, sending over a file descriptor, and rebuilding an
// array or graph from packed words (what unpickling calls). Every file and stream call runs with
// the GIL released; and the frames Dask moves an array or graph in (views of its packed words and
// padding word), with arrays rebuilt over received frames in place when nothing can change them
// (bytes), else copied. The package's smartarrays/store.py and smartarrays/_dask_serialize.py wrap these.
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "binding.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/os/memory_region.hpp"
#include "smartarrays/util/checked.hpp"
#include "smartarrays/store/store.hpp"

namespace smartarrays::python {
namespace {

using namespace nb::literals;

/// (name, kind, handle): what opening or receiving yields per object.
using OpenedObject = std::tuple<std::string, std::string, nb::object>;
/// (length, bits, packed words) of one array, as pickles carry it.
using PackedArray = std::tuple<std::uint64_t, unsigned, U64In>;
/// A read-only, contiguous byte buffer: one received frame.
using ByteIn = nb::ndarray<const std::uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
/// A read-only view of an array's packed words and padding word: one frame to send.
using WordsView = nb::ndarray<nb::numpy, const std::uint64_t, nb::ndim<1>, nb::c_contig>;
/// (length, bits, frame) of one array as Dask moves it.
using ArrayFrame = std::tuple<std::uint64_t, unsigned, WordsView>;
/// (length, bits, frame) of one received array: the frame any object with a contiguous byte buffer.
using ReceivedFrame = std::tuple<std::uint64_t, unsigned, nb::object>;

// The core objects of (name, handle) pairs; a handle is a SmartArray or a native graph. The
// shared pointers keep them alive while the GIL is released.
struct Objects {
  std::vector<store::Object> list;
  std::vector<std::shared_ptr<const void>> keep;
};

Objects objects_of(const std::vector<std::string>& names, const std::vector<nb::object>& handles) {
  if (names.size() != handles.size()) throw nb::value_error("names and objects differ in length");
  Objects objects;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (nb::isinstance<ArrayHandle>(handles[i])) {
      const SharedArray array = nb::cast<const ArrayHandle&>(handles[i]).get();
      objects.list.emplace_back(names[i], *array);
      objects.keep.push_back(array);
    } else if (nb::isinstance<GraphHandle>(handles[i])) {
      const GraphHandle::Shared graph = nb::cast<const GraphHandle&>(handles[i]).get();
      objects.list.emplace_back(names[i], *graph);
      objects.keep.push_back(graph);
    } else {
      throw nb::type_error(("object " + names[i] + " is neither a SmartArray nor a Graph").c_str());
    }
  }
  return objects;
}

// The objects of an open store as handles sharing it.
std::vector<OpenedObject> opened(store::Store opened_store) {
  auto shared = std::make_shared<const store::Store>(std::move(opened_store));
  std::vector<OpenedObject> objects;
  for (const std::string& name : shared->names()) {
    if (shared->kind(name) == store::ObjectKind::array) {
      objects.emplace_back(name, "array", nb::cast(ArrayHandle(SharedArray(shared, &shared->array(name)))));
    } else {
      objects.emplace_back(name, "graph", nb::cast(GraphHandle(GraphHandle::Shared(shared, &shared->graph(name)))));
    }
  }
  return objects;
}

void write(const nb::bytes& path, const std::vector<std::string>& names, const std::vector<nb::object>& handles) {
  const Objects objects = objects_of(names, handles);
  interruptible([&] {
    store::Store::write(path_of(path), objects.list);
    return 0;
  });
}

void append(const nb::bytes& path, const std::vector<std::string>& names, const std::vector<nb::object>& handles) {
  const Objects objects = objects_of(names, handles);
  interruptible([&] {
    store::Store::append(path_of(path), objects.list);
    return 0;
  });
}

ArrayOptions placement_of(std::string_view placement, std::vector<int> nodes, std::string_view huge_pages) {
  return make_options(0, placement, std::move(nodes), huge_pages);
}

std::vector<OpenedObject> open(const nb::bytes& path, std::string_view mode, std::string_view placement,
                               std::vector<int> nodes, std::string_view huge_pages) {
  const store::Mode how = store::parse_mode(mode);
  const ArrayOptions options = placement_of(placement, std::move(nodes), huge_pages);
  return opened(interruptible([&] { return store::Store::open(path_of(path), how, options); }));
}

std::tuple<std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t, std::vector<std::string>> verify(const nb::bytes& path,
                                                                                                        bool deep) {
  const store::VerifyReport r = interruptible([&] { return store::verify(path_of(path), deep); });
  return {r.objects, r.blocks, r.bytes_checked, r.uncommitted_bytes, r.problems};
}

void send(int fd, const std::vector<std::string>& names, const std::vector<nb::object>& handles) {
  const Objects objects = objects_of(names, handles);
  interruptible([&] {
    store::Store::send(fd, objects.list);
    return 0;
  });
}

std::vector<OpenedObject> receive(int fd, std::string_view placement, std::vector<int> nodes, std::string_view huge_pages,
                                  std::uint64_t max_bytes) {
  store::ReceiveOptions options;
  options.placement = placement_of(placement, std::move(nodes), huge_pages);
  options.max_bytes = max_bytes;
  return opened(interruptible([&] { return store::Store::receive(fd, options); }));
}

// A receiver placing its regions as asked.
void new_receiver(store::Receiver* self, std::string_view placement, std::vector<int> nodes, std::string_view huge_pages,
                  std::uint64_t max_bytes) {
  store::ReceiveOptions options;
  options.placement = placement_of(placement, std::move(nodes), huge_pages);
  options.max_bytes = max_bytes;
  new (self) store::Receiver(options);
}

// ValueError "WHAT: the value slots past the length are not zero" unless the last chunk's slots
// past the array's length hold zeros (the core's kernels count on it).
void require_zero_tail(const SmartArray& array, const char* what) {
  if (array.length() % 64 == 0) return;
  std::array<std::uint64_t, 64> last{};
  array.unpack(array.length() / 64, last.data());
  for (std::uint64_t k = array.length() % 64; k < 64; ++k) {
    if (last[k] != 0) throw nb::value_error((std::string(what) + ": the value slots past the length are not zero").c_str());
  }
}

// The words of the packed stream of length values of bits (docs/bit-layout.md): ValueError for bits
// outside 1..64, MemoryError for a count past 2^64.
std::uint64_t stream_words(std::uint64_t length, unsigned bits, std::string_view what) {
  if (bits < 1 || bits > 64) throw nb::value_error(("bits must be 1..64, got " + std::to_string(bits)).c_str());
  const std::uint64_t chunks = length / 64 + (length % 64 != 0 ? 1 : 0);
  return util::checked_mul(chunks, bits, what);
}

// A new array of length values of bits in placement holding a copy of the packed stream at words
// (as many words as length and bits need, docs/bit-layout.md; any alignment); ValueError "WHAT: ..." when
// the value slots past the length are not zero.
SmartArray array_copied(std::uint64_t length, unsigned bits, const void* words, const ArrayOptions& placement, const char* what) {
  ArrayOptions options = placement;
  options.bits = bits;
  SmartArray array = SmartArray::allocate(length, options);
  for (std::size_t r = 0; r < array.replicas(); ++r) {
    if (array.words_per_replica() > 0) std::memcpy(array.mutable_replica(r), words, array.words_per_replica() * sizeof(std::uint64_t));
  }
  require_zero_tail(array, what);
  return array;
}

// A new array of length values of bits holding words (its packed stream, docs/bit-layout.md) in placement;
// ValueError when the words do not form such a stream, found before anything is allocated (a
// pickle of a few bytes must not make the process map and touch the memory it announces).
SmartArray array_from_words(std::uint64_t length, unsigned bits, const U64In& words, const ArrayOptions& placement) {
  const std::uint64_t expected = stream_words(length, bits, "packed words");
  if (words.shape(0) != expected) {
    throw nb::value_error(("packed words: " + std::to_string(words.shape(0)) + " words cannot hold " + std::to_string(length) +
                           " values of " + std::to_string(bits) + " bits (" + std::to_string(expected) + " do)")
                              .c_str());
  }
  return array_copied(length, bits, words.data(), placement, "packed words");
}

ArrayHandle array_from_packed(std::uint64_t length, unsigned bits, const U64In& words, std::string_view placement,
                              std::vector<int> nodes, std::string_view huge_pages) {
  return ArrayHandle(array_from_words(length, bits, words, placement_of(placement, std::move(nodes), huge_pages)));
}

// The graph of arrays that came from outside the process (a pickle, received frames), under a store
// graph's rules (store::graph_from_arrays: an undirected graph is one CSR, and no offset or id takes
// a traversal outside the arrays); ValueError "WHAT: ..." naming the first that breaks one.
// Interruptible: the check is O(n + m).
GraphHandle checked_graph(std::vector<SmartArray> arrays, bool directed, const char* what) {
  return GraphHandle(interruptible([&] { return store::graph_from_arrays(std::move(arrays), directed, what); }));
}

// Pickles made before out-degrees were derived carry a fifth array (out_degree): it is skipped. An
// undirected graph's pickle holds its one CSR twice (rbegin and redge are copies of begin and edge).
GraphHandle graph_from_packed(const std::vector<PackedArray>& arrays, bool directed) {
  if (arrays.size() != graph::graph_array_count && arrays.size() != graph::graph_array_count + 1) {
    throw nb::value_error("a graph needs four packed arrays (begin, edge, rbegin, redge)");
  }
  std::vector<SmartArray> made;
  for (std::size_t k = 0; k < graph::graph_array_count; ++k) {
    const auto& [length, bits, words] = arrays[k];
    made.push_back(array_from_words(length, bits, words, {}));
  }
  return checked_graph(std::move(made), directed, "Graph pickle");
}

// The frame of array: its local replica's stream and padding word, viewed in place (kept alive by the view).
ArrayFrame frame_of(const SharedArray& array) {
  const std::size_t words = static_cast<std::size_t>(array->words_per_replica()) + 1;
  return {array->length(), array->bits(), WordsView(array->local_replica(), {words}, keep_alive(array))};
}

ArrayFrame array_frame(const ArrayHandle& handle) { return frame_of(handle.get()); }

// (directed, shares_reverse, frames) of a graph: two frames (begin, edge) when its reverse CSR is its
// forward one, else its four arrays'.
std::tuple<bool, bool, std::vector<ArrayFrame>> graph_frames(const GraphHandle& handle) {
  const GraphHandle::Shared graph = handle.get();
  const bool shared = graph->shares_reverse();
  std::vector<ArrayFrame> frames;
  for (std::size_t k = 0; k < graph::graph_array_count; ++k) {
    const auto which = static_cast<graph::GraphArray>(k);
    if (shared && (which == graph::GraphArray::rbegin || which == graph::GraphArray::redge)) continue;
    frames.push_back(frame_of(SharedArray(graph, &graph->array(which))));
  }
  return {graph->directed(), shared, std::move(frames)};
}

// True when the bytes of a received frame can never change: an exact bytes object, or a memoryview
// whose underlying object is one (Dask's frames sliced from one message). Any other buffer
// (bytearray, numpy array, a memoryview of either) its owner may write after deserializing.
bool immutable(nb::handle frame) {
  PyObject* object = frame.ptr();
  if (PyMemoryView_Check(object)) object = PyMemoryView_GET_BUFFER(object)->obj;
  return object != nullptr && PyBytes_CheckExact(object);
}

// An array of length values of bits from a received frame (stream words, then a zero padding word):
// over the frame in place when its bytes can never change (immutable()) and it is 8-byte aligned,
// else a copy of its own, so writing the frame afterwards changes nothing. ValueError for a frame of
// the wrong size or with bits set past the stream or past the length, TypeError for an object that
// is no contiguous buffer of bytes.
SmartArray array_over_frame(std::uint64_t length, unsigned bits, nb::handle object) {
  ByteIn frame;
  if (!nb::try_cast(object, frame)) {
    throw nb::type_error(("a frame must be a contiguous buffer of bytes, got " + std::string(nb::inst_name(object).c_str())).c_str());
  }
  const std::uint64_t words = stream_words(length, bits, "frame words");
  const std::uint64_t bytes = util::checked_mul(util::checked_add(words, 1, "frame words"), 8, "frame bytes");
  if (frame.shape(0) != bytes) {
    throw nb::value_error(("frame of " + std::to_string(frame.shape(0)) + " bytes for " + std::to_string(length) +
                           " values of " + std::to_string(bits) + " bits (" + std::to_string(bytes) + " expected)")
                              .c_str());
  }
  std::uint64_t padding = 0;
  std::memcpy(&padding, frame.data() + words * 8, sizeof padding);
  if (padding != 0) throw nb::value_error("frame: the padding word after the packed words is not zero");
  if (!immutable(object) || reinterpret_cast<std::uintptr_t>(frame.data()) % alignof(std::uint64_t) != 0) {
    return array_copied(length, bits, frame.data(), {}, "frame");
  }
  SmartArray array = SmartArray::over_region(
      length, bits, os::MemoryRegion::borrow(frame.data(), bytes, std::make_shared<const ByteIn>(frame)));
  require_zero_tail(array, "frame");
  return array;
}

ArrayHandle array_from_frame(std::uint64_t length, unsigned bits, nb::handle frame) {
  return ArrayHandle(array_over_frame(length, bits, frame));
}

// Four frames, or two for an undirected graph's one CSR (the core checks which).
GraphHandle graph_from_frames(const std::vector<ReceivedFrame>& frames, bool directed) {
  std::vector<SmartArray> made;
  for (const auto& [length, bits, frame] : frames) made.push_back(array_over_frame(length, bits, frame));
  return checked_graph(std::move(made), directed, "Graph in a Dask message");
}

}  // namespace

void bind_store(nb::module_& m) {
  m.def("_store_write", &write, "path"_a, "names"_a, "objects"_a, "Writes named SmartArrays and graphs as a new store.");
  m.def("_store_append", &append, "path"_a, "names"_a, "objects"_a, "Adds named objects to a store.");
  m.def("_store_open", &open, "path"_a, "mode"_a, "placement"_a, "nodes"_a, "huge_pages"_a,
        "The objects of a store as (name, kind, handle), mapped or loaded.");
  m.def("_store_verify", &verify, "path"_a, "deep"_a,
        "(objects, blocks, bytes checked, uncommitted bytes, problems) of a store's check.");
  m.def("_store_send", &send, "fd"_a, "names"_a, "objects"_a, "Sends named objects over a file descriptor as one stream.");
  m.def("_store_recv", &receive, "fd"_a, "placement"_a, "nodes"_a, "huge_pages"_a, "max_bytes"_a,
        "The objects of one stream received from a file descriptor, as (name, kind, handle).");
  nb::class_<store::Receiver>(m, "_Receiver", "Receives store streams one after another into one kept region.")
      .def("__init__", &new_receiver, "placement"_a, "nodes"_a, "huge_pages"_a, "max_bytes"_a)
      .def(
          "recv", [](store::Receiver& r, int fd) { return opened(interruptible([&] { return r.receive(fd); })); }, "fd"_a,
          "The objects of one stream from fd, as (name, kind, handle), read into the kept region when it is free.")
      .def_prop_ro("reserved_bytes", &store::Receiver::reserved_bytes, "Bytes of the region kept for the next stream.")
      .def_prop_ro("reuses", &store::Receiver::reuses, "Streams read into a reused region.");
  m.def("_array_from_packed", &array_from_packed, "length"_a, "bits"_a, "words"_a, "placement"_a, "nodes"_a,
        "huge_pages"_a, "A SmartArray from its packed words (unpickling).");
  m.def("_graph_from_packed", &graph_from_packed, "arrays"_a, "directed"_a,
        "A native graph from its four arrays' (length, bits, packed words), a fifth skipped (unpickling).");
  m.def("_array_frame", &array_frame, "array"_a,
        "(length, bits, frame) of a SmartArray: a read-only view of its packed words and padding word.");
  m.def("_graph_frames", &graph_frames, "graph"_a,
        "(directed, shares_reverse, [(length, bits, frame)]) of a native graph, every frame a view.");
  m.def("_array_from_frame", &array_from_frame, "length"_a, "bits"_a, "frame"_a,
        "A read-only SmartArray of a received frame: over it in place when a bytes object's (or a "
        "memoryview of one) and 8-byte aligned, else a copy.");
  m.def("_graph_from_frames", &graph_from_frames, "frames"_a, "directed"_a,
        "A native graph of received frames (four, or two for an undirected graph's one CSR), each as _array_from_frame.");
}

}  // namespace smartarrays::python
