// Owns the allocators of launch.hpp: their names, the Debian library and package of each, and
// finding the library where the dynamic loader looks, checked to be loadable by this process (a
// preload the loader cannot use is ignored with a warning, and the program would silently run with
// glibc's malloc).
#include <elf.h>
#include <glob.h>
#include <link.h>
#include <sys/auxv.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "smartarrays/error.hpp"
#include "smartarrays/tune/launch.hpp"
#include "smartarrays/util/names.hpp"

namespace smartarrays::tune {
namespace {

constexpr util::NameTable<Allocator, 6> allocator_names{"allocator",
                                                        {{{Allocator::glibc, "glibc"},
                                                          {Allocator::jemalloc, "jemalloc"},
                                                          {Allocator::tcmalloc, "tcmalloc"},
                                                          {Allocator::mimalloc, "mimalloc"},
                                                          {Allocator::tbbmalloc, "tbbmalloc"},
                                                          {Allocator::glibc, "ptmalloc"}}}};

// The directories of one ld.so.conf-style file, following its include lines (globs, relative to
// /etc); depth bounds include loops.
void read_loader_config(const std::string& path, int depth, std::vector<std::string>& dirs) {
  std::ifstream in(path);
  for (std::string line; depth < 8 && std::getline(in, line);) {
    line = line.substr(0, line.find('#'));
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    line = line.substr(first, line.find_last_not_of(" \t\r") + 1 - first);
    if (line.rfind("include", 0) == 0 && line.size() > 7 && (line[7] == ' ' || line[7] == '\t')) {
      std::string pattern = line.substr(line.find_first_not_of(" \t", 7));
      if (pattern.front() != '/') pattern = "/etc/" + pattern;
      glob_t found{};
      if (::glob(pattern.c_str(), 0, nullptr, &found) == 0) {
        for (std::size_t i = 0; i < found.gl_pathc; ++i) read_loader_config(found.gl_pathv[i], depth + 1, dirs);
      }
      ::globfree(&found);
    } else if (line.front() == '/') {
      dirs.push_back(line);
    }
  }
}

// Where the dynamic loader looks for a library named without a slash, in its order (ld.so(8)).
std::vector<std::string> loader_directories() {
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("LD_LIBRARY_PATH")) {
    std::string list(path);
    for (std::size_t at = 0; at <= list.size();) {
      const std::size_t end = list.find_first_of(":;", at);
      const std::string dir = list.substr(at, end == std::string::npos ? std::string::npos : end - at);
      if (!dir.empty()) dirs.push_back(dir);
      at = end == std::string::npos ? list.size() + 1 : end + 1;
    }
  }
  read_loader_config("/etc/ld.so.conf", 0, dirs);
  for (const char* dir : {"/lib64", "/usr/lib64", "/lib", "/usr/lib"}) dirs.emplace_back(dir);
  return dirs;
}

// Whether path is an ELF shared object of this process's class and machine (the loader skips others).
bool loadable(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  ElfW(Ehdr) header{};
  if (!in.read(reinterpret_cast<char*>(&header), sizeof header)) return false;
  // The vDSO the kernel maps into every process is an ELF object of the process's own machine.
  const auto* vdso = reinterpret_cast<const ElfW(Ehdr)*>(::getauxval(AT_SYSINFO_EHDR));
  return std::memcmp(header.e_ident, ELFMAG, SELFMAG) == 0 && header.e_ident[EI_CLASS] == (sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32) &&
         header.e_type == ET_DYN && (vdso == nullptr || header.e_machine == vdso->e_machine);
}

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
  const AllocatorLibrary library = allocator_library(allocator);
  if (library.soname.empty()) return "";
  for (const std::string& dir : loader_directories()) {
    const std::string path = dir + "/" + std::string(library.soname);
    if (loadable(path)) return path;
  }
  throw_error(ErrorCode::unsupported, std::string(allocator_name(allocator)) + " needs the Debian package " +
                                          std::string(library.package) + " (apt-get install " +
                                          std::string(library.package) + "): " + std::string(library.soname) +
                                          " is not where the dynamic loader looks");
}

}  // namespace smartarrays::tune
