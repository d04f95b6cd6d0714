// Owns the Python class smartarrays._core.SmartArray: a handle on one core SmartArray with checked
// indexing (ints, slices, integer arrays), batch decode into numpy arrays, zero-copy read-only views
// of 64-bit arrays (buffer protocol, __array__, DLPack), and the bulk kernels, each of which runs
// with the GIL released. The core array is held through a shared_ptr: a kernel running without
// the GIL, or a zero-copy view, keeps the memory mapped even after close().
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "binding.hpp"
#include "smartarrays/adapt/adaptive_array.hpp"
#include "smartarrays/algo/aggregate.hpp"
#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/build/bulk.hpp"
#include "smartarrays/build/live_array.hpp"
#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays::python {
namespace {

using namespace nb::literals;

using U32In = nb::ndarray<const std::uint32_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using U64Out = nb::ndarray<std::uint64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

ArrayHandle from_u64(const U64In& values, unsigned bits, std::string_view placement, std::vector<int> nodes,
                     std::string_view huge_pages, std::string_view write_mode) {
  ArrayOptions options = make_options(bits, placement, std::move(nodes), huge_pages);
  options.write_mode = parse_write_mode(write_mode);
  const std::span<const std::uint64_t> span(values.data(), values.shape(0));
  nb::gil_scoped_release release;
  return ArrayHandle(build::build_array_from_values(span, options));
}

ArrayHandle from_u32(const U32In& values, unsigned bits, std::string_view placement, std::vector<int> nodes,
                     std::string_view huge_pages, std::string_view write_mode) {
  ArrayOptions options = make_options(bits, placement, std::move(nodes), huge_pages);
  options.write_mode = parse_write_mode(write_mode);
  const std::span<const std::uint32_t> span(values.data(), values.shape(0));
  nb::gil_scoped_release release;
  return ArrayHandle(build::build_array_from_values(span, options));
}

// An array whose auto placement and/or bits the adaptive layer resolves (for the values' length,
// largest value and the hints); returns it with the decision as JSON.
template <typename In, typename T>
std::pair<ArrayHandle, std::string> auto_from(const In& values, unsigned bits, bool auto_bits, std::string_view placement,
                                              std::vector<int> nodes, std::string_view huge_pages, bool read_only,
                                              std::string_view pattern, double passes, unsigned threads,
                                              std::string_view write_mode) {
  const bool auto_placement = placement == "auto";
  ArrayOptions options = make_options(bits, auto_placement ? "os_default" : placement, std::move(nodes), huge_pages);
  options.write_mode = parse_write_mode(write_mode);
  options.auto_placement = auto_placement;
  options.auto_bits = auto_bits;
  options.hints = AccessHints{read_only, parse_access_pattern(pattern), passes, threads};
  const std::span<const T> span(values.data(), values.shape(0));
  nb::gil_scoped_release release;
  std::uint64_t largest = 0;
  for (T v : span) largest = std::max<std::uint64_t>(largest, v);
  adapt::ResolvedOptions resolved = adapt::resolve(options, span.size(), largest);
  std::string decision = resolved.decision ? resolved.decision->json(-1) : "null";
  return {ArrayHandle(build::build_array_from_values(span, resolved.options)), std::move(decision)};
}

[[noreturn]] void throw_index_error(long long index, std::uint64_t length) {
  throw nb::index_error(("index " + std::to_string(index) + " out of range for length " + std::to_string(length)).c_str());
}

// A Python index (negative counts from the end) as an array index, or IndexError.
std::uint64_t resolve_index(long long index, std::uint64_t length) {
  const long long resolved = index < 0 ? index + static_cast<long long>(length) : index;
  if (resolved < 0 || static_cast<std::uint64_t>(resolved) >= length) throw_index_error(index, length);
  return static_cast<std::uint64_t>(resolved);
}

// A Python or numpy integer (anything with __index__) as a signed index: IndexError past the range
// of one, Python's own TypeError for anything else.
Py_ssize_t python_index(nb::handle key) {
  const Py_ssize_t index = PyNumber_AsSsize_t(key.ptr(), PyExc_IndexError);
  if (index == -1 && PyErr_Occurred()) throw nb::python_error();
  return index;
}

// value as a uint64, checked as every entry point of the package checks one
// (smartarrays._args.unsigned_value): a ValueError naming name and the value for a negative or
// too large int, a TypeError naming what it got for a non-integer, never nanobind's bare TypeError.
std::uint64_t unsigned_arg(nb::handle value, const char* name) {
  return nb::cast<std::uint64_t>(nb::module_::import_("smartarrays._args").attr("unsigned_value")(value, name));
}

// value as the SmartArray an argument must be, or a TypeError naming name and what it got.
const ArrayHandle& array_arg(nb::handle value, const char* name) {
  ArrayHandle* array = nullptr;
  if (!nb::try_cast<ArrayHandle*>(value, array, false) || array == nullptr) {
    throw nb::type_error((std::string(name) + " must be a SmartArray, got " + nb::type_name(value.type()).c_str()).c_str());
  }
  return *array;
}

U64Array decode_strided(const SharedArray& array, long long start, long long step, std::uint64_t count) {
  U64Array out = new_numpy_array(count);
  std::uint64_t* const data = out.data();
  {
    nb::gil_scoped_release release;
    array->visit([&](auto view) {
      for (std::uint64_t k = 0; k < count; ++k) {
        data[k] = view.get(static_cast<std::uint64_t>(start + static_cast<long long>(k) * step));
      }
    });
  }
  return out;
}

// Values at indices[0..count), each checked (negative ones count from the end).
template <typename Index>
U64Array gather(const SharedArray& array, const Index* indices, std::uint64_t count) {
  U64Array out = new_numpy_array(count);
  std::uint64_t* const data = out.data();
  {
    nb::gil_scoped_release release;
    const std::uint64_t length = array->length();
    array->visit([&](auto view) {
      for (std::uint64_t k = 0; k < count; ++k) {
        std::uint64_t i;
        if constexpr (std::is_signed_v<Index>) {
          const long long signed_i = indices[k] < 0 ? indices[k] + static_cast<long long>(length) : indices[k];
          if (signed_i < 0 || static_cast<std::uint64_t>(signed_i) >= length) {
            throw_error(ErrorCode::out_of_range, "index " + std::to_string(indices[k]) + " out of range for length " +
                                                     std::to_string(length));
          }
          i = static_cast<std::uint64_t>(signed_i);
        } else {
          i = indices[k];
          if (i >= length) detail::throw_index_out_of_range(i, length);
        }
        data[k] = view.get(i);
      }
    });
  }
  return out;
}

nb::object numpy() { return nb::module_::import_("numpy"); }

nb::object gather_array(const SharedArray& array, nb::handle key) {
  nb::object indices = numpy().attr("asarray")(key);
  const auto ndim = nb::cast<std::size_t>(indices.attr("ndim"));
  const auto size = nb::cast<std::size_t>(indices.attr("size"));
  const auto kind = nb::cast<std::string>(indices.attr("dtype").attr("kind"));
  if (ndim == 1 && size == 0) return nb::cast(decode_to_numpy(*array, 0, 0));
  if (ndim != 1 || (kind != "i" && kind != "u")) {
    throw nb::type_error("SmartArray indices must be integers, slices or 1-D integer arrays");
  }
  if (kind == "u" && nb::cast<std::size_t>(indices.attr("itemsize")) == 8) {
    // In native byte order: a big-endian '>u8' array is not a uint64 ndarray to the binding.
    indices = numpy().attr("ascontiguousarray")(indices, "dtype"_a = "uint64");
    const auto u = nb::cast<nb::ndarray<const std::uint64_t, nb::ndim<1>, nb::c_contig>>(indices);
    return nb::cast(gather(array, u.data(), size));
  }
  indices = numpy().attr("ascontiguousarray")(indices, "dtype"_a = "int64");
  const auto s = nb::cast<nb::ndarray<const std::int64_t, nb::ndim<1>, nb::c_contig>>(indices);
  return nb::cast(gather(array, s.data(), size));
}

nb::object getitem(const ArrayHandle& self, nb::handle key) {
  // numpy's rule for a 1-D array: a 1-tuple indexes like its item, a longer one is too many indices
  // (a[1, 2] must not act as a[[1, 2]], which asarray() of the tuple would give).
  if (PyTuple_Check(key.ptr())) {
    const Py_ssize_t size = PyTuple_GET_SIZE(key.ptr());
    if (size == 1) return getitem(self, PyTuple_GET_ITEM(key.ptr(), 0));
    throw nb::index_error(("too many indices for a SmartArray: it is 1-dimensional, but " + std::to_string(size) +
                           " were indexed")
                              .c_str());
  }
  if (key.is_none()) {
    throw nb::index_error("None (numpy.newaxis) adds a dimension, and a SmartArray has one: index it with an int, a slice or an integer array");
  }
  const SharedArray array = self.get();
  const std::uint64_t length = array->length();
  if (PySlice_Check(key.ptr())) {
    Py_ssize_t start = 0, stop = 0, step = 0;
    if (PySlice_Unpack(key.ptr(), &start, &stop, &step) < 0) throw nb::python_error();
    const Py_ssize_t count = PySlice_AdjustIndices(static_cast<Py_ssize_t>(length), &start, &stop, step);
    if (step == 1) return nb::cast(decode_to_numpy(*array, static_cast<std::uint64_t>(start), static_cast<std::uint64_t>(count)));
    return nb::cast(decode_strided(array, start, step, static_cast<std::uint64_t>(count)));
  }
  // Python and numpy integer scalars (and 0-d arrays); other arrays also define __index__, so ndim decides.
  const bool scalar = PyIndex_Check(key.ptr()) && (!nb::hasattr(key, "ndim") || nb::cast<int>(key.attr("ndim")) == 0);
  if (scalar) {
    return nb::cast(array->get(resolve_index(python_index(key), length)));
  }
  return gather_array(array, key);
}

// A read-only view of the calling thread's replica of a 64-bit array.
template <typename... Framework>
nb::ndarray<Framework..., const std::uint64_t, nb::ndim<1>, nb::c_contig> zero_copy_view(const SharedArray& array) {
  if (array->bits() != 64) {
    throw nb::buffer_error(("a " + std::to_string(array->bits()) +
                            "-bit SmartArray has no uncompressed memory to share; use to_numpy() for a decoded copy")
                               .c_str());
  }
  return {array->local_replica(), {static_cast<std::size_t>(array->length())}, keep_alive(array)};
}

nb::ndarray<nb::numpy, const std::uint64_t, nb::ndim<1>, nb::c_contig> packed_words(const SharedArray& array,
                                                                                   std::size_t replica) {
  return {array->replica(replica), {static_cast<std::size_t>(array->words_per_replica())}, keep_alive(array)};
}

nb::object to_array(const ArrayHandle& self, nb::handle dtype, nb::handle copy) {
  const SharedArray array = self.get();
  nb::object np = numpy();
  const bool same_dtype = dtype.is_none() || np.attr("dtype")(dtype).equal(np.attr("dtype")("uint64"));
  const bool viewable = array->bits() == 64 && same_dtype;
  if (copy.is(Py_False) && !viewable) {
    throw nb::value_error(("a " + std::to_string(array->bits()) + "-bit SmartArray cannot become a " +
                           nb::cast<std::string>(nb::str(dtype.is_none() ? np.attr("dtype")("uint64") : np.attr("dtype")(dtype))) +
                           " array without a copy")
                              .c_str());
  }
  if (viewable && !copy.is(Py_True)) return nb::cast(zero_copy_view<nb::numpy>(array));
  nb::object result = nb::cast(decode_to_numpy(*array, 0, array->length()));
  if (!same_dtype) result = result.attr("astype")(dtype, "copy"_a = false);
  return result;
}

// Keeps a buffer export's array and its shape/stride (which the Py_buffer points to) alive.
struct BufferExport {
  SharedArray array;
  Py_ssize_t shape;
  Py_ssize_t stride;
};

int get_buffer(PyObject* self, Py_buffer* view, int flags) noexcept {
  view->obj = nullptr;
  // SmartArray.__new__ alone makes an instance no constructor filled: no array to share.
  if (!nb::inst_ready(self)) {
    PyErr_SetString(PyExc_TypeError, "a SmartArray not made by the library has no memory to share");
    return -1;
  }
  const ArrayHandle* handle = nb::inst_ptr<ArrayHandle>(self);
  if (handle->closed()) {
    PyErr_SetString(PyExc_ValueError, ArrayHandle::closed_message());
    return -1;
  }
  const SharedArray& array = handle->get();
  if (array->bits() != 64) {
    PyErr_Format(PyExc_BufferError,
                 "a %u-bit SmartArray has no uncompressed memory to share; use to_numpy() for a decoded copy",
                 array->bits());
    return -1;
  }
  if ((flags & PyBUF_WRITABLE) == PyBUF_WRITABLE) {
    PyErr_SetString(PyExc_BufferError, "SmartArray buffers are read-only");
    return -1;
  }
  auto* exported = new (std::nothrow) BufferExport{array, static_cast<Py_ssize_t>(array->length()), 8};
  if (exported == nullptr) {
    PyErr_NoMemory();
    return -1;
  }
  view->buf = const_cast<std::uint64_t*>(array->local_replica());
  view->obj = Py_NewRef(self);
  view->len = exported->shape * 8;
  view->itemsize = 8;
  view->readonly = 1;
  view->ndim = 1;
  view->format = (flags & PyBUF_FORMAT) == PyBUF_FORMAT ? const_cast<char*>("Q") : nullptr;
  view->shape = (flags & PyBUF_ND) == PyBUF_ND ? &exported->shape : nullptr;
  view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? &exported->stride : nullptr;
  view->suboffsets = nullptr;
  view->internal = exported;
  return 0;
}

void release_buffer(PyObject*, Py_buffer* view) noexcept { delete static_cast<BufferExport*>(view->internal); }

PyType_Slot array_slots[] = {
    {Py_bf_getbuffer, reinterpret_cast<void*>(get_buffer)},
    {Py_bf_releasebuffer, reinterpret_cast<void*>(release_buffer)},
    {0, nullptr},
};

/// Iterates over an array in batches of decoded values (each batch decoded without the GIL).
class ChunkIterator {
 public:
  ChunkIterator(nb::object owner, std::uint64_t size) : owner_(std::move(owner)), size_(size) {}

