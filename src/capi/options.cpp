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
              offsetof(sa_options, hints) == 32 && offsetof(sa_options, write_mode) == 56 && sizeof(sa_options) == 64);
static_assert(offsetof(sa_hints, read_only) == 0 && offsetof(sa_hints, pattern) == 4 && offsetof(sa_hints, passes) == 8 &&
              offsetof(sa_hints, threads) == 16 && sizeof(sa_hints) == 24);

ArrayOptions to_array_options(const sa_options* o, const char* prefix, AutoOptions autos) {
  ArrayOptions options;
  if (o == nullptr) return options;
  // A C caller may store any int in the enum; in C++ loading one outside the enumerators is
  // undefined, so the raw bits are read instead.
  std::int32_t placement = 0;
  std::memcpy(&placement, &o->placement, sizeof placement);
  if (placement < SA_OS_DEFAULT || placement > SA_AUTO) {
    throw_error(ErrorCode::invalid_argument,
                std::string(prefix) + "placement " + std::to_string(placement) + " is not an sa_placement (0..5)");
  }
  options.auto_placement = placement == SA_AUTO;
  options.placement = options.auto_placement ? Placement::os_default : static_cast<Placement>(placement);
  options.node = o->node;
  options.auto_bits = o->bits == SA_BITS_AUTO;
  options.bits = options.auto_bits ? 0 : o->bits;
  if (autos == AutoOptions::refused && (options.auto_placement || options.auto_bits)) {
    throw_error(ErrorCode::invalid_argument, std::string(prefix) +
                                                 (options.auto_placement ? "placement SA_AUTO" : "bits SA_BITS_AUTO") +
                                                 " is chosen from an array's values: only sa_array_from_u64 and "
                                                 "sa_array_from_u32 take it");
  }
  std::int32_t pattern = 0;
  std::memcpy(&pattern, &o->hints.pattern, sizeof pattern);
  if (pattern < SA_SEQUENTIAL || pattern > SA_INDEXED) {
    throw_error(ErrorCode::invalid_argument,
                std::string(prefix) + "hints.pattern " + std::to_string(pattern) + " is not an sa_access_pattern (0..2)");
  }
  options.hints.read_only = o->hints.read_only != 0;
  options.hints.pattern = static_cast<AccessPattern>(pattern);
  options.hints.passes = o->hints.passes;
  options.hints.threads = o->hints.threads;
  if (!(o->hints.passes > 0) || o->hints.passes != o->hints.passes || o->hints.passes > 1e300) {
    throw_error(ErrorCode::invalid_argument,
                std::string(prefix) + "hints.passes must be a finite number > 0, got " + std::to_string(o->hints.passes));
  }
  if (o->huge_pages < SA_HUGE_PAGES_OFF || o->huge_pages > SA_HUGE_PAGES_1G) {
    throw_error(ErrorCode::invalid_argument, std::string(prefix) + "huge_pages " + std::to_string(o->huge_pages) +
                                                 " is not an sa_huge_pages (0..4: off, on, auto, 2M, 1G)");
  }
  options.huge_pages = static_cast<HugePages>(o->huge_pages);
  if (o->write_mode < SA_WRITE_THROUGH || o->write_mode > SA_WRITE_PRIMARY) {
    throw_error(ErrorCode::invalid_argument, std::string(prefix) + "write_mode " + std::to_string(o->write_mode) +
                                                 " is not an sa_write_mode (0..1: write-through, primary)");
  }
  options.write_mode = static_cast<WriteMode>(o->write_mode);
  if (o->node_count > 0) {
    require(o->nodes, (std::string(prefix) + "nodes (with node_count > 0)").c_str());
    options.nodes.assign(o->nodes, o->nodes + o->node_count);
  }
  return options;
}

}  // namespace smartarrays::capi
