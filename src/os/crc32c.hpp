// Owns the library's one checksum: CRC32C (Castagnoli) through ISA-L, which uses the SSE4.2 crc32
// instruction (or a folding PCLMUL kernel) where the CPU has it and a table otherwise. The store's
// blocks and the arrays' per-replica checksums both use it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace smartarrays::os {

/// CRC32C of bytes continuing from previous (the CRC of what came before; 0 to start): reflected,
/// initial value and final xor 0xFFFFFFFF, so crc32c("123456789", 9) == 0xE3069283.
std::uint32_t crc32c(const void* bytes, std::size_t size, std::uint32_t previous = 0) noexcept;

}  // namespace smartarrays::os