  U64Array next() {
    const SharedArray array = nb::cast<const ArrayHandle&>(owner_).get();
    if (next_ >= array->length()) throw nb::stop_iteration();
    const std::uint64_t count = std::min(size_, array->length() - next_);
    U64Array batch = decode_to_numpy(*array, next_, count);
    next_ += count;
    return batch;
  }

 private:
  nb::object owner_;
  std::uint64_t size_;
  std::uint64_t next_ = 0;
};

std::string repr(const ArrayHandle& self) {
  if (self.closed()) return "SmartArray(closed)";
  const SharedArray& array = self.get();
  return "SmartArray(length=" + std::to_string(array->length()) + ", bits=" + std::to_string(array->bits()) +
         ", placement='" + to_string(array->placement()) + "')";
}

std::vector<int> node_set(const SmartArray& array) {
  if (array.placement() == Placement::os_default) return {};
  if (array.placement() == Placement::single_node) return {array.options().node};
  return array.options().nodes;
}

// Live re-layout (build::LiveArray): version 0 shares the SmartArray's memory; snapshots are SmartArrays.
void bind_live_array(nb::module_& m) {
  nb::class_<build::LiveArray>(m, "_LiveArray", "The core of smartarrays.LiveArray.")
      .def(
          "__init__",
          [](build::LiveArray* self, ArrayHandle& array) {
            new (self) build::LiveArray(array.get());
            array.freeze();
          },
          "array"_a, "A live array whose version 0 is array (shared, not copied; array becomes read-only).")
      .def("__len__", &build::LiveArray::length, "Number of values.")
      .def_prop_ro("version", &build::LiveArray::version, "The current version's number (one more per relayout).")
      .def(
          "pin", [](const build::LiveArray& self) { return ArrayHandle(self.pin()); },
          "The current version as a read-only SmartArray that stays unchanged whatever relayouts follow.")
      .def(
          "_relayout",
          [](build::LiveArray& self, unsigned bits, std::string_view placement, std::vector<int> nodes,
             std::string_view huge_pages) {
            const ArrayOptions options = make_options(bits, placement, std::move(nodes), huge_pages);
            return interruptible([&] { return self.relayout(options); });
          },
          "bits"_a, "placement"_a, "nodes"_a, "huge_pages"_a,
          "Re-lays the array out (GIL released) while readers go on; returns the new version's number.");
}

}  // namespace

