// Owns range operations on a bit-packed stream (decode, sum, encode at any start and length):
// whole chunks go to the dispatched kernels, the partial chunks at either end through a small buffer.
#include <algorithm>
#include <array>
#include <string>

#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/codec/kernels.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays::codec {
namespace {

using ChunkBuffer = std::array<std::uint64_t, chunk_values>;

// Splits [start, start + count) into a head inside one chunk, whole chunks, and a tail.
struct Split {
  std::uint64_t head_chunk, head_offset, head_count;  // head_count may be 0
  std::uint64_t body_chunk, body_chunks;
  std::uint64_t tail_chunk, tail_count;               // tail_count may be 0
};

Split split(std::uint64_t start, std::uint64_t count) {
  Split s{};
  s.head_chunk = start / chunk_values;
  s.head_offset = start % chunk_values;
  s.head_count = s.head_offset == 0 ? 0 : std::min<std::uint64_t>(count, chunk_values - s.head_offset);
  const std::uint64_t rest_start = start + s.head_count;
  const std::uint64_t rest = count - s.head_count;
  s.body_chunk = rest_start / chunk_values;
  s.body_chunks = rest / chunk_values;
  s.tail_chunk = s.body_chunk + s.body_chunks;
  s.tail_count = rest % chunk_values;
  return s;
}

[[noreturn]] void throw_too_wide(std::uint64_t value, std::uint64_t index, unsigned bits) {
  throw_error(ErrorCode::invalid_argument, "value " + std::to_string(value) + " at index " + std::to_string(index) +
                                               " needs " + std::to_string(min_bits(value)) + " bits, array has " +
                                               std::to_string(bits));
}

// One OR over the values first (vectorised, no branch per value: it runs at the speed of the pack
// kernels); the search for the culprit runs only when some value does not fit.
void check_fit(const std::uint64_t* values, std::uint64_t count, std::uint64_t first_index, unsigned bits) {
  if (bits == 64) return;
  std::uint64_t any = 0;
  for (std::uint64_t i = 0; i < count; ++i) any |= values[i];
  if (fits(any, bits)) return;
  const std::uint64_t limit = value_mask(bits);
  for (std::uint64_t i = 0; i < count; ++i) {
    if (values[i] > limit) throw_too_wide(values[i], first_index + i, bits);
  }
}

}  // namespace

void decode(const std::uint64_t* words, unsigned bits, std::uint64_t start, std::uint64_t count, std::uint64_t* out) {
  const Kernels& k = kernels(bits);
  if (count == 0) return;
  const Split s = split(start, count);
  ChunkBuffer buffer;
  if (s.head_count != 0) {
    k.unpack(words, s.head_chunk, 1, buffer.data());
    std::copy_n(buffer.begin() + static_cast<std::ptrdiff_t>(s.head_offset), s.head_count, out);
    out += s.head_count;
  }
  if (s.body_chunks != 0) {
    k.unpack(words, s.body_chunk, s.body_chunks, out);
    out += s.body_chunks * chunk_values;
  }
  if (s.tail_count != 0) {
    k.unpack(words, s.tail_chunk, 1, buffer.data());
    std::copy_n(buffer.begin(), s.tail_count, out);
  }
}

std::uint64_t sum(const std::uint64_t* words, unsigned bits, std::uint64_t start, std::uint64_t count) {
  const Kernels& k = kernels(bits);
  if (count == 0) return 0;
  const Split s = split(start, count);
  ChunkBuffer buffer;
  std::uint64_t total = 0;
  if (s.head_count != 0) {
    k.unpack(words, s.head_chunk, 1, buffer.data());
    for (std::uint64_t i = 0; i < s.head_count; ++i) total += buffer[s.head_offset + i];
  }
  if (s.body_chunks != 0) total += k.sum(words, s.body_chunk, s.body_chunks);
  if (s.tail_count != 0) {
    k.unpack(words, s.tail_chunk, 1, buffer.data());
    for (std::uint64_t i = 0; i < s.tail_count; ++i) total += buffer[i];
  }
  return total;
}

void encode(const std::uint64_t* values, std::uint64_t n, unsigned bits, std::uint64_t* words) {
  const Kernels& k = kernels(bits);
  check_fit(values, n, 0, bits);
  const std::uint64_t whole = n / chunk_values;
  if (whole != 0) k.pack(values, 0, whole, words);
  const std::uint64_t rest = n % chunk_values;
  if (rest != 0) {
    ChunkBuffer buffer{};
    std::copy_n(values + whole * chunk_values, rest, buffer.begin());
    k.pack(buffer.data(), whole, 1, words);
  }
}

void encode_range(const std::uint64_t* values, std::uint64_t start, std::uint64_t count, unsigned bits,
                  std::uint64_t* words) {
  const Kernels& k = kernels(bits);
  check_fit(values, count, start, bits);
  if (count == 0) return;
  const Split s = split(start, count);
  ChunkBuffer buffer;
  // Partial chunks: decode, overwrite the part in range, re-encode, so neighbours are kept.
  if (s.head_count != 0) {
    k.unpack(words, s.head_chunk, 1, buffer.data());
    std::copy_n(values, s.head_count, buffer.begin() + static_cast<std::ptrdiff_t>(s.head_offset));
    k.pack(buffer.data(), s.head_chunk, 1, words);
    values += s.head_count;
  }
  if (s.body_chunks != 0) {
    k.pack(values, s.body_chunk, s.body_chunks, words);
    values += s.body_chunks * chunk_values;
  }
  if (s.tail_count != 0) {
    k.unpack(words, s.tail_chunk, 1, buffer.data());
    std::copy_n(values, s.tail_count, buffer.begin());
    k.pack(buffer.data(), s.tail_chunk, 1, words);
  }
}

std::uint64_t max_value(const std::uint64_t* values, std::uint64_t n) noexcept {
  std::uint64_t m = 0;
  for (std::uint64_t i = 0; i < n; ++i) m = std::max(m, values[i]);
  return m;
}

}  // namespace smartarrays::codec
