// Owns SmartArray's allocation (validating options, turning a placement into memory regions and a
// node -> replica table), construction from values, and its checked operations.
#include "smartarrays/array/smart_array.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "array/region_plan.hpp"
#include "array/replica_table.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/os/mapping_guard.hpp"

namespace smartarrays {

namespace {

// Limits a replica's stream so that every bit offset i * bits fits in 64 bits (codec kernels
// compute them that way) and every byte count fits in size_t: 2^58 words = 2^61 bytes.
constexpr std::uint64_t max_stream_words = std::uint64_t{1} << 58;

// Values widened per block by the 32-bit from_values: 8 KiB on the stack, no heap copy of the input.
constexpr std::uint64_t widen_block_values = 16 * codec::chunk_values;

std::string bits_text(unsigned bits) { return std::to_string(bits) + (bits == 1 ? " bit" : " bits"); }

void check_bits(unsigned bits) {
  if (bits == 0) {
    throw_error(ErrorCode::invalid_argument,
                "bits 0: allocating needs a bit width of 1..64 (0 derives the width from data, in from_values only)");
  }
  if (bits > 64) throw_error(ErrorCode::invalid_argument, "bits " + std::to_string(bits) + " out of range 1..64");
}

[[noreturn]] void throw_value_too_wide(std::uint64_t value, std::uint64_t index, unsigned bits) {
  throw_error(ErrorCode::invalid_argument, "value " + std::to_string(value) + " at index " + std::to_string(index) +
                                               " needs " + bits_text(codec::min_bits(value)) + ", array has " +
                                               std::to_string(bits));
}

// The first value that does not fit in bits; called only once a too-wide value is known to exist.
template <typename T>
[[noreturn]] void throw_first_too_wide(std::span<const T> values, unsigned bits) {
  for (std::uint64_t i = 0; i < values.size(); ++i) {
    if (!codec::fits(values[i], bits)) throw_value_too_wide(values[i], i, bits);
  }
  throw_error(ErrorCode::internal, "a value was wider than " + bits_text(bits) + " but none was found");
}

// options with bits 0 resolved to the fewest bits that hold largest, or explicit bits checked against it.
template <typename T>
ArrayOptions resolve_bits(std::span<const T> values, std::uint64_t largest, const ArrayOptions& options) {
  const unsigned needed = codec::min_bits(largest);
  ArrayOptions resolved = options;
  if (resolved.bits == 0) {
    resolved.bits = needed;
  } else {
    check_bits(resolved.bits);
    if (needed > resolved.bits) throw_first_too_wide(values, resolved.bits);
  }
  return resolved;
}

// Words of the stream of one replica, or Error(out_of_memory) when the size cannot be represented.
std::uint64_t stream_words(std::uint64_t length, unsigned bits) {
  // Not codec::chunk_count: length + 63 would wrap for lengths near 2^64.
  const std::uint64_t chunks = length / codec::chunk_values + (length % codec::chunk_values != 0 ? 1 : 0);
  if (chunks >= max_stream_words / bits) {
    throw_error(ErrorCode::out_of_memory, "length " + std::to_string(length) + " at " + bits_text(bits) +
                                              " needs more than 2^61 bytes per replica");
  }
  return chunks * bits;
}

// What allocate() will do, decided (and validated) before any memory is touched.
struct Plan {
  detail::RegionPlan placed;                // effective options, one region per replica
  std::uint64_t words = 0;                  // stream words per replica
  std::size_t bytes = 0;                    // bytes per replica: stream plus the padding word
};

Plan make_plan(std::uint64_t length, const ArrayOptions& options) {
  Plan plan;
  plan.placed = detail::plan_regions(options);
  check_bits(options.bits);
  plan.words = stream_words(length, options.bits);
  plan.bytes = static_cast<std::size_t>((plan.words + 1) * sizeof(std::uint64_t));
  return plan;
}

}  // namespace

SmartArray SmartArray::allocate(std::uint64_t length, const ArrayOptions& options) {
  Plan plan = make_plan(length, options);
  SmartArray array;
  array.length_ = length;
  array.words_ = plan.words;
  array.options_ = std::move(plan.placed.options);
  array.regions_.reserve(plan.placed.regions.size());
  array.replica_words_.reserve(plan.placed.regions.size());
  // Should one replica fail, the regions made so far are unmapped by array's destructor.
  for (const os::RegionOptions& region : plan.placed.regions) {
    array.regions_.push_back(os::MemoryRegion::allocate(plan.bytes, region));
    array.replica_words_.push_back(static_cast<std::uint64_t*>(array.regions_.back().data()));
  }
  array.replica_nodes_ = std::move(plan.placed.replica_nodes);
  if (array.replica_words_.size() > 1) array.replica_of_node_ = detail::nearest_replica_table(array.replica_nodes_, os::topology());
  if (array.options_.write_mode == WriteMode::primary && array.replica_words_.size() > 1) array.start_tracking_writes();
  array.bind_kernels();
  return array;
}

SmartArray SmartArray::over_region(std::uint64_t length, unsigned bits, os::MemoryRegion region) {
  check_bits(bits);
  const std::uint64_t words = stream_words(length, bits);
  // The padding word is needed too: codec::get_padded reads one word past the stream.
  if (region.size() / sizeof(std::uint64_t) <= words) {
    throw_error(ErrorCode::invalid_argument, "a region of " + std::to_string(region.size()) + " bytes cannot hold " +
                                                 std::to_string(length) + " values of " + bits_text(bits) +
                                                 " and a padding word (" + std::to_string((words + 1) * 8) + " bytes)");
  }
  if (reinterpret_cast<std::uintptr_t>(region.data()) % alignof(std::uint64_t) != 0) {
    throw_error(ErrorCode::invalid_argument, "the words of an array must be 8-byte aligned");
  }
  SmartArray array;
  array.length_ = length;
  array.words_ = words;
  array.options_.bits = bits;
  array.options_.huge_pages = region.options().huge_pages;
  array.replica_words_.push_back(static_cast<std::uint64_t*>(region.data()));
  array.regions_.push_back(std::move(region));
  array.replica_nodes_.push_back(-1);
  array.bind_kernels();
  return array;
}

void SmartArray::bind_kernels() {
  const unsigned bits = options_.bits;
  // Reads of a primary-write array may overlap a sync's word stores: they load words atomically.
  get_ = dirty_ != nullptr ? codec::with_bits(bits, [](auto b) -> GetFn { return &codec::get_relaxed<decltype(b)::value>; })
                           : codec::with_bits(bits, [](auto b) -> GetFn { return &codec::get<decltype(b)::value>; });
  set_ = codec::with_bits(bits, [](auto b) -> SetFn { return &codec::set<decltype(b)::value>; });
  kernels_ = &codec::kernels(bits);
}

void SmartArray::check_writable() const {
  if (read_only()) {
    throw_error(ErrorCode::invalid_argument, "the array is read-only: its words are borrowed (e.g. a mapped store file)");
  }
}

std::uint64_t* SmartArray::mutable_replica(std::size_t r) {
  check_writable();
  return const_cast<std::uint64_t*>(std::as_const(*this).replica(r));
}

ArrayOptions SmartArray::options_for_values(std::span<const std::uint64_t> values, std::uint64_t largest,
                                            const ArrayOptions& options) {
  return resolve_bits(values, largest, options);
}

ArrayOptions SmartArray::options_for_values(std::span<const std::uint32_t> values, std::uint64_t largest,
                                            const ArrayOptions& options) {
  return resolve_bits(values, largest, options);
}

SmartArray SmartArray::from_values(std::span<const std::uint64_t> values, const ArrayOptions& options) {
  const ArrayOptions resolved = options_for_values(values, codec::max_value(values.data(), values.size()), options);
  SmartArray array = allocate(values.size(), resolved);
  if (!values.empty()) codec::encode(values.data(), values.size(), array.bits(), array.replica_words_[0]);
  array.copy_replica_zero_to_others();
  return array;
}

SmartArray SmartArray::from_values(std::span<const std::uint32_t> values, const ArrayOptions& options) {
  std::uint32_t largest = 0;
  for (std::uint32_t v : values) largest = std::max(largest, v);
  SmartArray array = allocate(values.size(), options_for_values(values, largest, options));
  std::uint64_t wide[widen_block_values];
  for (std::uint64_t start = 0; start < values.size(); start += widen_block_values) {
    const std::uint64_t count = std::min<std::uint64_t>(widen_block_values, values.size() - start);
    std::copy_n(values.data() + start, count, wide);
    codec::encode_range(wide, start, count, array.bits(), array.replica_words_[0]);
  }
  array.copy_replica_zero_to_others();
  return array;
}

std::uint64_t SmartArray::memory_estimate(std::uint64_t length, const ArrayOptions& options) {
  const Plan plan = make_plan(length, options);
  const std::uint64_t page = os::MemoryRegion::page_size();
  const std::uint64_t per_replica = (plan.bytes + page - 1) / page * page;
  const std::uint64_t replicas = plan.placed.regions.size();
  if (per_replica > ~std::uint64_t{0} / replicas) {
    throw_error(ErrorCode::out_of_memory, "length " + std::to_string(length) + " in " + std::to_string(replicas) +
                                              " replicas needs more than 2^64 bytes");
  }
  return per_replica * replicas;
}

SmartArray::SmartArray(SmartArray&& other) noexcept
    : length_(std::exchange(other.length_, 0)),
      words_(std::exchange(other.words_, 0)),
      options_(std::exchange(other.options_, ArrayOptions{})),
      regions_(std::move(other.regions_)),
      replica_words_(std::move(other.replica_words_)),
      replica_nodes_(std::move(other.replica_nodes_)),
      replica_of_node_(std::move(other.replica_of_node_)),
      get_(std::exchange(other.get_, nullptr)),
      set_(std::exchange(other.set_, nullptr)),
      kernels_(std::exchange(other.kernels_, nullptr)),
      dirty_(std::move(other.dirty_)),
      dirty_words_(std::exchange(other.dirty_words_, 0)),
      dirty_shift_(std::exchange(other.dirty_shift_, 0)) {}

SmartArray& SmartArray::operator=(SmartArray&& other) noexcept {
  if (this != &other) {
    // Moving into a temporary first leaves other empty and frees our old memory when it dies.
    SmartArray taken(std::move(other));
    std::swap(length_, taken.length_);
    std::swap(words_, taken.words_);
    std::swap(options_, taken.options_);
    std::swap(regions_, taken.regions_);
    std::swap(replica_words_, taken.replica_words_);
    std::swap(replica_nodes_, taken.replica_nodes_);
    std::swap(replica_of_node_, taken.replica_of_node_);
    std::swap(get_, taken.get_);
    std::swap(set_, taken.set_);
    std::swap(kernels_, taken.kernels_);
    std::swap(dirty_, taken.dirty_);
    std::swap(dirty_words_, taken.dirty_words_);
    std::swap(dirty_shift_, taken.dirty_shift_);
  }
  return *this;
}

SmartArray::~SmartArray() = default;

const std::uint64_t* SmartArray::replica(std::size_t r) const {
  if (r >= replica_words_.size()) {
    throw_error(ErrorCode::out_of_range, "replica " + std::to_string(r) + " out of range for " +
                                             std::to_string(replica_words_.size()) + " replicas");
  }
  return replica_words_[r];
}

int SmartArray::replica_node(std::size_t r) const {
  replica(r);
  return replica_nodes_[r];
}

void SmartArray::init(std::uint64_t i, std::uint64_t v) {
  if (i >= length_) detail::throw_index_out_of_range(i, length_);
  if (!codec::fits(v, bits())) throw_value_too_wide(v, i, bits());
  check_writable();
  init_unchecked(i, v);
}

namespace {

// Runs read over words, and when they are borrowed (a mapped file others may cut), fails with the
// mapping guard's Error if read met a page past the file's new end, or the file was found cut before.
template <typename Read>
decltype(auto) guarded_read(bool borrowed, const void* words, Read&& read) {
  if (!borrowed) return read();
  const std::uint64_t faults = os::mapping_faults();
  decltype(auto) result = read();
  os::check_mapping_faults(faults, words);
  return result;
}

}  // namespace

std::uint64_t SmartArray::get_guarded(std::uint64_t i) const {
  return guarded_read(true, local_replica(), [&] { return get_unchecked(i); });
}

void SmartArray::unpack(std::uint64_t chunk, std::uint64_t* out) const {
  if (chunk >= chunks()) detail::throw_chunk_out_of_range(chunk, length_);
  guarded_read(read_only(), local_replica(), [&] {
    kernels_->unpack(local_replica(), chunk, 1, out);
    return 0;
  });
}

void SmartArray::check_range(std::uint64_t start, std::uint64_t count) const {
  if (start > length_ || count > length_ - start) {
    throw_error(ErrorCode::out_of_range, "range of " + std::to_string(count) + " values at index " +
                                             std::to_string(start) + " out of range for length " +
                                             std::to_string(length_));
  }
}

void SmartArray::decode(std::uint64_t start, std::uint64_t count, std::uint64_t* out) const {
  check_range(start, count);
  if (count == 0) return;
  guarded_read(read_only(), local_replica(), [&] {
    codec::decode(local_replica(), bits(), start, count, out);
    return 0;
  });
}

std::uint64_t SmartArray::sum() const { return sum(0, length_); }

std::uint64_t SmartArray::sum(std::uint64_t start, std::uint64_t count) const {
  check_range(start, count);
  if (count == 0) return 0;
  return guarded_read(read_only(), local_replica(), [&] { return codec::sum(local_replica(), bits(), start, count); });
}

std::uint64_t SmartArray::memory_bytes() const noexcept {
  std::uint64_t bytes = 0;
  for (const os::MemoryRegion& region : regions_) bytes += region.mapped_bytes();
  return bytes;
}

std::vector<std::vector<std::uint64_t>> SmartArray::pages_per_node() const {
  std::vector<std::vector<std::uint64_t>> pages;
  pages.reserve(regions_.size());
  for (const os::MemoryRegion& region : regions_) pages.push_back(region.pages_per_node());
  return pages;
}

std::uint64_t SmartArray::huge_page_bytes(std::size_t replica) const {
  this->replica(replica);  // the bounds check and its message
  return regions_[replica].huge_page_bytes();
}

std::vector<SmartArray::Partition> SmartArray::partitions() const {
  std::vector<Partition> ranges;
  if (length_ == 0) return ranges;
  if (options_.placement != Placement::partitioned) {
    // Several replicas are on several nodes: no one node holds the words.
    ranges.push_back({replica_nodes_.size() == 1 ? replica_nodes_[0] : -1, 0, length_});
    return ranges;
  }
  // Chunk c belongs to the stripe holding its first word, c * bits: the stripe of words [wb, we)
  // holds chunks [ceil(wb / bits), ceil(we / bits)).
  const std::uint64_t b = bits();
  auto first_index_at_word = [&](std::uint64_t word) {
    return std::min(length_, (word + b - 1) / b * codec::chunk_values);
  };
  for (const os::MemoryRegion::Stripe& stripe : regions_[0].stripes()) {
    const std::uint64_t begin = first_index_at_word(stripe.begin / sizeof(std::uint64_t));
    const std::uint64_t end = first_index_at_word(stripe.end / sizeof(std::uint64_t));
    if (begin < end) ranges.push_back({stripe.node, begin, end});
  }
  return ranges;
}

SmartArray::Iterator SmartArray::iterate(std::uint64_t start) const { return Iterator(*this, start); }

SmartArray::Iterator SmartArray::begin() const { return Iterator(*this, 0); }

void SmartArray::check_view_bits(unsigned b) const {
  if (b != bits()) {
    throw_error(ErrorCode::invalid_argument,
                "view<" + std::to_string(b) + "> of an array with " + bits_text(bits()));
  }
}

void SmartArray::copy_replica_zero_to_others() noexcept {
  for (std::size_t r = 1; r < replica_words_.size(); ++r) {
    std::memcpy(replica_words_[r], replica_words_[0], words_ * sizeof(std::uint64_t));
  }
}

}  // namespace smartarrays
