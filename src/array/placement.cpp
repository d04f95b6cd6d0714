// Owns the names of the placements, access patterns and write modes (for the command line, JSON reports and bindings).
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

constexpr util::NameTable<WriteMode, 2> write_mode_names{
    "write mode", {{{WriteMode::write_through, "write_through"}, {WriteMode::primary, "primary"}}}};
}  // namespace

const char* to_string(Placement placement) noexcept { return placement_names.c_name(placement); }

Placement parse_placement(std::string_view name) { return placement_names.parse(name); }

}  // namespace smartarrays

namespace smartarrays {

const char* to_string(AccessPattern pattern) noexcept { return pattern_names.c_name(pattern); }

AccessPattern parse_access_pattern(std::string_view name) { return pattern_names.parse(name); }

}  // namespace smartarrays

namespace smartarrays {

const char* to_string(WriteMode mode) noexcept { return write_mode_names.c_name(mode); }

WriteMode parse_write_mode(std::string_view name) { return write_mode_names.parse(name); }

}  // namespace smartarrays