nb::capsule keep_alive(const SharedArray& array) {
  auto keep = std::make_unique<SharedArray>(array);
  nb::capsule owner(keep.get(), [](void* p) noexcept { delete static_cast<SharedArray*>(p); });
  keep.release();
  return owner;
}

ArrayOptions make_options(unsigned bits, std::string_view placement, std::vector<int> nodes, std::string_view huge_pages) {
  ArrayOptions options;
  options.placement = parse_placement(placement);
  options.bits = bits;
  options.huge_pages = os::parse_huge_pages(huge_pages);
  if (options.placement == Placement::single_node) {
    // The Python API names the node of single_node through nodes, like every other placement.
    if (nodes.size() > 1) {
      throw_error(ErrorCode::invalid_argument,
                  "single_node placement takes one node, got " + std::to_string(nodes.size()));
    }
    options.node = nodes.empty() ? 0 : nodes.front();
  } else {
    options.nodes = std::move(nodes);
  }
  return options;
}

U64Array decode_to_numpy(const SmartArray& array, std::uint64_t start, std::uint64_t count) {
  U64Array out = new_numpy_array(count);
  // In blocks of 16 Mi values with Ctrl-C taken between them: gigabytes decode for seconds.
  constexpr std::uint64_t block = std::uint64_t{1} << 24;
  std::uint64_t* const data = out.data();
  interruptible([&] {
    for (std::uint64_t done = 0; done < count; done += block) {
      runtime::check_interrupt();
      array.decode(start + done, std::min(block, count - done), data + done);
    }
    return count;
  });
  return out;
}

