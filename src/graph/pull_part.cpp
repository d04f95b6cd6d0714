// Owns cutting vertex-range parts of a reverse CSR: from a graph in memory (each array's range
// decoded and repacked in its own width, in parallel) and from a GAP .sg file (its header checked and
// read at offsets through SgFile, sg_file.hpp) at the part's own byte ranges only, every offset and id
// checked as it is read.
#include "smartarrays/graph/pull_part.hpp"

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "graph/sg_file.hpp"
#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays::graph {

namespace {

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

// count + 1 int64 offsets of file at byte offset at, each checked: within 0..m and never decreasing.
std::vector<std::uint64_t> offsets_at(const detail::SgFile& file, std::uint64_t at, std::uint64_t count, std::uint64_t m) {
  std::vector<std::int64_t> raw(count + 1);
  file.read(at, raw.data(), raw.size() * sizeof(std::int64_t));
  std::vector<std::uint64_t> values(raw.size());
  for (std::uint64_t k = 0; k < raw.size(); ++k) {
    if (raw[k] < 0 || static_cast<std::uint64_t>(raw[k]) > m || (k > 0 && raw[k] < raw[k - 1])) {
      file.fail(at + k * 8, "offset " + std::to_string(raw[k]) + " is not within " +
                                (k > 0 ? std::to_string(raw[k - 1]) : std::string("0")) + ".." + std::to_string(m));
    }
    values[k] = static_cast<std::uint64_t>(raw[k]);
  }
  return values;
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

PullPart read_sg_pull_part(const std::string& path, std::uint64_t first, std::uint64_t count) {
  const detail::SgFile file(path);
  const SgHeader& header = file.header();
  const std::uint64_t n = header.vertices;
  check_range(first, count, n);
  const detail::SgPart in_part = file.in();
  const std::uint64_t in_at = in_part.offsets_at;
  const std::uint64_t out_at = file.out().offsets_at;
  const std::vector<std::uint64_t> in = offsets_at(file, in_at + first * 8, count, header.edges);
  const std::vector<std::uint64_t> out = offsets_at(file, out_at + first * 8, count, header.edges);
  // The file's offsets run from 0 to m, as the whole-file reader requires: a part holding vertex 0
  // or vertex n checks its end, so no edge falls outside the parts that cover the file.
  for (const auto& [offsets, at, which] : {std::tuple{&in, in_at, header.directed ? "in" : "out"},
                                           std::tuple{&out, out_at, "out"}}) {
    if (first == 0 && offsets->front() != 0) {
      file.fail(at, std::string(which) + " offset of vertex 0 is " + std::to_string(offsets->front()) + " (expected 0)");
    }
    if (first + count == n && offsets->back() != header.edges) {
      file.fail(at + n * 8, "the last " + std::string(which) + " offset is " + std::to_string(offsets->back()) +
                                " but the header says " + std::to_string(header.edges) + " edges");
    }
  }
  const std::uint64_t lo = in.front();
  const std::uint64_t ids_at = in_part.ids_at + lo * 4;
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
