// Owns what the binding's source files share: the nanobind namespace alias, the handle behind a
// Python SmartArray, argument translation into ArrayOptions, the hand-over of decoded values to
// numpy, and the registration functions each file provides to the module.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "smartarrays/array/smart_array.hpp"

namespace smartarrays::python {

namespace nb = nanobind;

/// A 1-D uint64 numpy array that owns its buffer.
using U64Array = nb::ndarray<nb::numpy, std::uint64_t, nb::ndim<1>>;
/// A read-only, contiguous 1-D uint64 input array (never converted from another dtype).
using U64In = nb::ndarray<const std::uint64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

/// A core array shared by its Python handle, running kernels and zero-copy views.
using SharedArray = std::shared_ptr<const SmartArray>;

/// The object behind a Python SmartArray: the core array until close().
class ArrayHandle {
 public:
  /// Takes over array.
  explicit ArrayHandle(SmartArray array) : array_(std::make_shared<const SmartArray>(std::move(array))) {}
  /// Shares an array owned elsewhere (e.g. one array of a graph, which the pointer keeps alive).
  explicit ArrayHandle(SharedArray array) : array_(std::move(array)) {}

  /// The array; raises ValueError once closed (as Python files do).
  const SharedArray& get() const {
    if (!array_) throw nb::value_error("operation on a closed SmartArray");
    return array_;
  }
  /// Drops this handle's reference; views and running kernels keep the memory until they finish.
  void close() noexcept { array_.reset(); }
  /// True after close().
  bool closed() const noexcept { return !array_; }

 private:
  SharedArray array_;
};

/// ArrayOptions from the Python arguments: a placement name, its nodes (single_node takes at most
/// one, the default node 0), bits (0 = the fewest that hold the data) and huge pages.
ArrayOptions make_options(unsigned bits, std::string_view placement, std::vector<int> nodes, bool huge_pages);

/// A new, uninitialised uint64 numpy array of n values (numpy's allocator, so its huge-page
/// advice applies), to be filled without the GIL through data().
U64Array new_numpy_array(std::uint64_t n);
/// Values [start, start + count) of array decoded, with the GIL released, into a new numpy array.
U64Array decode_to_numpy(const SmartArray& array, std::uint64_t start, std::uint64_t count);

/// Registers smartarrays::Error -> ValueError / IndexError / MemoryError / OSError / ... translation.
void bind_errors(nb::module_& m);
/// Registers the SmartArray class and the array constructors.
void bind_array(nb::module_& m);
/// Registers the topology queries and the fake-topology switch.
void bind_topology(nb::module_& m);
/// Registers the graph class, its constructors and its analytics.
void bind_graph(nb::module_& m);

}  // namespace smartarrays::python
