// Owns resolving auto options for one array and making arrays with them.
#include "smartarrays/adapt/adaptive_array.hpp"

#include <cmath>
#include <cstdlib>
#include <string>

#include "smartarrays/adapt/calibrate.hpp"
#include "smartarrays/adapt/workload.hpp"
#include "smartarrays/codec/kernels.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::adapt {

namespace {

template <typename T>
AdaptiveArray make(std::span<const T> values, const ArrayOptions& options) {
  std::uint64_t largest = 0;
  for (T v : values) largest = std::max<std::uint64_t>(largest, v);
  ResolvedOptions resolved = resolve(options, values.size(), largest);
  return {SmartArray::from_values(values, resolved.options), std::move(resolved.decision)};
}

bool parse_bool(std::string_view item, std::string_view text) {
  if (text == "true" || text == "1" || text == "yes") return true;
  if (text == "false" || text == "0" || text == "no") return false;
  throw_error(ErrorCode::invalid_argument, "hint " + util::quoted(item) + ": read_only must be true or false");
}

// Placement "auto" chooses the nodes and the huge pages with the placement (docs/adaptivity.md): a
// node set or a huge-page mode given with it would be dropped, so it is refused, as the array
// refuses a node set its placement does not use.
void check_auto_placement(const ArrayOptions& options) {
  if (!options.auto_placement) return;
  if (!options.nodes.empty()) {
    std::string message = "options.nodes (";
    for (std::size_t i = 0; i < options.nodes.size(); ++i) {
      message.append(i == 0 ? "" : ",").append(std::to_string(options.nodes[i]));
    }
    message.append(") applies only to an explicit placement: placement 'auto' chooses the nodes");
    throw_error(ErrorCode::invalid_argument, message);
  }
  if (options.huge_pages != HugePages::automatic) {
    throw_error(ErrorCode::invalid_argument, std::string("options.huge_pages '") + os::to_string(options.huge_pages) +
                                                 "' applies only to an explicit placement: placement 'auto' chooses huge "
                                                 "pages (leave huge_pages 'auto')");
  }
}

}  // namespace

AccessHints parse_hints(std::string_view list, AccessHints hints) {
  std::size_t at = 0;
  while (at <= list.size()) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    const std::string_view item = list.substr(at, comma - at);
    at = comma + 1;
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      throw_error(ErrorCode::invalid_argument,
                  "hint " + util::quoted(item) + ": expected NAME=VALUE (read_only, pattern, passes, threads)");
    }
    const std::string_view name = item.substr(0, eq), value = item.substr(eq + 1);
    if (name == "read_only") {
      hints.read_only = parse_bool(item, value);
    } else if (name == "pattern") {
      hints.pattern = parse_access_pattern(value);
    } else if (name == "passes") {
      const std::string text(value);
      char* end = nullptr;
      const double passes = std::strtod(text.c_str(), &end);
      if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(passes) || !(passes > 0)) {
        throw_error(ErrorCode::invalid_argument, "hint " + util::quoted(item) + ": passes must be a number > 0");
      }
      hints.passes = passes;
    } else if (name == "threads") {
      const std::string text(value);
      char* end = nullptr;
      const unsigned long threads = std::strtoul(text.c_str(), &end, 10);
      if (text.empty() || text[0] == '-' || end != text.c_str() + text.size() || threads > 4096) {
        throw_error(ErrorCode::invalid_argument, "hint " + util::quoted(item) + ": threads must be 0..4096");
      }
      hints.threads = static_cast<unsigned>(threads);
    } else {
      throw_error(ErrorCode::invalid_argument,
                  "unknown hint " + util::quoted(name) + " (expected one of: read_only, pattern, passes, threads)");
    }
    if (comma == list.size()) break;
  }
  return hints;
}

void validate(const AccessHints& hints) {
  if (!std::isfinite(hints.passes) || !(hints.passes > 0)) {
    throw_error(ErrorCode::invalid_argument, "hints.passes must be a finite number > 0, got " + std::to_string(hints.passes));
  }
  if (hints.threads > 4096) {
    throw_error(ErrorCode::invalid_argument, "hints.threads must be 0..4096, got " + std::to_string(hints.threads));
  }
  if (static_cast<int>(hints.pattern) < 0 || static_cast<int>(hints.pattern) > 2) {
    throw_error(ErrorCode::invalid_argument,
                "hints.pattern " + std::to_string(static_cast<int>(hints.pattern)) + " is not an access pattern (0..2)");
  }
}

ResolvedOptions resolve(const ArrayOptions& options, std::uint64_t length, std::uint64_t largest,
                        const MachineProfile& machine) {
  validate(options.hints);
  check_auto_placement(options);
  ResolvedOptions out;
  out.options = options;
  out.options.auto_placement = false;
  out.options.auto_bits = false;
  if (!options.auto_placement && !options.auto_bits) return out;
  const unsigned fewest = bits_for(largest);
  if (!options.auto_bits && options.bits != 0 && (options.bits > 64 || fewest > options.bits)) {
    throw_error(ErrorCode::invalid_argument, "largest value " + std::to_string(largest) + " needs " +
                                                 std::to_string(fewest) + " bits, options.bits is " +
                                                 std::to_string(options.bits));
  }
  WorkloadProfile workload = array_workload(length, fewest, options.hints);
  if (!options.auto_bits) {
    const unsigned fixed = options.bits == 0 ? fewest : options.bits;
    workload.arrays[0].value_bits = fixed;
    workload.arrays[0].natural_bits = fixed;
  }
  Decision decision = decide(machine, workload);
  const ArrayConfig& choice = decision.arrays[0].choice;
  if (options.auto_bits) out.options.bits = choice.bits;
  if (options.auto_placement) {
    out.options.placement = choice.placement;
    out.options.node = choice.node;
    out.options.huge_pages = choice.huge_page_mode();
  }
  out.decision = std::move(decision);
  return out;
}

ResolvedOptions resolve(const ArrayOptions& options, std::uint64_t length, std::uint64_t largest) {
  return resolve(options, length, largest, current_machine_profile());
}

AdaptiveArray make_array(std::span<const std::uint64_t> values, const ArrayOptions& options) { return make(values, options); }

AdaptiveArray make_array(std::span<const std::uint32_t> values, const ArrayOptions& options) { return make(values, options); }

}  // namespace smartarrays::adapt
