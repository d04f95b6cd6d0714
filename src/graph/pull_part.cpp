// Owns cutting vertex-range parts of a reverse CSR: from a graph in memory (each array's range
// decoded and repacked in its own width, in parallel) and from a GAP .sg file read with pread at the
// part's own byte ranges only (layout in gap_sg.cpp), every offset and id checked as it is read.
#include "smartarrays/graph/pull_part.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "os/open_file.hpp"
#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/runtime/interrupt.hpp"
#include "smartarrays/util/checked.hpp"

namespace smartarrays::graph {

namespace {

constexpr std::uint64_t sg_header_bytes = 1 + 8 + 8;

void check_range(std::uint64_t first, std::uint64_t count, std::uint64_t n) {
  if (first > n || count > n - first) {
    throw_error(ErrorCode::invalid_argument, "vertex range [" + std::to_string(first) + ", " + std::to_string(first) +
                                                 " + " + std::to_string(count) + ") is outside the graph's " +
                                                 std::to_string(n) + " vertices");
  }
}

// A new array of count values of bits, value k = source(k), filled in parallel.
template <typename Source>
SmartArray filled(std::uint64_t count, unsigned bits, Source&& source, runtime::ThreadPool& pool) {
  ArrayOptions options;
  options.bits = bits;
  SmartArray array = SmartArray::allocate(count, options);
  build::fill_array(array, std::forward<Source>(source), pool);
  return array;
}

// Offsets [first, first + count] of offsets less offsets[first], in offsets' width.
SmartArray rebased_range(const SmartArray& offsets, std::uint64_t first, std::uint64_t count, runtime::ThreadPool& pool) {
  const std::uint64_t base = offsets.get(first);
  return filled(
      count + 1, offsets.bits(),
      [&](std::uint64_t a, std::uint64_t b, std::uint64_t* out) {
        offsets.decode(first + a, b - a, out);
        for (std::uint64_t k = 0; k < b - a; ++k) out[k] -= base;
      },
      pool);
}

// offsets less offsets[0], in the fewest bits that hold them.
SmartArray rebased(std::vector<std::uint64_t> offsets) {
  const std::uint64_t base = offsets.front();
  for (std::uint64_t& offset : offsets) offset -= base;
  return SmartArray::from_values(offsets, {});
}

// An open .sg file read at offsets (pread: safe from many threads at once).
class SgFile {
 public:
  explicit SgFile(const std::string& path) : path_(path), file_(os::InputFile::open(path, os::InputKind::regular)) {}

  [[noreturn]] void fail(std::uint64_t offset, const std::string& message) const {
    throw_error(ErrorCode::invalid_argument, path_ + ": byte offset " + std::to_string(offset) + ": " + message);
  }

  std::uint64_t size() const noexcept { return file_.size(); }

