// Owns the library's one checksum: CRC32C (Castagnoli) through ISA-L, and combining the CRCs of pieces, which uses the SSE4.2 crc32
// instruction (or a folding PCLMUL kernel) where the CPU has it and a table otherwise. The store's
// blocks and the arrays' per-replica checksums both use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace smartarrays::codec {

/// CRC32C of bytes continuing from previous (the CRC of what came before; 0 to start): reflected,
/// initial value and final xor 0xFFFFFFFF, so crc32c("123456789", 9) == 0xE3069283.
std::uint32_t crc32c(const void* bytes, std::size_t size, std::uint32_t previous = 0) noexcept;

/// crc32c of A followed by B from crc32c(A), crc32c(B) and B's size (zlib's crc32_combine for the
/// Castagnoli polynomial), so the CRCs of pieces checksummed in parallel make the whole one's.
std::uint32_t crc32c_combine(std::uint32_t crc_a, std::uint32_t crc_b, std::uint64_t size_b) noexcept;

/// CRC32C of ranges of a buffer that fills in order, checksummed page by page while the bytes are
/// still in the cache (a received stream), so that a range's CRC later costs one combining step per
/// page instead of a second pass over memory.
class PagedCrc32c {
 public:
  static constexpr std::uint64_t page_bytes = 4096;

  /// Checksums the whole pages of data[0, filled) not checksummed yet.
  void advance(const std::uint8_t* data, std::uint64_t filled);
  /// crc32c(data + offset, length), the range filled: from the page CRCs where offset is a
  /// multiple of page_bytes, the bytes after its last whole page read again.
  std::uint32_t range(const std::uint8_t* data, std::uint64_t offset, std::uint64_t length) const;

 private:
  std::vector<std::uint32_t> pages_;  ///< each whole page's CRC register from 0, not inverted
};

}  // namespace smartarrays::codec
