// Owns the portable kernel table: the compile-time chunk kernels of bitpack.hpp, one entry per width.
#include <array>
#include <utility>

#include "codec/kernel_tables.hpp"
#include "smartarrays/codec/bitpack.hpp"

namespace smartarrays::codec::detail {
namespace {

template <unsigned B>
void unpack_chunks(const std::uint64_t* words, std::uint64_t first, std::uint64_t count, std::uint64_t* out) {
  for (std::uint64_t c = 0; c < count; ++c) unpack_chunk<B>(words + (first + c) * B, out + c * chunk_values);
}

template <unsigned B>
void pack_chunks(const std::uint64_t* values, std::uint64_t first, std::uint64_t count, std::uint64_t* words) {
  for (std::uint64_t c = 0; c < count; ++c) pack_chunk<B>(values + c * chunk_values, words + (first + c) * B);
}

template <unsigned B>
std::uint64_t sum_chunks(const std::uint64_t* words, std::uint64_t first, std::uint64_t count) {
  std::uint64_t total = 0;
  for (std::uint64_t c = 0; c < count; ++c) total += sum_chunk<B>(words + (first + c) * B);
  return total;
}

template <std::size_t... I>
constexpr auto make_table(std::index_sequence<I...>) {
  return std::array<Kernels, sizeof...(I)>{
      Kernels{I + 1, Isa::scalar, &unpack_chunks<I + 1>, &pack_chunks<I + 1>, &sum_chunks<I + 1>}...};
}

constexpr auto table = make_table(std::make_index_sequence<64>{});

}  // namespace

const Kernels* scalar_kernel_table() noexcept { return table.data(); }

}  // namespace smartarrays::codec::detail
