// Owns the .sg loading path (see sg_load.hpp). Workers read their own file ranges at offsets
// (SgFile, sg_file.hpp, which also checks the header), so nothing but the offsets and a batch buffer
// per worker is held besides the final arrays. The symmetry of an undirected file and the transpose
// relation of a directed one are checked without building a transpose: the multiset of edges u -> v
// read from the lists must equal the multiset read the other way round, compared as 64-bit sums of a
// hash keyed afresh per process, so an input cannot be crafted against it. An undirected file needs
// one hash per edge: u -> v adds h(u, v) when u < v and subtracts it when u > v, so the sum is 0 when
// every edge has its reverse.
#include "graph/sg_load.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <random>
#include <string>
#include <utility>

#include "graph/csr_parts.hpp"
#include "graph/sg_file.hpp"
#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/graph/limits.hpp"
#include "smartarrays/util/checked.hpp"
#include "smartarrays/util/mix64.hpp"

namespace smartarrays::graph::detail {

namespace {

// Ids per batch of the id passes: 1 MiB of int32 per worker buffer.
constexpr std::uint64_t id_batch = std::uint64_t{1} << 18;
constexpr std::uint64_t offset_batch = std::uint64_t{1} << 17;

FileStamp stamp_of(const SgFile& file) {
  struct stat st {};
  if (::fstat(file.input().descriptor(), &st) != 0) os::fail_on_path("stat", file.path(), errno);
  return {static_cast<std::uint64_t>(st.st_size), st.st_mtim.tv_sec, st.st_mtim.tv_nsec};
}

// The per-process key of the edge hash.
std::uint64_t hash_key() {
  static const std::uint64_t key = [] {
    std::random_device device;
    return (std::uint64_t{device()} << 32) ^ device();
  }();
  return key;
}

// What an id pass over a range of one part's lists found.
struct IdStats {
  std::uint64_t largest = 0;
  std::uint64_t hash = 0;  // the edges' hash sum (see HashSum)
  bool bad = false;       // an id outside 0..n-1, or the file ended
  bool unsorted = false;  // a list not ascending
  bool duplicates = false;
  bool self_loops = false;

