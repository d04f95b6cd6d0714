// Owns the C ABI's entry points of the array workloads (the paper's aggregation): argument checks
// and translation to the algo layer, so other languages can time the C++-driven loop in-process.
#include <cstdint>

#include "capi/guard.hpp"
#include "capi/handles.hpp"
#include "smartarrays.h"
#include "smartarrays/algo/aggregate.hpp"

extern "C" {

sa_status sa_array_aggregate(const sa_array* a1, const sa_array* a2, uint64_t* sum) {
  return smartarrays::capi::guarded(__func__, [&] {
    smartarrays::capi::require(a1, "a1");
    smartarrays::capi::require(a2, "a2");
    smartarrays::capi::require(sum, "sum");
    *sum = smartarrays::algo::aggregate(*a1->array, *a2->array);
  });
}

}  // extern "C"
