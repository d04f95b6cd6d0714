// Owns reading the memory limit: the SMARTARRAYS_MEMORY_LIMIT_MB setting when given (it replaces
// the rest, so a machine with swap can be allowed more than its physical memory), else the
// smallest of sysconf's physical memory, the cgroup v2 (memory.max) or v1 (memory.limit_in_bytes)
// file of the process's own group and getrlimit.
#include "smartarrays/os/memory_limit.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <optional>
#include <string>

#include "smartarrays/util/settings.hpp"

namespace smartarrays::os {

namespace {

// A cgroup "no limit" is "max" (v2) or a page-rounded 2^63 (v1); anything from 2^62 up means none.
constexpr std::uint64_t no_cgroup_limit = std::uint64_t{1} << 62;

// SMARTARRAYS_MEMORY_LIMIT_MB accepts up to 2^44 MiB (16 EiB / 1 MiB): every count converts to bytes.
constexpr std::uint64_t max_limit_mib = std::uint64_t{1} << 44;

std::optional<std::uint64_t> number_in(const std::string& path) {
  std::ifstream in(path);
  std::uint64_t value = 0;
  if (in >> value) return value;
  return std::nullopt;
}

// The limit of the memory cgroup this process belongs to (v2 "0::PATH", v1 "N:...memory...:PATH").
std::optional<std::uint64_t> cgroup_limit() {
  std::ifstream groups("/proc/self/cgroup");
  for (std::string line; std::getline(groups, line);) {
    const std::size_t first = line.find(':');
    const std::size_t second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    std::optional<std::uint64_t> limit;
    if (line.compare(0, first, "0") == 0 && controllers.empty()) {
      limit = number_in("/sys/fs/cgroup" + path + "/memory.max");
      if (!limit) limit = number_in("/sys/fs/cgroup/memory.max");
    } else if (controllers.find("memory") != std::string::npos) {
      limit = number_in("/sys/fs/cgroup/memory" + path + "/memory.limit_in_bytes");
      if (!limit) limit = number_in("/sys/fs/cgroup/memory/memory.limit_in_bytes");
    }
    if (limit && *limit < no_cgroup_limit) return limit;
  }
  return std::nullopt;
}

std::optional<std::uint64_t> rlimit_of(int resource) {
  rlimit limit{};
  if (::getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::nullopt;
  return static_cast<std::uint64_t>(limit.rlim_cur);
}

MemoryLimit read_memory_limit() {
  const std::uint64_t mib = util::setting_count("SMARTARRAYS_MEMORY_LIMIT_MB", 1, max_limit_mib, 0);
  if (mib != 0) return {mib << 20, "SMARTARRAYS_MEMORY_LIMIT_MB"};
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  MemoryLimit result{pages > 0 && page_size > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size)
                                                : ~std::uint64_t{0},
                     "physical memory"};
  auto lower = [&](std::optional<std::uint64_t> bytes, const char* source) {
    if (bytes && *bytes < result.bytes) result = {*bytes, source};
  };
  lower(cgroup_limit(), "cgroup memory limit");
  lower(rlimit_of(RLIMIT_AS), "RLIMIT_AS");
  lower(rlimit_of(RLIMIT_DATA), "RLIMIT_DATA");
  return result;
}

}  // namespace

const MemoryLimit& memory_limit() {
  static const MemoryLimit limit = read_memory_limit();
  return limit;
}

}  // namespace smartarrays::os
