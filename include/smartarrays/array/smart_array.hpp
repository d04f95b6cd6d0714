// Owns SmartArray: a fixed-length array of unsigned values bit-packed with b = 1..64 bits (layout of
// docs/bit-layout.md) in one or more replicas placed on NUMA nodes (docs/topology-and-placement.md),
// with checked and unchecked random access, chunk unpacking, range decode and sum, a forward
// iterator that hides replica choice and unpacking (paper Function 4), and statically-typed
// BitsView<B> views for hot loops.
//
// Thread safety: every const member may run concurrently from any number of threads. init() and
// init_unchecked() write shared words (neighbouring values share a word), so a write must not run
// concurrently with any other access to the same array: callers synchronise externally, as the
// paper's read-mostly analytics model assumes. The one exception is a replicated array in
// WriteMode::primary: writes touch replica 0 only, so get() on the other replicas may run during
// them and during build::sync (docs/topology-and-placement.md, "Writable replicas").
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "smartarrays/array/bits_view.hpp"
#include "smartarrays/array/options.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/codec/kernels.hpp"
#include "smartarrays/export.hpp"
#include "smartarrays/os/memory_region.hpp"
#include "smartarrays/os/topology.hpp"

namespace smartarrays {

/// A bit-compressed, NUMA-placed array of unsigned 64-bit values; move-only, owns its memory.
/// Length 0 is allowed (an empty array still maps one padding word per replica).
/// Each replica holds words_per_replica() words in the layout of docs/bit-layout.md followed by one zero
/// padding word, so vector kernels may read one word past the stream; the padding is not part of the format.
class SMARTARRAYS_API SmartArray {
 public:
  class Iterator;

  /// A range of indices whose packed words lie on one node (see partitions()); a runtime::LoopPart too.
  using Partition = os::NodeRange;

  /// A zero-filled array of length values; options.bits must be 1..64. Throws Error, leaks nothing.
  static SmartArray allocate(std::uint64_t length, const ArrayOptions& options);
  /// An array holding values; options.bits 0 picks the fewest bits that hold the largest value.
  /// Throws Error(invalid_argument) "value V at index I needs N bits, array has B" for a value too wide.
  static SmartArray from_values(std::span<const std::uint64_t> values, const ArrayOptions& options);
  /// Like from_values over 64-bit values, from 32-bit ones (e.g. a Java int[]) without a widened copy.
  static SmartArray from_values(std::span<const std::uint32_t> values, const ArrayOptions& options);
  /// The options from_values uses for values whose largest value is largest: bits 0 becomes the
  /// fewest bits that hold largest; other bits are checked (1..64) and must hold largest, else
  /// Error(invalid_argument) names the first value too wide (values is read only then).
  static ArrayOptions options_for_values(std::span<const std::uint64_t> values, std::uint64_t largest,
                                         const ArrayOptions& options);
  /// options_for_values over 32-bit values.
  static ArrayOptions options_for_values(std::span<const std::uint32_t> values, std::uint64_t largest,
                                         const ArrayOptions& options);
  /// A read-only array of length values of bits (1..64) over words another owner holds, such as a
  /// block of a mapped store file: region (see os::MemoryRegion::borrow) must hold the
  /// codec::word_count(length, bits) stream words and a zero padding word. No copy; placement
  /// os_default, one replica. Throws Error(invalid_argument) for bad bits or a region too small.
  static SmartArray over_region(std::uint64_t length, unsigned bits, os::MemoryRegion region);
  /// Bytes allocate(length, options) maps over all replicas (payload and padding, rounded to base
  /// pages; huge pages may round further). Validates options like allocate; options.bits must be 1..64.
  static std::uint64_t memory_estimate(std::uint64_t length, const ArrayOptions& options);

  /// Takes over other's memory; other is left empty (length 0, no replicas) and only fit for destruction or assignment.
  SmartArray(SmartArray&& other) noexcept;
  /// Frees this array's memory and takes over other's.
  SmartArray& operator=(SmartArray&& other) noexcept;
  SmartArray(const SmartArray&) = delete;
  SmartArray& operator=(const SmartArray&) = delete;
  /// Unmaps every replica.
  ~SmartArray();

