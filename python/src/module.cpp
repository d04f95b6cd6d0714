// Owns the extension module smartarrays._core: its version, the translation of core errors into
// the Python exceptions users expect, and the numpy hand-over of decoded values.
#include <exception>
#include <new>

#include "binding.hpp"
#include "smartarrays.h"
#include "smartarrays/error.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::python {

U64Array new_numpy_array(std::uint64_t n) {
  using namespace nb::literals;
  return nb::cast<U64Array>(nb::module_::import_("numpy").attr("empty")(n, "dtype"_a = "uint64"));
}

// Every message is made printable first (util::printable, as the command prints them and the C ABI
// records them): PyErr_SetString decodes UTF-8 and stops at a NUL, so a raw byte from a path or a
// file would raise UnicodeDecodeError instead, or cut the message. Exceptions other than Error are
// the library's bugs, as in the C ABI (SA_EINTERNAL): RuntimeError, or MemoryError for bad_alloc.
void bind_errors(nb::module_&) {
  nb::register_exception_translator([](const std::exception_ptr& error, void*) {
    try {
      std::rethrow_exception(error);
    } catch (const Error& e) {
      PyObject* type = PyExc_RuntimeError;
      switch (e.code()) {
        case ErrorCode::invalid_argument: type = PyExc_ValueError; break;
        case ErrorCode::out_of_range: type = PyExc_IndexError; break;
        case ErrorCode::out_of_memory: type = PyExc_MemoryError; break;
        case ErrorCode::os_error: type = PyExc_OSError; break;
        case ErrorCode::unsupported: type = PyExc_NotImplementedError; break;
        case ErrorCode::cancelled:
        case ErrorCode::internal: type = PyExc_RuntimeError; break;
      }
      PyErr_SetString(type, util::printable(e.message()).c_str());
    } catch (const std::bad_alloc& e) {
      PyErr_SetString(PyExc_MemoryError, e.what());
    } catch (const std::exception& e) {
      PyErr_SetString(PyExc_RuntimeError, util::printable(e.what()).c_str());
    }
  });
}

}  // namespace smartarrays::python

NB_MODULE(_core, m) {
  namespace py = smartarrays::python;
  m.doc() = "Native core of smartarrays: NUMA-placed, bit-compressed arrays (use the smartarrays package).";
  m.attr("__version__") = sa_version();
  py::bind_errors(m);
  py::bind_array(m);
  py::bind_buffer(m);
  py::bind_topology(m);
  py::bind_graph(m);
  py::bind_store(m);
  py::bind_distributed(m);
  py::bind_collections(m);
  py::bind_tune(m);
}
