// Owns the run-time dispatched batch kernels of the bit layout: one table entry per bit width and
// instruction set (portable scalar everywhere, AVX2+BMI2 where the CPU has them), chosen once, and
// the range operations (decode, sum, encode) built on them that handle partial chunks.
#pragma once

#include <cstdint>

#include "smartarrays/export.hpp"

namespace smartarrays::codec {

/// Instruction sets with kernels; the best one the CPU supports is chosen once per process.
enum class Isa { scalar = 0, avx2 = 1 };

/// The batch kernels of one bit width. All work on whole chunks of a stream that starts at words.
struct Kernels {
  unsigned bits;  ///< the bit width these kernels serve
  Isa isa;        ///< the instruction set they use
  /// Decodes chunks [first, first + count) into out (64 * count values).
  void (*unpack)(const std::uint64_t* words, std::uint64_t first, std::uint64_t count, std::uint64_t* out);
  /// Encodes 64 * count values (each < 2^bits, not checked) into chunks [first, first + count).
  void (*pack)(const std::uint64_t* values, std::uint64_t first, std::uint64_t count, std::uint64_t* words);
  /// Wrapping sum of every value of chunks [first, first + count) (fused decode and add).
  std::uint64_t (*sum)(const std::uint64_t* words, std::uint64_t first, std::uint64_t count);
};

/// Kernels for bits (1..64) on the best instruction set of this CPU (or SMARTARRAYS_ISA=scalar).
SMARTARRAYS_API const Kernels& kernels(unsigned bits);
/// Kernels for bits on a given instruction set; throws Error(unsupported) if the CPU lacks it.
SMARTARRAYS_API const Kernels& kernels(unsigned bits, Isa isa);
/// True when this CPU can run kernels of isa.
SMARTARRAYS_API bool isa_supported(Isa isa) noexcept;
/// The instruction set kernels(bits) uses.
SMARTARRAYS_API Isa active_isa() noexcept;
/// Throws the Error of a SMARTARRAYS_ISA this process cannot honour (bad name, or avx2 on a CPU
/// without it); kernels(bits) throws the same, so a bad setting never falls back silently.
SMARTARRAYS_API void check_isa_setting();
/// "scalar" or "avx2".
SMARTARRAYS_API const char* isa_name(Isa isa) noexcept;

/// Decodes values [start, start + count) of a bits-wide stream into out. Throws on bad bits.
SMARTARRAYS_API void decode(const std::uint64_t* words, unsigned bits, std::uint64_t start, std::uint64_t count, std::uint64_t* out);
/// Wrapping sum of values [start, start + count) of a bits-wide stream. Throws on bad bits.
SMARTARRAYS_API std::uint64_t sum(const std::uint64_t* words, unsigned bits, std::uint64_t start, std::uint64_t count);
/// Encodes values[0..n) into a stream of word_count(n, bits) words, zero-padding the last chunk.
/// Throws Error(invalid_argument) naming the first value that does not fit in bits.
SMARTARRAYS_API void encode(const std::uint64_t* values, std::uint64_t n, unsigned bits, std::uint64_t* words);
/// Encodes values[0..count) as values [start, start + count) of an existing stream (start may be
/// unaligned; neighbouring values are kept). Throws like encode.
SMARTARRAYS_API void encode_range(const std::uint64_t* values, std::uint64_t start, std::uint64_t count, unsigned bits,
                  std::uint64_t* words);
/// The largest of values[0..n) (0 when n == 0): feeds min_bits() when bits are derived from data.
SMARTARRAYS_API std::uint64_t max_value(const std::uint64_t* values, std::uint64_t n) noexcept;

}  // namespace smartarrays::codec
