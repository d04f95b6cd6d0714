// Owns the sa_options translation and the check that its layout is the one the bindings assume.
#include "capi/options.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "capi/guard.hpp"

namespace smartarrays::capi {

// The Java and Python bindings lay this struct out by hand; its shape is part of the ABI.
static_assert(sizeof(sa_placement) == 4);
static_assert(offsetof(sa_options, placement) == 0 && offsetof(sa_options, node) == 4 &&
              offsetof(sa_options, bits) == 8 && offsetof(sa_options, huge_pages) == 12 &&
              offsetof(sa_options, nodes) == 16 && offsetof(sa_options, node_count) == 24 &&
              sizeof(sa_options) == 32);

ArrayOptions to_array_options(const sa_options* o, const char* prefix) {
  ArrayOptions options;
  if (o == nullptr) return options;
  // A C caller may store any int in the enum; in C++ loading one outside the enumerators is
  // undefined, so the raw bits are read instead.
  std::int32_t placement = 0;
  std::memcpy(&placement, &o->placement, sizeof placement);
  if (placement < SA_OS_DEFAULT || placement > SA_PARTITIONED) {
    throw_error(ErrorCode::invalid_argument,
                std::string(prefix) + "placement " + std::to_string(placement) + " is not an sa_placement (0..4)");
  }
  options.placement = static_cast<Placement>(placement);
  options.node = o->node;
  options.bits = o->bits;
  options.huge_pages = o->huge_pages != 0;
  if (o->node_count > 0) {
    require(o->nodes, (std::string(prefix) + "nodes (with node_count > 0)").c_str());
    options.nodes.assign(o->nodes, o->nodes + o->node_count);
  }
  return options;
}

}  // namespace smartarrays::capi
