// Owns placed buffers (buffer.hpp): one region planned like a one-replica array's.
#include "smartarrays/array/buffer.hpp"

#include "array/region_plan.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays {

os::MemoryRegion allocate_buffer(std::size_t bytes, const ArrayOptions& options) {
  if (bytes == 0) throw_error(ErrorCode::invalid_argument, "a buffer needs at least 1 byte");
  if (options.placement == Placement::replicated) {
    throw_error(ErrorCode::invalid_argument,
                "a buffer has one copy: placement replicated is for smart arrays (use interleaved or partitioned)");
  }
  ArrayOptions placement_only = options;
  placement_only.auto_bits = false;  // a buffer has no values to compress
  const detail::RegionPlan plan = detail::plan_regions(placement_only);
  return os::MemoryRegion::allocate(bytes, plan.regions.front());
}

}  // namespace smartarrays
