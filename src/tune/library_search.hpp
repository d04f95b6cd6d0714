// Owns finding a shared library by file name where the dynamic loader looks (ld.so(8)), for the
// allocator preloads of launch.hpp; internal to the tune layer and its tests.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "smartarrays/tune/launch.hpp"

namespace smartarrays::tune {

/// The loader's directories in its order: LD_LIBRARY_PATH, /etc/ld.so.conf (following includes),
/// then the default directories.
std::vector<std::string> loader_directories();

/// The first dir/file_name that is an ELF shared object this process can load (its ELF class and
/// machine); "" when none is.
std::string find_in_directories(std::string_view file_name, const std::vector<std::string>& dirs);

/// The library of allocator found in dirs ("" for glibc); throws Error(unsupported) naming the Debian
/// package when none of dirs has it (find_allocator_library searches loader_directories()).
std::string allocator_path(Allocator allocator, const std::vector<std::string>& dirs);

}  // namespace smartarrays::tune