// SmartArray's metadata: length, bits, placement, nodes, replicas, bytes, pages per node.
void bind_metadata(nb::class_<ArrayHandle>& cls) {
  cls.def("__len__", [](const ArrayHandle& self) { return self.get()->length(); }, "Number of values.")
      .def_prop_ro("bits", [](const ArrayHandle& self) { return self.get()->bits(); }, "Bits per value (1..64).")
      .def_prop_ro("placement", [](const ArrayHandle& self) { return std::string(to_string(self.get()->placement())); },
                   "Where the pages live: os_default, single_node, interleaved, replicated or partitioned.")
      .def_prop_ro("huge_pages", [](const ArrayHandle& self) { return std::string(os::to_string(self.get()->options().huge_pages)); },
                   "How the pages ask for huge pages: 'auto', 'on', 'off', '2M' or '1G' (given, or chosen by placement='auto').")
      .def_prop_ro("nodes", [](const ArrayHandle& self) { return node_set(*self.get()); },
                   "Logical nodes the placement uses (empty for os_default).")
      .def_prop_ro("replicas", [](const ArrayHandle& self) { return self.get()->replicas(); },
                   "Number of copies (one per node for replicated, else 1).")
      .def_prop_ro("nbytes", [](const ArrayHandle& self) { return self.get()->memory_bytes(); },
                   "Bytes of memory mapped by all replicas.")
      .def(
          "pages_per_node",
          [](const ArrayHandle& self) {
            const SharedArray array = self.get();
            nb::gil_scoped_release release;
            return array->pages_per_node();
          },
          "Pages of each replica on each kernel NUMA node: result[replica][node].")
      .def(
          "huge_page_bytes",
          [](const ArrayHandle& self, nb::handle replica) {
            const std::uint64_t r = unsigned_arg(replica, "replica");
            const SharedArray array = self.get();
            nb::gil_scoped_release release;
            return array->huge_page_bytes(r);
          },
          "replica"_a.none() = 0, nb::sig("def huge_page_bytes(self, replica: int = 0) -> int"), "Bytes of the replica the kernel backs with huge pages now (IndexError for a bad replica).")
      .def(
          "crc32c",
          [](const ArrayHandle& self, nb::handle replica) {
            const std::uint64_t r = unsigned_arg(replica, "replica");
            const SharedArray array = self.get();
            nb::gil_scoped_release release;
            return build::crc32c(*array, r);
          },
          "replica"_a.none() = 0, nb::sig("def crc32c(self, replica: int = 0) -> int"), "CRC32C (Castagnoli) of the replica's packed words (IndexError for a bad replica).")
      .def(
          "replicas_equal",
          [](const ArrayHandle& self) {
            const SharedArray array = self.get();
            nb::gil_scoped_release release;
            return build::replicas_equal(*array);
          },
          "Whether every replica holds the same packed words as replica 0.");
}

