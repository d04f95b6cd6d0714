// Owns the C ABI entry points added for the Java binding's parallel loops (the "Java binding
// support" section of smartarrays.h): argument checks and translation to runtime:: only.
#include <cstddef>

#include "capi/guard.hpp"
#include "smartarrays.h"
#include "smartarrays/runtime/thread_pool.hpp"

using smartarrays::capi::guarded;
using smartarrays::capi::require;

extern "C" {

sa_status sa_runtime_worker_nodes(int32_t* nodes, uint32_t max, uint32_t* count) {
  return guarded(__func__, [&] {
    const smartarrays::runtime::ThreadPool& pool = smartarrays::runtime::default_pool();
    if (max > 0) require(nodes, "nodes (with max > 0)");
    require(count, "count");
    for (std::size_t w = 0; w < pool.size() && w < max; ++w) nodes[w] = pool.worker_node(w);
    *count = static_cast<uint32_t>(pool.size());
  });
}

}  // extern "C"