  /// Number of values.
  std::uint64_t length() const noexcept { return length_; }
  /// Bits per value (1..64).
  unsigned bits() const noexcept { return options_.bits; }
  /// Where the pages live.
  Placement placement() const noexcept { return options_.placement; }
  /// The effective options: bits resolved, and for interleaved / replicated / partitioned the node set used.
  const ArrayOptions& options() const noexcept { return options_; }
  /// Number of replicas (the node count of the set for replicated, 1 otherwise).
  std::size_t replicas() const noexcept { return replica_words_.size(); }
  /// The packed words of replica r (layout of docs/bit-layout.md); throws Error(out_of_range) for a bad r.
  const std::uint64_t* replica(std::size_t r) const;
  /// The packed words of replica r, writable, for bulk writers that fill each replica on its own
  /// node: they must write the same stream into every replica before the array is read.
  /// Throws Error(invalid_argument) for a read_only() array.
  std::uint64_t* mutable_replica(std::size_t r);
  /// True for arrays over borrowed read-only memory (over_region): init() and mutable_replica()
  /// throw, and init_unchecked() must not be called.
  bool read_only() const noexcept { return !regions_.empty() && !regions_[0].writable(); }
  /// The logical node replica r is bound to (-1 unless the placement binds the whole replica to one node).
  int replica_node(std::size_t r) const;
  /// Words of the stream in each replica: codec::word_count(length(), bits()) (padding excluded).
  std::uint64_t words_per_replica() const noexcept { return words_; }

  /// The replica serving threads of logical node node: its own, else the nearest by distance.
  std::size_t replica_index_for_node(int node) const noexcept {
    if (replica_words_.size() <= 1) return 0;
    return static_cast<std::size_t>(node) < replica_of_node_.size() ? replica_of_node_[static_cast<std::size_t>(node)] : 0;
  }
  /// The replica serving the calling thread (os::current_node(), one table read).
  std::size_t local_replica_index() const noexcept {
    return replica_words_.size() <= 1 ? 0 : replica_index_for_node(os::current_node());
  }
  /// The packed words of the calling thread's replica.
  const std::uint64_t* local_replica() const noexcept { return replica_words_[local_replica_index()]; }

  /// Value i from the local replica; throws Error(out_of_range) "index I out of range for length N".
  /// A read of a mapped file cut underneath (read_only() arrays) throws Error(os_error) naming the file.
  std::uint64_t get(std::uint64_t i) const {
    if (i >= length_) detail::throw_index_out_of_range(i, length_);
    if (read_only()) return get_guarded(i);
    return get_unchecked(i);
  }
  /// Value i from the local replica, unchecked (i < length() is the caller's promise).
  std::uint64_t get_unchecked(std::uint64_t i) const noexcept { return get_(local_replica(), i); }
  /// Stores v as value i in every replica (paper Function 2); throws Error for a bad i or a v wider than bits().
  void init(std::uint64_t i, std::uint64_t v);
  /// Stores v as value i in every replica (in WriteMode::primary: in replica 0, marking its group
  /// dirty), unchecked (i < length(), v < 2^bits() and !read_only() are the caller's promise).
  void init_unchecked(std::uint64_t i, std::uint64_t v) noexcept {
    if (dirty_ != nullptr) {
      set_(replica_words_[0], i, v);
      mark_dirty(i);
      return;
    }
    for (std::uint64_t* words : replica_words_) set_(words, i, v);
  }
  /// Decodes the 64 values of chunk c of the local replica into out[0..63] (zeros past the end);
  /// throws Error(out_of_range) for c >= chunks().
  void unpack(std::uint64_t chunk, std::uint64_t* out) const;
  /// Decodes values [start, start + count) of the local replica into out; throws Error(out_of_range) for a bad range.
  void decode(std::uint64_t start, std::uint64_t count, std::uint64_t* out) const;
  /// Wrapping sum of every value (fused decode and add on the local replica).
  std::uint64_t sum() const;
  /// Wrapping sum of values [start, start + count); throws Error(out_of_range) for a bad range.
  std::uint64_t sum(std::uint64_t start, std::uint64_t count) const;
  /// Number of 64-value chunks (the last may be partial).
  std::uint64_t chunks() const noexcept { return codec::chunk_count(length_); }

