// Owns the translation of the C ABI's sa_options into ArrayOptions, shared by every entry point
// that takes one (arrays, and the arrays of a graph).
#pragma once

#include "smartarrays.h"
#include "smartarrays/array/options.hpp"

namespace smartarrays::capi {

/// Whether an entry point takes SA_AUTO / SA_BITS_AUTO: only those that make an array from its values.
enum class AutoOptions { refused, taken };

/// The ArrayOptions o asks for (defaults for NULL); prefix ("options->", "options->arrays.") names
/// its fields in errors. Throws Error(invalid_argument) for a placement outside sa_placement, a NULL
/// node set, or SA_AUTO / SA_BITS_AUTO where they are refused, in the C ABI's terms.
ArrayOptions to_array_options(const sa_options* o, const char* prefix, AutoOptions autos = AutoOptions::refused);

}  // namespace smartarrays::capi
