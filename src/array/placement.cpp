// Owns the names of the placements and access patterns (for the command line, JSON reports and bindings).
#include <string_view>

#include "smartarrays/array/options.hpp"
#include "smartarrays/util/names.hpp"

namespace smartarrays {

namespace {
constexpr util::NameTable<Placement, 5> placement_names{
    "placement",
    {{{Placement::os_default, "os_default"},
      {Placement::single_node, "single_node"},
      {Placement::interleaved, "interleaved"},
      {Placement::replicated, "replicated"},
      {Placement::partitioned, "partitioned"}}}};

constexpr util::NameTable<AccessPattern, 3> pattern_names{
    "access pattern",
    {{{AccessPattern::sequential, "sequential"}, {AccessPattern::random, "random"}, {AccessPattern::indexed, "indexed"}}}};
}  // namespace

const char* to_string(Placement placement) noexcept { return placement_names.c_name(placement); }

Placement parse_placement(std::string_view name) { return placement_names.parse(name); }

}  // namespace smartarrays

namespace smartarrays {

const char* to_string(AccessPattern pattern) noexcept { return pattern_names.c_name(pattern); }

AccessPattern parse_access_pattern(std::string_view name) { return pattern_names.parse(name); }

}  // namespace smartarrays