// Bulk writes and writable replicas (docs/python.md): copy_from, fill, a[i] = v, sync, write_mode.
void bind_writes(nb::class_<ArrayHandle>& cls) {
  cls.def_prop_ro("write_mode", [](const ArrayHandle& self) { return std::string(to_string(self.get()->write_mode())); },
                  "How a[i] = v reaches the replicas: 'write_through' (every replica) or 'primary' (replica 0, then sync()).")
      .def(
          "copy_from",
          [](const ArrayHandle& self, nb::handle source) {
            const SharedArray from = array_arg(source, "copy_from: source").get();
            const std::shared_ptr<SmartArray> array = self.writable();
            nb::gil_scoped_release release;
            build::copy_from(*array, *from);
          },
          "source"_a.none(), nb::sig("def copy_from(self, source: SmartArray) -> None"),
          "Makes every value equal source's (any bits and placements; ValueError for other lengths or a value too wide).")
      .def(
          "fill",
          [](const ArrayHandle& self, nb::handle value) {
            const std::uint64_t v = unsigned_arg(value, "fill: value");
            const std::shared_ptr<SmartArray> array = self.writable();
            nb::gil_scoped_release release;
            build::fill(*array, v);
          },
          "value"_a.none(), nb::sig("def fill(self, value: int) -> None"),
          "Sets every value to value (ValueError when it does not fit in the array's bits or in 0..2^64 - 1).")
      .def(
          "__setitem__",
          [](const ArrayHandle& self, nb::handle key, nb::handle value) {
            if (!PyIndex_Check(key.ptr())) {
              throw nb::type_error((std::string("SmartArray indices must be integers (use fill or copy_from for many "
                                                "values), got ") + nb::type_name(key.type()).c_str()).c_str());
            }
            const Py_ssize_t index = python_index(key);
            const std::uint64_t v = unsigned_arg(value, "value");
            const std::shared_ptr<SmartArray> array = self.writable();
            array->init(resolve_index(index, array->length()), v);
          },
          "index"_a.none(), "value"_a.none(), nb::sig("def __setitem__(self, index: int, value: int) -> None"),
          "Stores value at index (negative counts from the end): in every replica, or in replica 0 under write_mode 'primary'.")
      .def(
          "sync",
          [](const ArrayHandle& self) {
            const std::shared_ptr<SmartArray> array = self.writable();
            nb::gil_scoped_release release;
            build::sync(*array);
          },
          "Copies the groups written since the last sync from replica 0 to the other replicas (write_mode 'primary').");
}