  void read(std::uint64_t offset, void* out, std::uint64_t bytes) const {
    runtime::check_interrupt();
    auto* cursor = static_cast<unsigned char*>(out);
    while (bytes > 0) {
      const ssize_t got = ::pread(file_.descriptor(), cursor, bytes, static_cast<off_t>(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw_error(ErrorCode::os_error, "cannot read " + path_ + ": " + std::strerror(errno));
      if (got == 0) fail(offset, "the file ends early");
      cursor += got;
      offset += static_cast<std::uint64_t>(got);
      bytes -= static_cast<std::uint64_t>(got);
    }
  }

  // count + 1 int64 offsets at byte offset at, each checked: within 0..m and never decreasing.
  std::vector<std::uint64_t> offsets(std::uint64_t at, std::uint64_t count, std::uint64_t m) const {
    std::vector<std::int64_t> raw(count + 1);
    read(at, raw.data(), raw.size() * sizeof(std::int64_t));
    std::vector<std::uint64_t> values(raw.size());
    for (std::uint64_t k = 0; k < raw.size(); ++k) {
      if (raw[k] < 0 || static_cast<std::uint64_t>(raw[k]) > m || (k > 0 && raw[k] < raw[k - 1])) {
        fail(at + k * 8, "offset " + std::to_string(raw[k]) + " is not within " +
                             (k > 0 ? std::to_string(raw[k - 1]) : std::string("0")) + ".." + std::to_string(m));
      }
      values[k] = static_cast<std::uint64_t>(raw[k]);
    }
    return values;
  }

 private:
  std::string path_;
  os::InputFile file_;
};

// Byte offset of the in-offsets of a .sg file (the out-offsets of an undirected one).
std::uint64_t in_offsets_at(const SgHeader& header) {
  if (!header.directed) return sg_header_bytes;
  return sg_header_bytes + (header.vertices + 1) * 8 + header.edges * 4;
}

SgHeader header_of(const SgFile& file, const std::string& path) {
  const std::uint64_t size = file.size();
  if (size < sg_header_bytes) file.fail(size, "the file ends before its 17-byte header");
  unsigned char bytes[sg_header_bytes];
  file.read(0, bytes, sizeof bytes);
  if (bytes[0] > 1) file.fail(0, "the directed flag is " + std::to_string(bytes[0]) + ", not 0 or 1");
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::memcpy(&m, bytes + 1, 8);
  std::memcpy(&n, bytes + 9, 8);
  if (m < 0) file.fail(1, "negative edge count " + std::to_string(m));
  if (n < 0) file.fail(9, "negative vertex count " + std::to_string(n));
  const SgHeader header{bytes[0] == 1, static_cast<std::uint64_t>(m), static_cast<std::uint64_t>(n)};
  const unsigned __int128 one_side =
      (static_cast<unsigned __int128>(header.vertices) + 1) * 8 + static_cast<unsigned __int128>(header.edges) * 4;
  const unsigned __int128 expected = sg_header_bytes + one_side * (header.directed ? 2 : 1);
  if (expected != size) {
    throw_error(ErrorCode::invalid_argument, path + ": the file holds " + std::to_string(size) +
                                                 " bytes, not what its header's n = " + std::to_string(n) +
                                                 " and m = " + std::to_string(m) + " imply");
  }
  return header;
}

}  // namespace

PullPart pull_part(const CsrGraph& graph, std::uint64_t first, std::uint64_t count, runtime::ThreadPool& pool) {
  const std::uint64_t n = graph.vertices();
  check_range(first, count, n);
  const std::uint64_t lo = graph.rbegin().get(first);
  const std::uint64_t edges = graph.rbegin().get(first + count) - lo;
  SmartArray sources = filled(
      edges, graph.redge().bits(),
      [&](std::uint64_t a, std::uint64_t b, std::uint64_t* out) { graph.redge().decode(lo + a, b - a, out); }, pool);
  return PullPart{n, first, rebased_range(graph.rbegin(), first, count, pool), std::move(sources),
                  rebased_range(graph.begin(), first, count, pool)};
}

SgHeader read_sg_header(const std::string& path) { return header_of(SgFile(path), path); }

PullPart read_sg_pull_part(const std::string& path, std::uint64_t first, std::uint64_t count) {
  const SgFile file(path);
  const SgHeader header = header_of(file, path);
  const std::uint64_t n = header.vertices;
  check_range(first, count, n);
  const std::uint64_t in_at = in_offsets_at(header);
  const std::vector<std::uint64_t> in = file.offsets(in_at + first * 8, count, header.edges);
  const std::vector<std::uint64_t> out = file.offsets(sg_header_bytes + first * 8, count, header.edges);
  // The file's offsets run from 0 to m, as the whole-file reader requires: a part holding vertex 0
  // or vertex n checks its end, so no edge falls outside the parts that cover the file.
  for (const auto& [offsets, at, which] : {std::tuple{&in, in_at, header.directed ? "in" : "out"},
                                           std::tuple{&out, sg_header_bytes, "out"}}) {
    if (first == 0 && offsets->front() != 0) {
      file.fail(at, std::string(which) + " offset of vertex 0 is " + std::to_string(offsets->front()) + " (expected 0)");
    }
    if (first + count == n && offsets->back() != header.edges) {
      file.fail(at + n * 8, "the last " + std::string(which) + " offset is " + std::to_string(offsets->back()) +
                                " but the header says " + std::to_string(header.edges) + " edges");
    }
  }
  const std::uint64_t lo = in.front();
  const std::uint64_t ids_at = in_at + (n + 1) * 8 + lo * 4;
  SmartArray sources = filled(in.back() - lo, codec::min_bits(n > 0 ? n - 1 : 0), [&](std::uint64_t a, std::uint64_t b,
                                                                              std::uint64_t* ids) {
    std::vector<std::int32_t> raw(b - a);
    file.read(ids_at + a * 4, raw.data(), raw.size() * 4);
    for (std::uint64_t k = 0; k < raw.size(); ++k) {
      if (raw[k] < 0 || static_cast<std::uint64_t>(raw[k]) >= n) {
        file.fail(ids_at + (a + k) * 4, "vertex id " + std::to_string(raw[k]) + " is not below n = " + std::to_string(n));
      }
      ids[k] = static_cast<std::uint64_t>(raw[k]);
    }
  }, runtime::default_pool());
  return PullPart{n, first, rebased(in), std::move(sources), rebased(out)};
}

}  // namespace smartarrays::graph
