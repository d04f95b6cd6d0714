// Owns parsing and formatting of the kernel's CPU list syntax.
#include "os/cpu_list.hpp"

#include <algorithm>
#include <charconv>
#include <string>

#include "smartarrays/error.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::os {
namespace {

// The kernel caps CPU ids far below this; the cap keeps a typo from allocating a huge table.
constexpr int kMaxCpu = 1 << 16;

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\n");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\n");
  return s.substr(first, last - first + 1);
}

// The number bound of item (N, or one end of N-M) in the list text named noun.
int parse_cpu(std::string_view bound, std::string_view item, std::string_view text, std::string_view noun) {
  int cpu = -1;
  const auto [end, ec] = std::from_chars(bound.data(), bound.data() + bound.size(), cpu);
  if (bound.empty() || ec != std::errc() || end != bound.data() + bound.size() || cpu < 0 || cpu >= kMaxCpu) {
    throw_error(ErrorCode::invalid_argument, util::quoted(item) + " in " + std::string(noun) + " " + util::quoted(text) +
                                                 " is not a number or a range N-M of numbers from 0 to " +
                                                 std::to_string(kMaxCpu - 1));
  }
  return cpu;
}

}  // namespace

std::vector<int> parse_cpu_list(std::string_view text, std::string_view noun) {
  const std::string_view list = trim(text);
  std::vector<int> cpus;
  if (list.empty()) return cpus;
  std::size_t pos = 0;
  while (pos <= list.size()) {
    const std::size_t comma = std::min(list.find(',', pos), list.size());
    const std::string_view item = list.substr(pos, comma - pos);
    if (item.empty()) {
      throw_error(ErrorCode::invalid_argument, "empty item in " + std::string(noun) + " " + util::quoted(list));
    }
    const std::size_t dash = item.find('-');
    const int first = parse_cpu(item.substr(0, dash), item, list, noun);
    const int last = dash == std::string_view::npos ? first : parse_cpu(item.substr(dash + 1), item, list, noun);
    if (last < first) {
      throw_error(ErrorCode::invalid_argument,
                  "range " + util::quoted(item) + " in " + std::string(noun) + " " + util::quoted(list) + " is reversed");
    }
    for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
    pos = comma + 1;
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::string format_cpu_list(const std::vector<int>& cpus) {
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace smartarrays::os
