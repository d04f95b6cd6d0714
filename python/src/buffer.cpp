// Owns the Python side of placed buffers (smartarrays/array/buffer.hpp): the PlacedBuffer object
// that owns the core's memory region, exports it through the buffer protocol (writable bytes, the
// base of the numpy array allocate_buffer makes) and reports its pages.
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "binding.hpp"
#include "smartarrays/array/buffer.hpp"

namespace smartarrays::python {

namespace {

using namespace nb::literals;

/// A placed buffer: the memory region, freed when the last numpy view of it goes.
struct PlacedBuffer {
  os::MemoryRegion region;
};

// The buffer protocol: the region's bytes, writable (numpy.ndarray(buffer=...) makes the typed view).
int get_buffer(PyObject* self, Py_buffer* view, int flags) noexcept {
  view->obj = nullptr;
  // PlacedBuffer.__new__ alone makes an instance no constructor filled: no region to share.
  if (!nb::inst_ready(self)) {
    PyErr_SetString(PyExc_TypeError, "a PlacedBuffer not made by smartarrays.allocate_buffer has no memory to share");
    return -1;
  }
  const PlacedBuffer* buffer = nb::inst_ptr<PlacedBuffer>(self);
  return PyBuffer_FillInfo(view, self, buffer->region.data(), static_cast<Py_ssize_t>(buffer->region.size()), 0, flags);
}

PyType_Slot buffer_slots[] = {
    {Py_bf_getbuffer, reinterpret_cast<void*>(get_buffer)},
    {0, nullptr},
};

PlacedBuffer allocate(std::uint64_t bytes, std::string_view placement, std::vector<int> nodes, std::string_view huge_pages) {
  const ArrayOptions options = make_options(64, placement, std::move(nodes), huge_pages);
  nb::gil_scoped_release release;
  return PlacedBuffer{allocate_buffer(static_cast<std::size_t>(bytes), options)};
}

}  // namespace

void bind_buffer(nb::module_& m) {
  nb::class_<PlacedBuffer>(m, "PlacedBuffer", nb::type_slots(buffer_slots),
                           "Memory the core placed (the base of an allocate_buffer array); freed with its last view.")
      .def_prop_ro("bytes", [](const PlacedBuffer& self) { return static_cast<std::uint64_t>(self.region.size()); },
                   "The size in bytes, as asked.")
      .def_prop_ro("huge_page_bytes", [](const PlacedBuffer& self) { return self.region.huge_page_bytes(); },
                   "Bytes of the buffer the kernel backs with huge pages now.")
      .def_prop_ro("pages_per_node", [](const PlacedBuffer& self) { return self.region.pages_per_node(); },
                   "Pages of the buffer on each kernel node (index = kernel node id).");
  m.def("_allocate_buffer", &allocate, "bytes"_a, "placement"_a, "nodes"_a, "huge_pages"_a);
}

}  // namespace smartarrays::python
