// Owns the dirty-group bitmap of primary-write arrays (WriteMode::primary): its sizing (groups of a
// power-of-two number of chunks, about 4 KiB of words each, so marking is a shift and one relaxed
// atomic or, and a sync copies page-sized runs) and taking it for a sync.
#include <bit>
#include <cstdint>
#include <vector>

#include "smartarrays/array/smart_array.hpp"

namespace smartarrays {

namespace {
// Words per dirty group at most: one 4 KiB page.
constexpr std::uint64_t group_words = 512;
}  // namespace

void SmartArray::start_tracking_writes() {
  // The most chunks (a power of two) whose words fit in a page: 8 at 64 bits, 512 at 1 bit.
  dirty_shift_ = static_cast<unsigned>(std::bit_width(group_words / bits())) - 1;
  const std::uint64_t groups = (chunks() + (std::uint64_t{1} << dirty_shift_) - 1) >> dirty_shift_;
  dirty_words_ = (groups + 63) / 64;
  dirty_ = std::make_unique<std::atomic<std::uint64_t>[]>(dirty_words_ == 0 ? 1 : dirty_words_);
}

std::vector<std::uint64_t> SmartArray::take_dirty_groups() {
  std::vector<std::uint64_t> taken(dirty_words_);
  for (std::uint64_t w = 0; w < dirty_words_; ++w) taken[w] = dirty_[w].exchange(0, std::memory_order_relaxed);
  return taken;
}

bool SmartArray::has_dirty_groups() const noexcept {
  for (std::uint64_t w = 0; w < dirty_words_; ++w) {
    if (dirty_[w].load(std::memory_order_relaxed) != 0) return true;
  }
  return false;
}

}  // namespace smartarrays
