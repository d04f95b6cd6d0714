// Owns the translation of the C ABI's sa_options into ArrayOptions, shared by every entry point
// that takes one (arrays, and the arrays of a graph).
#pragma once

#include "smartarrays.h"
#include "smartarrays/array/options.hpp"

namespace smartarrays::capi {

/// The ArrayOptions o asks for (defaults for NULL); prefix ("options->", "options->arrays.") names
/// its fields in errors. Throws Error(invalid_argument) for a placement outside sa_placement or a
/// NULL node set.
ArrayOptions to_array_options(const sa_options* o, const char* prefix);

}  // namespace smartarrays::capi
