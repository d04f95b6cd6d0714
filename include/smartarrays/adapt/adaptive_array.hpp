// Owns placement "auto" and bits "auto" for single arrays: the options resolved by the decision
// for the array's length, largest value and access hints, and arrays made with them.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "smartarrays/adapt/decision.hpp"
#include "smartarrays/adapt/machine_profile.hpp"
#include "smartarrays/array/options.hpp"
#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/export.hpp"

namespace smartarrays::adapt {

/// Options with auto resolved, and the decision behind them (none when nothing was auto).
struct ResolvedOptions {
  ArrayOptions options;             ///< what SmartArray gets: no auto left
  std::optional<Decision> decision; ///< why
};

/// Resolves options.auto_placement (placement, node and huge pages) and options.auto_bits (width)
/// for an array of length values whose largest is largest, read as options.hints say, on machine.
/// Explicit bits (1..64, or 0 = the fewest) are kept and only placement is chosen. Throws
/// Error(invalid_argument) for bad hints (passes not > 0), a value wider than explicit bits, or a
/// node set or a huge-page mode other than automatic with auto_placement (which chooses them).
SMARTARRAYS_API ResolvedOptions resolve(const ArrayOptions& options, std::uint64_t length, std::uint64_t largest,
                                        const MachineProfile& machine);
/// resolve on current_machine_profile().
SMARTARRAYS_API ResolvedOptions resolve(const ArrayOptions& options, std::uint64_t length, std::uint64_t largest);

/// An array and the decision that configured it.
struct AdaptiveArray {
  SmartArray array;                  ///< the array; array.options() are the chosen options
  std::optional<Decision> decision;  ///< the decision (none when nothing was auto)
};

/// SmartArray::from_values with auto options resolved first (on current_machine_profile()).
SMARTARRAYS_API AdaptiveArray make_array(std::span<const std::uint64_t> values, const ArrayOptions& options);
/// The same over 32-bit values.
SMARTARRAYS_API AdaptiveArray make_array(std::span<const std::uint32_t> values, const ArrayOptions& options);

/// Hints from a comma-separated list of read_only=true|false, pattern=sequential|random|indexed,
/// passes=X, threads=N over base, e.g. "read_only=true,pattern=random,passes=20". Throws
/// Error(invalid_argument) naming the bad item.
SMARTARRAYS_API AccessHints parse_hints(std::string_view list, AccessHints base = {});

/// Checks hints: passes finite and > 0, threads <= 4096; Error(invalid_argument) naming the hint.
SMARTARRAYS_API void validate(const AccessHints& hints);

}  // namespace smartarrays::adapt
