// Owns calling ISA-L's crc32_iscsi, whose length is an int: long inputs go in pieces.
#include "os/crc32c.hpp"

#include <isa-l/crc.h>

#include <algorithm>

namespace smartarrays::os {

std::uint32_t crc32c(const void* bytes, std::size_t size, std::uint32_t previous) noexcept {
  constexpr std::size_t piece = std::size_t{1} << 30;
  // ISA-L keeps the raw register: it neither inverts the initial value nor the result.
  unsigned int state = ~previous;
  auto* at = static_cast<unsigned char*>(const_cast<void*>(bytes));
  while (size > 0) {
    const std::size_t n = std::min(size, piece);
    state = crc32_iscsi(at, static_cast<int>(n), state);
    at += n;
    size -= n;
  }
  return ~state;
}

}  // namespace smartarrays::os
