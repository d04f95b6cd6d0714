// Owns the names of the placements (for the command line, JSON reports and bindings).
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
}  // namespace

const char* to_string(Placement placement) noexcept { return placement_names.c_name(placement); }

Placement parse_placement(std::string_view name) { return placement_names.parse(name); }

}  // namespace smartarrays
