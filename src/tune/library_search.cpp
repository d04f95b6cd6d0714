// Owns finding a library where the dynamic loader looks (library_search.hpp), checked to be
// loadable by this process: a preload the loader cannot use is ignored with a warning, and the
// program would silently run with glibc's malloc.
#include "tune/library_search.hpp"

#include <elf.h>
#include <glob.h>
#include <link.h>
#include <sys/auxv.h>

#include <cstdlib>
#include <cstring>
#include <fstream>

namespace smartarrays::tune {
namespace {

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

// Whether path is an ELF shared object of this process's class and machine (the loader skips others).
bool loadable(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  ElfW(Ehdr) header{};
  if (!in.read(reinterpret_cast<char*>(&header), sizeof header)) return false;
  // The vDSO the kernel maps into every process is an ELF object of the process's own machine.
  const auto* vdso = reinterpret_cast<const ElfW(Ehdr)*>(::getauxval(AT_SYSINFO_EHDR));
  const unsigned char elf_class = sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32;
  return std::memcmp(header.e_ident, ELFMAG, SELFMAG) == 0 && header.e_ident[EI_CLASS] == elf_class &&
         header.e_type == ET_DYN && (vdso == nullptr || header.e_machine == vdso->e_machine);
}

}  // namespace

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

std::string find_in_directories(std::string_view file_name, const std::vector<std::string>& dirs) {
  for (const std::string& dir : dirs) {
    const std::string path = dir + "/" + std::string(file_name);
    if (loadable(path)) return path;
  }
  return "";
}

}  // namespace smartarrays::tune