// SmartArray's views and copies for numpy and DLPack, and its packed words.
void bind_exports(nb::class_<ArrayHandle>& cls) {
  cls.def(
          "to_numpy",
          [](const ArrayHandle& self) {
            const SharedArray array = self.get();  // keeps the memory mapped should another thread close()
            return decode_to_numpy(*array, 0, array->length());
          },
          "Every value decoded into a new uint64 ndarray.")
      .def("__array__", &to_array, "dtype"_a = nb::none(), "copy"_a = nb::none(),
           nb::sig("def __array__(self, dtype: numpy.typing.DTypeLike | None = None, copy: bool | None = None) "
                   "-> numpy.typing.NDArray[typing.Any]"),
           "NumPy conversion: a zero-copy read-only view for 64-bit arrays unless copy=True, else a decoded copy.")
      .def(
          "__dlpack__",
          [](const ArrayHandle& self, nb::kwargs kwargs) {
            return nb::cast(zero_copy_view<nb::array_api>(self.get())).attr("__dlpack__")(**kwargs);
          },
          nb::sig("def __dlpack__(self, *, stream: object = None, max_version: tuple[int, int] | None = None, "
                  "dl_device: tuple[int, int] | None = None, copy: bool | None = None) -> typing.Any"),
          "DLPack capsule of a read-only zero-copy view (64-bit arrays only).")
      .def(
          "__dlpack_device__",
          [](const ArrayHandle& self) {
            self.get();
            return nb::make_tuple(1, 0);
          },
          nb::sig("def __dlpack_device__(self) -> tuple[int, int]"), "DLPack device: (kDLCPU, 0).")
      .def(
          "words",
          [](const ArrayHandle& self, nb::handle replica) {
            const SharedArray array = self.get();
            return packed_words(array, replica.is_none() ? array->local_replica_index() : unsigned_arg(replica, "replica"));
          },
          "replica"_a.none() = nb::none(),
          nb::sig("def words(self, replica: int | None = None) -> numpy.typing.NDArray[numpy.uint64]"),
          "Read-only zero-copy view of a replica's packed words (docs/bit-layout.md); default: the local one.");
}

