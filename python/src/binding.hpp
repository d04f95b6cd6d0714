// Owns what the binding's source files share: the nanobind namespace alias, the registration
// functions each file provides to the module, and the helper that hands decoded values to Python.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <memory>

namespace smartarrays::python {

namespace nb = nanobind;

/// A 1-D uint64 numpy array that owns its buffer.
using U64Array = nb::ndarray<nb::numpy, std::uint64_t, nb::ndim<1>>;

/// Uninitialised storage for n values: filled without the GIL, then handed to to_numpy().
std::unique_ptr<std::uint64_t[]> new_values(std::uint64_t n);
/// A numpy array of n values that takes over values (freed when the array dies).
U64Array to_numpy(std::unique_ptr<std::uint64_t[]> values, std::uint64_t n);

/// Registers smartarrays::Error -> ValueError / IndexError / MemoryError / OSError / ... translation.
void bind_errors(nb::module_& m);
/// Registers the SmartArray class and the array constructors.
void bind_array(nb::module_& m);
/// Registers the topology queries and the fake-topology switch.
void bind_topology(nb::module_& m);

}  // namespace smartarrays::python
