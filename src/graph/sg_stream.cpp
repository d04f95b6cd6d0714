// Owns the streaming .sg path (see sg_stream.hpp). Workers read their own file ranges at offsets
// (SgFile, sg_file.hpp, which also checks the header),
// so nothing but the offsets and a batch buffer per worker is held besides the final arrays. The
// symmetry of an undirected file and the transpose relation of a directed one are checked without
// building a transpose: the multiset of edges u -> v read from the lists must equal the multiset
// read the other way round, compared as 64-bit sums of a hash keyed afresh per process, so an input
// cannot be crafted against it. An undirected file needs one hash per edge: u -> v adds h(u, v)
// when u < v and subtracts it when u > v, so the sum is 0 when every edge has its reverse.
#include "graph/sg_stream.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <mutex>
#include <random>
#include <string>

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

// Size and modification time: a file that changes between the scan and the encoding is refused.
struct FileStamp {
  std::uint64_t bytes = 0;
  std::int64_t seconds = 0;
  std::int64_t nanoseconds = 0;
  friend bool operator==(const FileStamp&, const FileStamp&) = default;
};

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

// Reads ids [lo, hi) of a scanned part into out, widened; false when one is not below limit (or
// the file ended): the file changed since the scan.
bool encode_id_range(const SgFile& file, const SgPart& part, std::uint64_t limit, std::uint64_t lo,
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

}  // namespace