  void merge(const IdStats& o) {
    largest = std::max(largest, o.largest);
    hash += o.hash;
    bad = bad || o.bad;
    unsorted = unsorted || o.unsorted;
    duplicates = duplicates || o.duplicates;
    self_loops = self_loops || o.self_loops;
  }
};

std::uint64_t edge_hash(std::uint64_t from, std::uint64_t to, std::uint64_t key) {
  return util::mix64(((from << 32) | to) + key);
}

// Reads ids [lo, hi) of a part whose offsets are known into the calling thread's buffer; null when
// the file ends first.
const std::int32_t* read_ids(const SgFile& file, const SgPart& part, std::uint64_t lo, std::uint64_t hi) {
  thread_local std::vector<std::int32_t> buffer;
  buffer.resize(hi - lo);
  if (!file.read_at(part.ids_at + lo * sizeof(std::int32_t), buffer.data(), buffer.size() * sizeof(std::int32_t))) {
    return nullptr;
  }
  return buffer.data() - lo;
}

// What a scan sums over the edges owner -> id of a part's lists: a directed file's out-lists read
// forward must match its in-lists read in reverse; an undirected file's pairs must balance.
enum class HashSum {
  forward,  // h(owner, id)
  reverse,  // h(id, owner)
  balance,  // +h(owner, id) when owner < id, -h(id, owner) when owner > id, 0 for a loop
};

// Scans ids [lo, hi) of a part whose offsets are known: range, order, repeats, self-loops and the
// edge hash sum; the ids go to out[0, hi - lo) too when out is not null.
template <HashSum Sum>
IdStats scan_id_range(const SgFile& file, const SgPart& part, const std::vector<std::uint64_t>& offsets,
                      std::uint64_t n, std::uint64_t lo, std::uint64_t hi, std::uint64_t* out = nullptr) {
  IdStats stats;
  // One id before lo as well, to check the order across the batch boundary.
  const std::int32_t* ids = read_ids(file, part, lo == 0 ? 0 : lo - 1, hi);
  if (ids == nullptr) {
    stats.bad = true;
    return stats;
  }
  // The vertex whose list holds edge lo: the last v with offsets[v] <= lo.
  std::uint64_t v = static_cast<std::uint64_t>(std::upper_bound(offsets.begin(), offsets.end(), lo) - offsets.begin()) - 1;
  const std::uint64_t key = hash_key();
  for (std::uint64_t e = lo; e < hi; ++e) {
    while (offsets[v + 1] <= e) ++v;
    const std::int32_t raw = ids[e];
    if (raw < 0 || static_cast<std::uint64_t>(raw) >= n) {
      stats.bad = true;
      return stats;
    }
    const auto id = static_cast<std::uint64_t>(raw);
    if (e > offsets[v]) {
      const auto previous = static_cast<std::uint64_t>(ids[e - 1]);
      stats.unsorted = stats.unsorted || id < previous;
      stats.duplicates = stats.duplicates || id == previous;
    }
    stats.self_loops = stats.self_loops || id == v;
    stats.largest = std::max(stats.largest, id);
    if constexpr (Sum == HashSum::forward) {
      stats.hash += edge_hash(v, id, key);
    } else if constexpr (Sum == HashSum::reverse) {
      stats.hash += edge_hash(id, v, key);
    } else if (v < id) {
      stats.hash += edge_hash(v, id, key);
    } else if (v > id) {
      stats.hash -= edge_hash(id, v, key);
    }
    if (out != nullptr) out[e - lo] = id;
  }
  return stats;
}

IdStats scan_id_range_as(HashSum sum, const SgFile& file, const SgPart& part,
                         const std::vector<std::uint64_t>& offsets, std::uint64_t n, std::uint64_t lo, std::uint64_t hi,
                         std::uint64_t* out) {
  switch (sum) {
    case HashSum::forward:
      return scan_id_range<HashSum::forward>(file, part, offsets, n, lo, hi, out);
    case HashSum::reverse:
      return scan_id_range<HashSum::reverse>(file, part, offsets, n, lo, hi, out);
    case HashSum::balance:
      break;
  }
  return scan_id_range<HashSum::balance>(file, part, offsets, n, lo, hi, out);
}

// Reads ids [lo, hi) of a checked part into out, widened; false when one is not below limit (or
// the file ended): the file changed since it was checked.
bool trusted_id_range(const SgFile& file, const SgPart& part, std::uint64_t limit, std::uint64_t lo,
                     std::uint64_t hi, std::uint64_t* out) {
  const std::int32_t* ids = read_ids(file, part, lo, hi);
  if (ids == nullptr) return false;
  // Unsigned: a negative id is a large value, beyond limit.
  std::uint64_t largest = 0;
  for (std::uint64_t e = lo; e < hi; ++e) {
    const auto id = static_cast<std::uint64_t>(static_cast<std::uint32_t>(ids[e]));
    largest = std::max(largest, id);
    out[e - lo] = id;
  }
  return largest < limit;
}

runtime::LoopOptions batches_of(std::uint64_t batch) {
  runtime::LoopOptions options;
  options.batch = batch;
  return options;
}

// Reads and checks the n + 1 offsets of a part: from 0, never decreasing, ending at m. False when not.
bool read_offsets(const SgFile& file, const SgPart& part, std::uint64_t n, std::uint64_t m,
                  std::vector<std::uint64_t>& offsets, runtime::ThreadPool& pool) {
  offsets.resize(n + 1);
  std::uint64_t* values = offsets.data();
  const bool complete = pool.parallel_reduce(
      0, n + 1, true,
      [&](std::uint64_t lo, std::uint64_t hi) {
        return file.read_at(part.offsets_at + lo * sizeof(std::uint64_t), values + lo, (hi - lo) * sizeof(std::uint64_t));
      },
      [](bool a, bool b) { return a && b; }, batches_of(offset_batch));
  if (!complete || values[0] != 0 || values[n] != m) return false;
  return pool.parallel_reduce(
      0, n, true,
      [&](std::uint64_t lo, std::uint64_t hi) {
        for (std::uint64_t v = lo; v < hi; ++v) {
          if (values[v + 1] < values[v] || values[v + 1] > m) return false;
        }
        return true;
      },
      [](bool a, bool b) { return a && b; });
}

IdStats scan_ids(const SgFile& file, const SgPart& part, const std::vector<std::uint64_t>& offsets,
                 std::uint64_t n, std::uint64_t m, HashSum sum, runtime::ThreadPool& pool) {
  auto range = [&](std::uint64_t lo, std::uint64_t hi) {
    return scan_id_range_as(sum, file, part, offsets, n, lo, hi, nullptr);
  };
  return pool.parallel_reduce(
      0, m, IdStats{}, range,
      [](IdStats a, const IdStats& b) {
        a.merge(b);
        return a;
      },
      batches_of(id_batch));
}

// The bytes that holding `values` 64-bit values takes, for the memory check.
std::uint64_t vector_bytes(std::uint64_t values) {
  return util::checked_mul(values, sizeof(std::uint64_t), "the offsets of a graph file");
}

std::string stamp_key(const FileStamp& s) {
  return std::to_string(s.bytes) + ":" + std::to_string(s.seconds) + ":" + std::to_string(s.nanoseconds);
}

// The largest v whose offsets say it has a list entry (0 when none): in a valid file, the largest
// id of the other direction's lists.
std::uint64_t largest_listed(const std::vector<std::uint64_t>& offsets, runtime::ThreadPool& pool) {
  return pool.parallel_reduce(
      0, offsets.size() - 1, std::uint64_t{0},
      [&](std::uint64_t lo, std::uint64_t hi) {
        for (std::uint64_t v = hi; v > lo; --v) {
          if (offsets[v] != offsets[v - 1]) return v - 1;
        }
        return std::uint64_t{0};
      },
      [](std::uint64_t a, std::uint64_t b) { return std::max(a, b); });
}

// source.path + ": the file changed since it was read (STAMP)".
[[noreturn]] void fail_changed(const SgSource& source, const FileStamp& now) {
  throw_error(ErrorCode::invalid_argument, source.path + ": the file changed since it was read (" + stamp_key(now) + ")");
}

// Throws fail_changed unless file is as source opened it.
void check_unchanged(const SgSource& source, const SgFile& file) {
  const FileStamp now = stamp_of(file);
  if (now != source.stamp) fail_changed(source, now);
}

// The options of id array `which` whose largest id is largest: the layout's, with the fewest bits
// that hold largest unless the layout names a width.
ArrayOptions id_options(const GraphLayout& layout, GraphArray which, std::uint64_t largest) {
  ArrayOptions resolved = layout[which];
  if (resolved.bits == 0) resolved.bits = codec::min_bits(largest);
  return resolved;
}

// True when largest fits resolved's width.
bool fits(const ArrayOptions& resolved, std::uint64_t largest) { return resolved.bits >= 64 || largest >> resolved.bits == 0; }

// Throws Error(invalid_argument) "graph array NAME of M values: value V needs B bits, array has W" for the largest id V.
[[noreturn]] void fail_width(GraphArray which, std::uint64_t length, std::uint64_t largest, const ArrayOptions& resolved) {
  throw_error(ErrorCode::invalid_argument, detail::array_context(which, length) + ": value " + std::to_string(largest) +
                                               " needs " + std::to_string(codec::min_bits(largest)) +
                                               " bits, array has " + std::to_string(resolved.bits));
}

// Keeps what a pass that read every id of a valid file with ascending lists found.
void record_checked(SgSource& source, const IdStats& out) {
  source.checked = true;
  // A directed file's in-lists are the transpose of its out-lists: they repeat and loop as those do.
  source.duplicates = out.duplicates;
  source.self_loops = out.self_loops;
}

// The byte offset where the out-edges end (the in-edges start, or the file ends).
std::uint64_t out_end(const SgFile& file) { return file.out().ids_at + file.header().edges * sizeof(std::int32_t); }

// Reads every id of source's file, checking them and building nothing; true (and what it found kept
// in source) when the file is valid with ascending lists.
bool check_ids(SgSource& source, const SgFile& file, runtime::ThreadPool& pool) {
  const std::uint64_t n = source.vertices;
  const std::uint64_t m = source.edges;
  auto progress = [&](std::uint64_t done) {
    if (source.read.progress) source.read.progress(done, source.stamp.bytes);
  };
  const IdStats out = scan_ids(file, file.out(), source.out_offsets, n, m,
                               source.directed ? HashSum::forward : HashSum::balance, pool);
  progress(out_end(file));
  check_unchanged(source, file);
  if (out.bad || out.unsorted || out.largest > source.largest_out_id) return false;
  if (!source.directed) {
    if (out.hash != 0) return false;
    record_checked(source, out);
    return true;
  }
  const IdStats in = scan_ids(file, file.in(), source.in_offsets, n, m, HashSum::reverse, pool);
  progress(source.stamp.bytes);
  check_unchanged(source, file);
  // The in-list of v holding u is the edge u -> v: its reverse hash is the out-edges' forward one.
  if (in.bad || in.unsorted || in.largest > source.largest_in_id || in.hash != out.hash) return false;
  record_checked(source, out);
  return true;
}

// The graph of source's file, each id read straight into its final array: checked, hashed and
// written in one pass, or trusted once source.checked. None when an unchecked file turns out not
// valid with ascending lists.
std::optional<CsrGraph> stream(SgSource& source, const SgFile& file, const BuildOptions& options,
                               const ArrayOptions& edge_options, const ArrayOptions& redge_options,
                               runtime::ThreadPool& pool) {
  const std::uint64_t n = source.vertices;
  const std::uint64_t m = source.edges;
  const GraphLayout& layout = options.layout;
  std::uint64_t bytes = SmartArray::memory_estimate(m, edge_options);
  if (source.directed) bytes += SmartArray::memory_estimate(m, redge_options);
  check_load_memory(bytes, n, m, source.path + ": ");
  const bool trusted = source.checked;
  auto progress = [&](std::uint64_t done) {
    if (!trusted && source.read.progress) source.read.progress(done, source.stamp.bytes);
  };
  std::mutex merge;
  std::atomic<bool> changed{false};
  auto ids_of = [&](const SgPart& part, const std::vector<std::uint64_t>& offsets, HashSum sum, std::uint64_t largest,
                    GraphArray which, const ArrayOptions& resolved, IdStats& stats) {
    return with_context(detail::array_context(which, m), [&] {
      return build::build_array(
          m, resolved,
          [&](std::uint64_t lo, std::uint64_t hi, std::uint64_t* values) {
            if (trusted) {
              if (!trusted_id_range(file, part, largest + 1, lo, hi, values)) {
                changed.store(true, std::memory_order_relaxed);
                std::fill(values, values + (hi - lo), 0);
              }
              return;
            }
            IdStats s = scan_id_range_as(sum, file, part, offsets, n, lo, hi, values);
            if (s.bad || s.largest > largest) {
              s.bad = true;
              std::fill(values, values + (hi - lo), 0);
            }
            const std::lock_guard<std::mutex> lock(merge);
            stats.merge(s);
          },
          pool);
    });
  };
  auto check_part = [&] {
    if (changed.load()) fail_changed(source, stamp_of(file));
    check_unchanged(source, file);
  };
  IdStats out_stats;
  SmartArray edge = ids_of(file.out(), source.out_offsets, source.directed ? HashSum::forward : HashSum::balance,
                           source.largest_out_id, GraphArray::edge, edge_options, out_stats);
  progress(out_end(file));
  check_part();
  if (out_stats.bad || out_stats.unsorted) return std::nullopt;
  SmartArray begin = encode_graph_array(GraphArray::begin, source.out_offsets, layout[GraphArray::begin], pool);
  if (!source.directed) {
    if (out_stats.hash != 0) return std::nullopt;
    if (!trusted) record_checked(source, out_stats);
    return CsrGraph(std::move(begin), std::move(edge));
  }
  IdStats in_stats;
  SmartArray redge = ids_of(file.in(), source.in_offsets, HashSum::reverse, source.largest_in_id, GraphArray::redge,
                            redge_options, in_stats);
  progress(source.stamp.bytes);
  check_part();
  if (in_stats.bad || in_stats.unsorted || in_stats.hash != out_stats.hash) return std::nullopt;
  if (!trusted) record_checked(source, out_stats);
  SmartArray rbegin = encode_graph_array(GraphArray::rbegin, source.in_offsets, layout[GraphArray::rbegin], pool);
  std::array<SmartArray, graph_array_count> arrays{std::move(begin), std::move(edge), std::move(rbegin), std::move(redge)};
  return CsrGraph(std::move(arrays), true);
}

// Keeps the out-edges the general reader reads of source's file (it throws naming the problem of a
// malformed file), for every build from now on; the offsets are no longer needed.
void read_general(SgSource& source, runtime::ThreadPool& pool) {
  source.general = read_gap_sg(source.path, source.read, pool).out;
  release(source.out_offsets);
  release(source.in_offsets);
}

}  // namespace

std::shared_ptr<SgSource> open_sg(const std::string& path, const ReadOptions& read, runtime::ThreadPool& pool) {
  const SgFile file(path);
  auto source = std::make_shared<SgSource>();
  source->path = path;
  source->read = read;
  source->stamp = stamp_of(file);
  source->directed = file.header().directed;
  source->vertices = file.header().vertices;
  source->edges = file.header().edges;
  const std::uint64_t n = source->vertices;
  const std::uint64_t m = source->edges;
  check_load_memory(vector_bytes(util::checked_mul(n + 1, source->directed ? 2 : 1, "the offsets of a graph file")), n, m,
                    file.where(1));
  if (!read_offsets(file, file.out(), n, m, source->out_offsets, pool) ||
      (source->directed && !read_offsets(file, file.in(), n, m, source->in_offsets, pool))) {
    read_general(*source, pool);
    return source;
  }
  // In a valid file an out-list names exactly the vertices with in-edges (undirected: with edges),
  // so the ids' widths are known before any id is read; an id beyond them makes the file invalid.
  source->largest_out_id = largest_listed(source->directed ? source->in_offsets : source->out_offsets, pool);
  source->largest_in_id = source->directed ? largest_listed(source->out_offsets, pool) : 0;
  return source;
}

CsrGraph build_sg(SgSource& source, const BuildOptions& options, runtime::ThreadPool& pool, bool last_use) {
  const std::lock_guard<std::mutex> lock(source.building);
  if (!source.general) {
    const SgFile file(source.path);
    check_unchanged(source, file);
    const GraphLayout& layout = options.layout;
    const bool directed = source.directed;
    const ArrayOptions edge_options = id_options(layout, GraphArray::edge, source.largest_out_id);
    const ArrayOptions redge_options = id_options(layout, GraphArray::redge, source.largest_in_id);
    const bool edge_fits = fits(edge_options, source.largest_out_id);
    const bool redge_fits = !directed || fits(redge_options, source.largest_in_id);
    // The one-pass fill checks what it writes, each id once. Dropping edges needs to know of repeats
    // before, a replicated array is filled once per replica, and a width too narrow for the ids is
    // the options' error only in a valid file: those read the ids to check them first.
    const bool check_first = options.dedup || options.drop_self_loops ||
                             layout[GraphArray::edge].placement == Placement::replicated ||
                             (directed && layout[GraphArray::redge].placement == Placement::replicated) || !edge_fits ||
                             !redge_fits;
    if (source.checked || !check_first || check_ids(source, file, pool)) {
      if (source.checked && !edge_fits) fail_width(GraphArray::edge, source.edges, source.largest_out_id, edge_options);
      if (source.checked && !redge_fits) fail_width(GraphArray::redge, source.edges, source.largest_in_id, redge_options);
      const bool drops = (options.dedup && source.duplicates) || (options.drop_self_loops && source.self_loops);
      if (!drops) {
        if (std::optional<CsrGraph> graph = stream(source, file, options, edge_options, redge_options, pool)) {
          return std::move(*graph);
        }
      } else {
        // A valid file whose repeats or self-loops these options drop: its lists, read for this build.
        SgContents contents = read_gap_sg(source.path, {}, pool);
        return build_csr(std::move(contents.out), contents.directed, options, pool);
      }
    }
    // Not valid with ascending lists: the general reader names the problem, or reads the lists to sort.
    read_general(source, pool);
  }
  if (last_use) return build_csr(std::move(*source.general), source.directed, options, pool);
  return build_csr(*source.general, source.directed, options, pool);
}

}  // namespace smartarrays::graph::detail
