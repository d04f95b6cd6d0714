// Owns the allocators of launch.hpp: their names, the Debian library and package of each, and the
// path of the library to preload.
#include <string>
#include <vector>

#include "smartarrays/error.hpp"
#include "smartarrays/tune/launch.hpp"
#include "smartarrays/util/names.hpp"
#include "tune/library_search.hpp"

namespace smartarrays::tune {
namespace {

constexpr util::NameTable<Allocator, 6> allocator_names{"allocator",
                                                        {{{Allocator::glibc, "glibc"},
                                                          {Allocator::jemalloc, "jemalloc"},
                                                          {Allocator::tcmalloc, "tcmalloc"},
                                                          {Allocator::mimalloc, "mimalloc"},
                                                          {Allocator::tbbmalloc, "tbbmalloc"},
                                                          {Allocator::glibc, "ptmalloc"}}}};

}  // namespace

std::string_view allocator_name(Allocator allocator) noexcept { return allocator_names.name(allocator); }

Allocator parse_allocator(std::string_view name) { return allocator_names.parse(name); }

AllocatorLibrary allocator_library(Allocator allocator) noexcept {
  switch (allocator) {
    case Allocator::jemalloc: return {"libjemalloc.so.2", "libjemalloc2", "mallctl"};
    case Allocator::tcmalloc: return {"libtcmalloc_minimal.so.4", "libtcmalloc-minimal4", "tc_malloc"};
    case Allocator::mimalloc: return {"libmimalloc.so.2", "libmimalloc2.0", "mi_malloc"};
    case Allocator::tbbmalloc: return {"libtbbmalloc_proxy.so.2", "libtbbmalloc2", "scalable_malloc"};
    case Allocator::glibc: break;
  }
  return {"", "libc6", ""};
}

std::string find_allocator_library(Allocator allocator) {
  // glibc's malloc is already there: no need to read the loader's configuration for it.
  if (allocator == Allocator::glibc) return "";
  return allocator_path(allocator, loader_directories());
}

std::string allocator_path(Allocator allocator, const std::vector<std::string>& dirs) {
  const AllocatorLibrary library = allocator_library(allocator);
  if (library.soname.empty()) return "";
  const std::string path = find_in_directories(library.soname, dirs);
  if (!path.empty()) return path;
  throw_error(ErrorCode::unsupported, std::string(allocator_name(allocator)) + " needs the Debian package " +
                                          std::string(library.package) + " (apt-get install " +
                                          std::string(library.package) + "): " + std::string(library.soname) +
                                          " is not where the dynamic loader looks");
}

}  // namespace smartarrays::tune