  /// Bytes mapped by all replicas.
  std::uint64_t memory_bytes() const noexcept;
  /// Pages of each replica on each kernel node: result[r][os_node] (move_pages query mode).
  std::vector<std::vector<std::uint64_t>> pages_per_node() const;
  /// Bytes of replica r that the kernel backs with huge pages now (transparent or hugetlb);
  /// throws Error(out_of_range) for replica >= replicas().
  std::uint64_t huge_page_bytes(std::size_t replica) const;
  /// CRC32C (Castagnoli, the store's checksum) of replica r's packed words (words_per_replica() words,
  /// without the padding word), on the calling thread (build::crc32c computes it on a pool); throws
  /// Error(out_of_range) for replica >= replicas().
  std::uint32_t crc32c(std::size_t replica) const;
  /// Whether every replica holds the same packed words as replica 0 (true with one replica), on the
  /// calling thread (build::replicas_equal compares on a pool).
  bool replicas_equal() const;
  // Writable replicas (WriteMode::primary, Shoal's repl_sync); build::sync propagates the writes.
  /// How init() reaches the replicas (options().write_mode).
  WriteMode write_mode() const noexcept { return options_.write_mode; }
  /// True when init() writes replica 0 only and tracks dirty groups: WriteMode::primary with replicas.
  bool tracks_writes() const noexcept { return dirty_ != nullptr; }
  /// Values per dirty group (a power-of-two number of chunks, about 4 KiB of words): init() in
  /// primary mode marks the group holding its index, and a sync copies whole dirty groups.
  std::uint64_t dirty_group_values() const noexcept { return codec::chunk_values << dirty_shift_; }
  /// Takes the dirty bitmap (bit g of word g / 64: group g written since the last take) and clears
  /// it; empty when the array does not track writes. A sync takes it before copying.
  std::vector<std::uint64_t> take_dirty_groups();
  /// Whether any group is dirty (written in replica 0 and not yet synced).
  bool has_dirty_groups() const noexcept;

  /// Chunk-aligned index ranges and the node holding their words: one per stripe for partitioned
  /// arrays, else one range over the whole array (node -1 unless one node holds every word). It is
  /// a loop's layout as it stands: runtime::LoopOptions::layout = partitions() runs each stripe's
  /// batches on its node first.
  std::vector<Partition> partitions() const;

  /// A forward iterator at index start over the calling thread's replica; throws Error(out_of_range) if start > length().
  Iterator iterate(std::uint64_t start = 0) const;
  /// iterate(0), for range-for.
  Iterator begin() const;
  /// The end of a range-for: an iterator equals it once it reaches length().
  std::default_sentinel_t end() const noexcept { return std::default_sentinel; }

  /// A typed view of the calling thread's replica; throws Error(invalid_argument) unless bits() == B.
  template <unsigned B>
  BitsView<B> view() const {
    return view<B>(local_replica_index());
  }
  /// A typed view of replica r; throws Error(invalid_argument) unless bits() == B, Error(out_of_range) for a bad r.
  template <unsigned B>
  BitsView<B> view(std::size_t r) const {
    check_view_bits(B);
    return BitsView<B>(replica(r), length_);
  }
  /// Calls f(BitsView<bits()>) over the calling thread's replica: one dispatch on the bit width,
  /// then f's loop runs with the width as a constant. Every instantiation of f must return the same type.
  template <typename F>
  decltype(auto) visit(F&& f) const {
    const std::uint64_t* words = local_replica();
    return codec::with_bits(bits(), [&](auto b) -> decltype(auto) {
      return f(BitsView<decltype(b)::value>(words, length_));
    });
  }

 private:
  using GetFn = std::uint64_t (*)(const std::uint64_t*, std::uint64_t) noexcept;
  using SetFn = void (*)(std::uint64_t*, std::uint64_t, std::uint64_t) noexcept;

  SmartArray() = default;
  void check_view_bits(unsigned b) const;
  void check_writable() const;
  void bind_kernels();
  void check_range(std::uint64_t start, std::uint64_t count) const;
  std::uint64_t get_guarded(std::uint64_t i) const;
  void copy_replica_zero_to_others() noexcept;
  void start_tracking_writes();
  void mark_dirty(std::uint64_t i) noexcept {
    const std::uint64_t group = (i / codec::chunk_values) >> dirty_shift_;
    std::atomic<std::uint64_t>& word = dirty_[group / 64];
    const std::uint64_t bit = std::uint64_t{1} << (group % 64);
    // A plain load first: rewriting a dirty group costs no read-modify-write.
    if ((word.load(std::memory_order_relaxed) & bit) == 0) word.fetch_or(bit, std::memory_order_relaxed);
  }

