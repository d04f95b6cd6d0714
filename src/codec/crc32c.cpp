// Owns calling ISA-L's crc32_iscsi, whose length is an int: long inputs go in pieces; and
// combining the CRCs of whole pages into the CRC of a range (PagedCrc32c).
#include "codec/crc32c.hpp"

#include <isa-l/crc.h>

#include <algorithm>
#include <array>

namespace smartarrays::codec {

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

// Polynomials over GF(2) modulo the reflected Castagnoli polynomial, bit 31 = x^0 (as zlib's crc32.c).
constexpr std::uint32_t castagnoli = 0x82F63B78;

constexpr std::uint32_t multiply_mod(std::uint32_t a, std::uint32_t b) noexcept {
  std::uint32_t product = 0;
  for (std::uint32_t m = std::uint32_t{1} << 31; m != 0; m >>= 1) {
    if ((a & m) != 0) product ^= b;
    b = (b & 1) != 0 ? (b >> 1) ^ castagnoli : b >> 1;
  }
  return product;
}

// x^(2^k) mod P for k = 0..63.
constexpr std::array<std::uint32_t, 64> powers_of_x = [] {
  std::array<std::uint32_t, 64> table{};
  table[0] = std::uint32_t{1} << 30;  // x^1
  for (std::size_t k = 1; k < table.size(); ++k) table[k] = multiply_mod(table[k - 1], table[k - 1]);
  return table;
}();

// x^(8 * bytes) mod P: appending bytes zero bytes multiplies a CRC register by it.
std::uint32_t shift_for_bytes(std::uint64_t bytes) noexcept {
  std::uint32_t p = std::uint32_t{1} << 31;  // x^0
  for (std::size_t k = 3; bytes != 0; bytes >>= 1, ++k) {
    if ((bytes & 1) != 0) p = multiply_mod(powers_of_x[k % 64], p);
  }
  return p;
}

}  // namespace

std::uint32_t crc32c_combine(std::uint32_t crc_a, std::uint32_t crc_b, std::uint64_t size_b) noexcept {
  return multiply_mod(shift_for_bytes(size_b), crc_a) ^ crc_b;
}

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

}  // namespace smartarrays::codec