// SmartArray's reads: indexing, sum, unpack into an ndarray, batched iteration, repr.
void bind_reads(nb::class_<ArrayHandle>& cls) {
  cls.def("__getitem__", &getitem, "key"_a.none(),
           "Value at an int index (checked, negative from the end), or an ndarray for a slice or integer array.")
      .def(
          "sum",
          [](const ArrayHandle& self) {
            const SharedArray array = self.get();
            nb::gil_scoped_release release;
            return array->sum();
          },
          "Wrapping uint64 sum of every value (fused decode and add, GIL released).")
      .def(
          "unpack",
          [](const ArrayHandle& self, nb::handle first, nb::object out) {
            const SharedArray array = self.get();
            const Py_ssize_t start = python_index(first);
            U64Out target;
            if (!nb::try_cast<U64Out>(out, target, false)) {
              throw nb::type_error("out must be a writable, C-contiguous, 1-D numpy uint64 array");
            }
            if (start < 0) throw_index_error(start, array->length());
            {
              nb::gil_scoped_release release;
              array->decode(static_cast<std::uint64_t>(start), target.shape(0), target.data());
            }
            return out;
          },
          "start"_a.none(), "out"_a.none(),
          nb::sig("def unpack(self, start: int, out: numpy.typing.NDArray[numpy.uint64]) -> "
                  "numpy.typing.NDArray[numpy.uint64]"),
          "Decodes values [start, start + len(out)) into out (GIL released); returns out.")
      .def(
          "iter_chunks",
          [](nb::object self, nb::handle chunk) {
            nb::cast<const ArrayHandle&>(self).get();
            const std::uint64_t size = unsigned_arg(chunk, "iter_chunks: size");
            if (size == 0) throw nb::value_error("iter_chunks size must be at least 1");
            return ChunkIterator(std::move(self), size);
          },
          "size"_a.none() = 65536, nb::sig("def iter_chunks(self, size: int = 65536) -> ChunkIterator"),
          "Iterates over the values in decoded batches of size (the last may be shorter).")
      .def("__repr__", &repr, "Length, bits and placement.");
}

