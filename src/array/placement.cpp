// Owns the names of the placements (for the command line, JSON reports and bindings).
#include <array>
#include <string>
#include <string_view>

#include "smartarrays/array/options.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays {

namespace {
constexpr std::array<Placement, 5> all_placements = {Placement::os_default, Placement::single_node,
                                                     Placement::interleaved, Placement::replicated,
                                                     Placement::partitioned};
}  // namespace

const char* to_string(Placement placement) noexcept {
  switch (placement) {
    case Placement::os_default: return "os_default";
    case Placement::single_node: return "single_node";
    case Placement::interleaved: return "interleaved";
    case Placement::replicated: return "replicated";
    case Placement::partitioned: return "partitioned";
  }
  // A value cast from a bad integer (e.g. through the C ABI) must still print something.
  return "invalid";
}

Placement parse_placement(std::string_view name) {
  std::string valid;
  for (Placement p : all_placements) {
    if (name == to_string(p)) return p;
    valid += valid.empty() ? "" : ", ";
    valid += to_string(p);
  }
  throw_error(ErrorCode::invalid_argument, "unknown placement '" + std::string(name) + "' (expected one of " + valid + ")");
}

}  // namespace smartarrays
