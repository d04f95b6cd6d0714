// Owns the kernel's CPU list syntax ("0-3,8,10-11"), shared by sysfs cpulist files and the fake
// topology spec.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace smartarrays::os {

/// Parses a CPU list (or a node list, in the same syntax, named noun in messages); "" (or only
/// whitespace) is the empty list. Throws Error(invalid_argument) naming the bad item. The result is
/// ascending without duplicates.
std::vector<int> parse_cpu_list(std::string_view text, std::string_view noun = "cpu list");

/// Formats ascending CPUs as a CPU list with ranges ("0-3,8"); "" for no CPUs.
std::string format_cpu_list(const std::vector<int>& cpus);

}  // namespace smartarrays::os