void bind_array(nb::module_& m) {
  nb::class_<ChunkIterator>(m, "ChunkIterator", "Iterator over a SmartArray in batches of decoded values.")
      .def("__iter__", [](nb::handle self) { return self; }, nb::sig("def __iter__(self) -> ChunkIterator"),
           "Returns the iterator itself.")
      .def("__next__", &ChunkIterator::next, "The next batch as a uint64 ndarray.");

  nb::class_<ArrayHandle> cls(m, "SmartArray", nb::type_slots(array_slots), nb::is_weak_referenceable(), nb::dynamic_attr(),
                              "A NUMA-placed, bit-compressed array of unsigned 64-bit values; make one with "
                              "smartarrays.array().");
  bind_closeable(cls, "SmartArray", "Releases the memory (once no zero-copy view uses it); idempotent.");
  bind_metadata(cls);
  bind_writes(cls);
  bind_exports(cls);
  bind_reads(cls);

  m.def("_from_u64", &from_u64, "values"_a.noconvert(), "bits"_a, "placement"_a, "nodes"_a, "huge_pages"_a, "write_mode"_a,
        "A SmartArray holding a contiguous uint64 array (bits 0 = the fewest that hold the data).");
  m.def("_auto_from_u64", &auto_from<U64In, std::uint64_t>, "values"_a.noconvert(), "bits"_a, "auto_bits"_a,
        "placement"_a, "nodes"_a, "huge_pages"_a, "read_only"_a, "pattern"_a, "passes"_a, "threads"_a, "write_mode"_a,
        "A SmartArray whose placement ('auto') and/or bits (auto_bits) the adaptive layer chooses, and the "
        "decision as JSON.");
  m.def("_auto_from_u32", &auto_from<U32In, std::uint32_t>, "values"_a.noconvert(), "bits"_a, "auto_bits"_a,
        "placement"_a, "nodes"_a, "huge_pages"_a, "read_only"_a, "pattern"_a, "passes"_a, "threads"_a, "write_mode"_a,
        "_auto_from_u64 over a contiguous uint32 array.");
  m.def(
      "_aggregate",
      [](const ArrayHandle& a1, const ArrayHandle& a2) {
        const SharedArray first = a1.get();
        const SharedArray second = a2.get();
        nb::gil_scoped_release release;
        return algo::aggregate(*first, *second);
      },
      "a1"_a, "a2"_a, "Wrapping sum over i of a1[i] + a2[i] (paper 5.1), in parallel with the GIL released.");
  m.def("_from_u32", &from_u32, "values"_a.noconvert(), "bits"_a, "placement"_a, "nodes"_a, "huge_pages"_a, "write_mode"_a,
        "A SmartArray holding a contiguous uint32 array, without a widened copy.");
  bind_live_array(m);
}

}  // namespace smartarrays::python