  std::uint64_t length_ = 0;
  std::uint64_t words_ = 0;
  ArrayOptions options_;
  std::vector<os::MemoryRegion> regions_;      // one per replica
  std::vector<std::uint64_t*> replica_words_;  // regions_[r].data(), typed
  std::vector<int> replica_nodes_;             // logical node of each replica, -1 if not bound to one
  std::vector<std::size_t> replica_of_node_;   // logical node -> serving replica (replicated only)
  GetFn get_ = nullptr;                        // codec::get<bits()>
  SetFn set_ = nullptr;                        // codec::set<bits()>
  const codec::Kernels* kernels_ = nullptr;    // codec::kernels(bits())
  std::unique_ptr<std::atomic<std::uint64_t>[]> dirty_;  // primary-mode dirty groups, one bit each (else null)
  std::uint64_t dirty_words_ = 0;                        // words of dirty_
  unsigned dirty_shift_ = 0;                             // log2 of chunks per dirty group
};

/// A forward iterator over one replica (chosen once, at construction, for the calling thread) that
/// decodes a 64-value chunk at a time into an internal buffer (paper's SmartArrayIterator). Works in
/// range-for and std::ranges algorithms, and as an explicit cursor: get(), next(), reset(index).
/// 64-bit arrays are read in place; the iterator must not outlive its array.
class SMARTARRAYS_API SmartArray::Iterator {
 public:
  using value_type = std::uint64_t;
  using difference_type = std::ptrdiff_t;
  using iterator_concept = std::forward_iterator_tag;
  using iterator_category = std::input_iterator_tag;  // operator* returns by value, so not a Cpp17 forward iterator

  /// An iterator over nothing (equal to the end sentinel).
  Iterator() = default;
  /// An iterator at index start of array's replica for the calling thread; throws Error(out_of_range) if start > length.
  Iterator(const SmartArray& array, std::uint64_t start);
  /// Copies the position and the decoded chunk.
  Iterator(const Iterator& other) noexcept;
  /// Copies the position and the decoded chunk.
  Iterator& operator=(const Iterator& other) noexcept;

  /// The value at index(), unchecked (index() < length is the caller's promise).
  std::uint64_t get() const noexcept { return chunk_[index_ & (codec::chunk_values - 1)]; }
  /// Moves to the next index, decoding the next chunk when it crosses into one.
  void next() noexcept {
    if ((++index_ & (codec::chunk_values - 1)) == 0 && index_ < length_) load();
  }
  /// Moves to index (0..length); throws Error(out_of_range) past the end.
  void reset(std::uint64_t index);
  /// The current index.
  std::uint64_t index() const noexcept { return index_; }
  /// True once index() reached the length.
  bool at_end() const noexcept { return index_ >= length_; }

  /// The value at index(), unchecked, like get().
  std::uint64_t operator*() const noexcept { return get(); }
  /// next(), returning this iterator.
  Iterator& operator++() noexcept {
    next();
    return *this;
  }
  /// next(), returning a copy from before the move.
  Iterator operator++(int) noexcept {
    Iterator before = *this;
    next();
    return before;
  }
  /// Same position (iterators of the same array).
  friend bool operator==(const Iterator& a, const Iterator& b) noexcept { return a.index_ == b.index_; }
  /// At the end.
  friend bool operator==(const Iterator& it, std::default_sentinel_t) noexcept { return it.at_end(); }

 private:
  void load() noexcept;

  const std::uint64_t* words_ = nullptr;
  const codec::Kernels* kernels_ = nullptr;
  std::uint64_t length_ = 0;
  std::uint64_t index_ = 0;
  unsigned bits_ = 0;
  // Values of the current chunk: buffer_, or for 64-bit arrays the replica's words themselves.
  const std::uint64_t* chunk_ = buffer_;
  std::uint64_t buffer_[codec::chunk_values] = {};
};

}  // namespace smartarrays
