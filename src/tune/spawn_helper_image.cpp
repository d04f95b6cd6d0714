// Owns the image of smartarrays-spawn (spawn_helper.c) inside the library and the descriptor it is
// run from: the build links the static program's bytes here (SMARTARRAYS_SPAWN_HELPER names the
// file), and they are written once to a sealed memfd, so the launcher runs wherever the library is
// with no file to install.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <string>

#include "tune/spawn_helper.hpp"

// The program's bytes, between these two symbols of the library (hidden: no other object sees them).
__asm__(".section .rodata\n"
        ".balign 16\n"
        ".hidden smartarrays_spawn_helper_begin\n"
        ".hidden smartarrays_spawn_helper_end\n"
        "smartarrays_spawn_helper_begin:\n"
        ".incbin \"" SMARTARRAYS_SPAWN_HELPER "\"\n"
        "smartarrays_spawn_helper_end:\n"
        ".previous\n");
extern "C" const unsigned char smartarrays_spawn_helper_begin[];
extern "C" const unsigned char smartarrays_spawn_helper_end[];

namespace smartarrays::tune {

namespace {

// MFD_EXEC (Linux 6.3): an executable memfd where vm.memfd_noexec makes them not so by default;
// older kernels refuse the flag (EINVAL) and make every memfd executable.
constexpr unsigned memfd_exec = 0x10U;

int make_helper_fd() noexcept {
  int fd = ::memfd_create("smartarrays-spawn", MFD_CLOEXEC | MFD_ALLOW_SEALING | memfd_exec);
  if (fd < 0 && errno == EINVAL) fd = ::memfd_create("smartarrays-spawn", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return -1;
  const unsigned char* at = smartarrays_spawn_helper_begin;
  while (at < smartarrays_spawn_helper_end) {
    const ssize_t n = ::write(fd, at, static_cast<std::size_t>(smartarrays_spawn_helper_end - at));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return -1;
    }
    at += n;
  }
  // Sealed, nothing can change what every child runs; reopened read-only, since a file open for
  // writing cannot be executed (ETXTBSY) on some kernels.
  ::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
  const int read_only = ::open(("/proc/self/fd/" + std::to_string(fd)).c_str(), O_RDONLY | O_CLOEXEC);
  if (read_only < 0) return fd;
  ::close(fd);
  return read_only;
}

}  // namespace

int spawn_helper_fd() noexcept {
  static const int fd = make_helper_fd();
  return fd;
}

}  // namespace smartarrays::tune