namespace {

// The scan of file's header; checks the offsets' memory.
SgScan scan_of(const SgFile& file) {
  SgScan scan;
  scan.path = file.path();
  scan.file_bytes = file.size();
  scan.directed = file.header().directed;
  scan.vertices = file.header().vertices;
  scan.edges = file.header().edges;
  check_load_memory(vector_bytes(util::checked_mul(scan.vertices + 1, scan.directed ? 2 : 1, "the offsets of a graph file")),
                    scan.vertices, scan.edges, file.where(1));
  return scan;
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

}  // namespace

std::optional<SgScan> scan_sg(const std::string& path, const ReadOptions& options, runtime::ThreadPool& pool) {
  const SgFile file(path);
  const FileStamp stamp = stamp_of(file);
  SgScan scan = scan_of(file);
  const SgPart out = file.out();
  const SgPart in = file.in();
  auto progress = [&](std::uint64_t done) {
    if (options.progress) options.progress(done, stamp.bytes);
  };
  if (!read_offsets(file, out, scan.vertices, scan.edges, scan.out_offsets, pool)) return std::nullopt;
  const IdStats out_ids = scan_ids(file, out, scan.out_offsets, scan.vertices, scan.edges,
                                   scan.directed ? HashSum::forward : HashSum::balance, pool);
  progress(in.offsets_at);
  if (out_ids.bad || out_ids.unsorted) return std::nullopt;
  scan.largest_out_id = out_ids.largest;
  scan.duplicates = out_ids.duplicates;
  scan.self_loops = out_ids.self_loops;
  if (!scan.directed) {
    if (out_ids.hash != 0) return std::nullopt;
    return scan;
  }
  if (!read_offsets(file, in, scan.vertices, scan.edges, scan.in_offsets, pool)) return std::nullopt;
  const IdStats in_ids = scan_ids(file, in, scan.in_offsets, scan.vertices, scan.edges, HashSum::reverse, pool);
  progress(stamp.bytes);
  if (in_ids.bad || in_ids.unsorted) return std::nullopt;
  // The in-list of v holding u is the edge u -> v: its reverse hash is the out-edges' forward one.
  if (out_ids.hash != in_ids.hash) return std::nullopt;
  scan.largest_in_id = in_ids.largest;
  if (stamp_of(file) != stamp) return std::nullopt;
  return scan;
}

bool streams_as_is(const SgScan& scan, const BuildOptions& options) {
  return !(options.dedup && scan.duplicates) && !(options.drop_self_loops && scan.self_loops);
}

CsrGraph encode_sg(const SgScan& scan, const BuildOptions& options, runtime::ThreadPool& pool) {
  const SgFile file(scan.path);
  const FileStamp stamp = stamp_of(file);
  auto changed = [&] {
    throw_error(ErrorCode::invalid_argument, scan.path + ": the file changed since it was read (" + stamp_key(stamp) + ")");
  };
  if (stamp.bytes != scan.file_bytes) changed();
  const std::uint64_t n = scan.vertices;
  const std::uint64_t m = scan.edges;
  const GraphLayout& layout = options.layout;
  auto id_options = [&](GraphArray which, std::uint64_t largest) {
    ArrayOptions resolved = layout[which];
    if (resolved.bits == 0) resolved.bits = codec::min_bits(largest);
    if (resolved.bits < 64 && largest >> resolved.bits != 0) {
      throw_error(ErrorCode::invalid_argument, std::string("graph array ") + to_string(which) + ": value " +
                                                   std::to_string(largest) + " needs " +
                                                   std::to_string(codec::min_bits(largest)) + " bits, array has " +
                                                   std::to_string(resolved.bits));
    }
    return resolved;
  };
  const ArrayOptions edge_options = id_options(GraphArray::edge, scan.largest_out_id);
  std::uint64_t bytes = SmartArray::memory_estimate(m, edge_options);
  if (scan.directed) bytes += SmartArray::memory_estimate(m, id_options(GraphArray::redge, scan.largest_in_id));
  check_load_memory(bytes, n, m, scan.path + ": ");

  // Each id array read from the file again into its final layout, batch by batch.
  std::atomic<bool> bad{false};
  auto ids_of = [&](const SgPart& part, std::uint64_t largest, GraphArray which, const ArrayOptions& resolved) {
    try {
      return build::build_array(
          m, resolved,
          [&](std::uint64_t lo, std::uint64_t hi, std::uint64_t* out) {
            if (!encode_id_range(file, part, largest + 1, lo, hi, out)) {
              bad.store(true, std::memory_order_relaxed);
              std::fill(out, out + (hi - lo), 0);
            }
          },
          pool);
    } catch (const Error& e) {
      if (e.code() == ErrorCode::cancelled) throw;
      throw Error(e.code(), std::string("graph array ") + to_string(which) + ": " + e.what());
    }
  };
  const SgPart out = file.out();
  const SgPart in = file.in();
  SmartArray begin = encode_graph_array(GraphArray::begin, scan.out_offsets, layout[GraphArray::begin], pool);
  SmartArray edge = ids_of(out, scan.largest_out_id, GraphArray::edge, edge_options);
  if (!scan.directed) {
    if (bad.load() || stamp_of(file) != stamp) changed();
    return CsrGraph(std::move(begin), std::move(edge));
  }
  SmartArray rbegin = encode_graph_array(GraphArray::rbegin, scan.in_offsets, layout[GraphArray::rbegin], pool);
  SmartArray redge = ids_of(in, scan.largest_in_id, GraphArray::redge, id_options(GraphArray::redge, scan.largest_in_id));
  if (bad.load() || stamp_of(file) != stamp) changed();
  std::array<SmartArray, graph_array_count> arrays{std::move(begin), std::move(edge), std::move(rbegin), std::move(redge)};
  return CsrGraph(std::move(arrays), true);
}

std::optional<CsrGraph> load_sg(const std::string& path, const BuildOptions& options, const ReadOptions& read,
                                runtime::ThreadPool& pool) {
  const GraphLayout& layout = options.layout;
  // Dropping edges needs to know of repeats first, and a replica's fill reads the file again:
  // both take the two-pass path.
  if (options.dedup || options.drop_self_loops || layout[GraphArray::edge].placement == Placement::replicated ||
      layout[GraphArray::redge].placement == Placement::replicated) {
    return std::nullopt;
  }
  const SgFile file(path);
  const FileStamp stamp = stamp_of(file);
  SgScan scan = scan_of(file);
  const std::uint64_t n = scan.vertices;
  const std::uint64_t m = scan.edges;
  const SgPart out = file.out();
  const SgPart in = file.in();
  if (!read_offsets(file, out, n, m, scan.out_offsets, pool)) return std::nullopt;
  if (scan.directed && !read_offsets(file, in, n, m, scan.in_offsets, pool)) return std::nullopt;
  // In a valid file an out-list names exactly the vertices with in-edges (undirected: with edges),
  // so the widths are known before any id is read; an id beyond them makes the file invalid.
  const std::uint64_t largest_out = largest_listed(scan.directed ? scan.in_offsets : scan.out_offsets, pool);
  const std::uint64_t largest_in = scan.directed ? largest_listed(scan.out_offsets, pool) : 0;
  auto id_options = [&](GraphArray which, std::uint64_t largest) {
    ArrayOptions resolved = layout[which];
    if (resolved.bits == 0) resolved.bits = codec::min_bits(largest);
    return resolved;
  };
  const ArrayOptions edge_options = id_options(GraphArray::edge, largest_out);
  const ArrayOptions redge_options = id_options(GraphArray::redge, largest_in);
  if (edge_options.bits < 64 && largest_out >> edge_options.bits != 0) return std::nullopt;
  if (scan.directed && redge_options.bits < 64 && largest_in >> redge_options.bits != 0) return std::nullopt;
  std::uint64_t bytes = SmartArray::memory_estimate(m, edge_options);
  if (scan.directed) bytes += SmartArray::memory_estimate(m, redge_options);
  check_load_memory(bytes, n, m, path + ": ");

  // One pass per part: every id is checked, hashed and written into its final array.
  std::mutex merge;
  auto ids_of = [&](const SgPart& part, const std::vector<std::uint64_t>& offsets, HashSum sum, std::uint64_t largest,
                    const ArrayOptions& resolved, IdStats& stats) {
    return build::build_array(
        m, resolved,
        [&](std::uint64_t lo, std::uint64_t hi, std::uint64_t* values) {
          IdStats s = scan_id_range_as(sum, file, part, offsets, n, lo, hi, values);
          if (s.bad || s.largest > largest) {
            s.bad = true;
            std::fill(values, values + (hi - lo), 0);
          }
          const std::lock_guard<std::mutex> lock(merge);
          stats.merge(s);
        },
        pool);
  };
  auto progress = [&](std::uint64_t done) {
    if (read.progress) read.progress(done, stamp.bytes);
  };
  IdStats out_stats;
  SmartArray edge = ids_of(out, scan.out_offsets, scan.directed ? HashSum::forward : HashSum::balance, largest_out,
                           edge_options, out_stats);
  progress(in.offsets_at);
  if (out_stats.bad || out_stats.unsorted) return std::nullopt;
  SmartArray begin = encode_graph_array(GraphArray::begin, scan.out_offsets, layout[GraphArray::begin], pool);
  if (!scan.directed) {
    if (out_stats.hash != 0 || stamp_of(file) != stamp) return std::nullopt;
    return CsrGraph(std::move(begin), std::move(edge));
  }
  IdStats in_stats;
  SmartArray redge = ids_of(in, scan.in_offsets, HashSum::reverse, largest_in, redge_options, in_stats);
  progress(stamp.bytes);
  if (in_stats.bad || in_stats.unsorted || out_stats.hash != in_stats.hash || stamp_of(file) != stamp) {
    return std::nullopt;
  }
  SmartArray rbegin = encode_graph_array(GraphArray::rbegin, scan.in_offsets, layout[GraphArray::rbegin], pool);
  std::array<SmartArray, graph_array_count> arrays{std::move(begin), std::move(edge), std::move(rbegin), std::move(redge)};
  return CsrGraph(std::move(arrays), true);
}

}  // namespace smartarrays::graph::detail
