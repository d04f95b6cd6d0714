// Owns how a loop over an array's replicas is laid out (see replica_loop.hpp).
#include "build/replica_loop.hpp"

#include <string>

#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays::build::detail {

ReplicaParts replica_parts(const SmartArray& array, std::size_t first, std::size_t last, runtime::LoopOptions options) {
  if (first >= last || last > array.replicas()) {
    throw_error(ErrorCode::out_of_range, "replicas [" + std::to_string(first) + ", " + std::to_string(last) +
                                             ") out of range for " + std::to_string(array.replicas()) + " replicas");
  }
  ReplicaParts plan;
  const std::uint64_t length = array.length();
  // Each replica's stretch starts on an aligned index, so aligned batches stay aligned in replica
  // indices too. The array exists, so length and the stretches fit in 64 bits.
  plan.stretch = (length + options.alignment - 1) / options.alignment * options.alignment;
  if (array.replicas() > 1) {
    for (std::size_t r = first; r < last; ++r) {
      const int node = array.replica_node(r);
      const std::uint64_t begin = (r - first) * plan.stretch;
      plan.parts.push_back({node < 0 ? 0 : node, begin, begin + length});
    }
    options.steal = false;
  } else if (options.layout.empty()) {
    // A partitioned array's stripes go to their own nodes' queues first (stealing stays on), unless
    // the caller laid the loop out by other data.
    options.layout = stripe_parts(array);
  }
  plan.options = std::move(options);
  return plan;
}

}  // namespace smartarrays::build::detail
