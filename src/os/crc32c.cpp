// Owns calling ISA-L's crc32_iscsi, whose length is an int: long inputs go in pieces; and
// combining the CRCs of whole pages into the CRC of a range (PagedCrc32c).
#include "os/crc32c.hpp"

#include <isa-l/crc.h>

#include <algorithm>
#include <array>

namespace smartarrays::os {

namespace {

// The CRC register after bytes, from register state. ISA-L keeps the raw register: it neither
// inverts the initial value nor the result.
std::uint32_t raw_crc(const void* bytes, std::size_t size, std::uint32_t state) noexcept {
  constexpr std::size_t piece = std::size_t{1} << 30;
  auto* at = static_cast<unsigned char*>(const_cast<void*>(bytes));
  while (size > 0) {
    const std::size_t n = std::min(size, piece);
    state = crc32_iscsi(at, static_cast<int>(n), state);
    at += n;
    size -= n;
  }
  return state;
}

// The register after a page of zeros from register s, a linear map of s: raw(page, s) =
// raw(page, 0) ^ shift(s), so the CRC of pages follows from their CRCs from 0. Tabled per byte of s
// (each entry computed by ISA-L over a zero page, once).
class PageShift {
 public:
  PageShift() {
    static constexpr std::array<unsigned char, PagedCrc32c::page_bytes> zeros{};
    for (unsigned byte = 0; byte < 4; ++byte) {
      for (std::uint32_t v = 0; v < 256; ++v) table_[byte][v] = raw_crc(zeros.data(), zeros.size(), v << (8 * byte));
    }
  }
  std::uint32_t operator()(std::uint32_t s) const noexcept {
    return table_[0][s & 0xFF] ^ table_[1][(s >> 8) & 0xFF] ^ table_[2][(s >> 16) & 0xFF] ^ table_[3][s >> 24];
  }

 private:
  std::array<std::array<std::uint32_t, 256>, 4> table_{};
};

}  // namespace

std::uint32_t crc32c(const void* bytes, std::size_t size, std::uint32_t previous) noexcept {
  return ~raw_crc(bytes, size, ~previous);
}

void PagedCrc32c::advance(const std::uint8_t* data, std::uint64_t filled) {
  for (std::uint64_t page = pages_.size(); (page + 1) * page_bytes <= filled; ++page) {
    pages_.push_back(raw_crc(data + page * page_bytes, page_bytes, 0));
  }
}

std::uint32_t PagedCrc32c::range(const std::uint8_t* data, std::uint64_t offset, std::uint64_t length) const {
  if (offset % page_bytes != 0) return crc32c(data + offset, length);
  static const PageShift shift;
  const std::uint64_t first = offset / page_bytes;
  const std::uint64_t whole = std::min<std::uint64_t>(length / page_bytes, pages_.size() > first ? pages_.size() - first : 0);
  std::uint32_t state = ~std::uint32_t{0};
  for (std::uint64_t p = first; p < first + whole; ++p) state = shift(state) ^ pages_[p];
  const std::uint64_t done = whole * page_bytes;
  return ~raw_crc(data + offset + done, length - done, state);
}

}  // namespace smartarrays::os
