// Owns the general reader of the GAP benchmark suite's binary .sg format (its reader.h / writer.h,
// unweighted): a bool directed flag (1 byte), int64 number of stored edges m, int64 vertex count n,
// int64 offsets[n+1], int32 neighbours[m], and for directed graphs the same offsets/neighbours pair
// again for the in-edges. Little-endian, no padding. The header is checked by SgFile (sg_file.hpp):
// the file size must be exactly what n and m imply, so every allocation is a small multiple of the
// file. This reader holds the whole file: the in-edges must be the transpose of the out-edges, and
// an undirected file's edges must be symmetric, or the file is refused naming the first edge that
// breaks the rule. Graphs are loaded by sg_load.hpp, which comes here to name a problem or to sort.
#include <algorithm>
#include <string>

#include "graph/csr_parts.hpp"
#include "graph/sg_file.hpp"
#include "graph/text_reader.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/graph/formats.hpp"
#include "smartarrays/graph/limits.hpp"

namespace smartarrays::graph {

namespace {

constexpr std::uint64_t block_values = std::uint64_t{1} << 20;

// Reads a .sg file front to back in blocks after its header, reporting progress.
class SgReader {
 public:
  SgReader(const detail::SgFile& file, const ReadOptions& options)
      : file_(file), options_(options), next_progress_(options.progress_step) {}

  std::uint64_t offset() const noexcept { return offset_; }

  void read(void* out, std::uint64_t bytes) {
    file_.read(offset_, out, bytes);
    offset_ += bytes;
    if (options_.progress && (offset_ >= next_progress_ || offset_ == file_.size())) {
      options_.progress(offset_, file_.size());
      next_progress_ = offset_ + options_.progress_step;
    }
  }

  // n + 1 offsets: from 0, never decreasing, ending at m.
  std::vector<std::uint64_t> read_offsets(std::uint64_t n, std::uint64_t m, const char* which) {
    const std::uint64_t base = offset_;
    std::vector<std::uint64_t> offsets(n + 1);
    for (std::uint64_t i = 0; i <= n; i += block_values) {
      read(offsets.data() + i, std::min(block_values, n + 1 - i) * sizeof(std::uint64_t));
    }
    auto at = [&](std::uint64_t i) { return base + i * sizeof(std::uint64_t); };
    const std::string what = std::string(which) + " offset of vertex ";
    if (offsets[0] != 0) file_.fail(at(0), what + "0 is " + signed_text(offsets[0]) + " (expected 0)");
    for (std::uint64_t i = 1; i <= n; ++i) {
      if (offsets[i] < offsets[i - 1] || offsets[i] > m) {
        file_.fail(at(i), what + std::to_string(i) + " is " + signed_text(offsets[i]) + " (previous " +
                              std::to_string(offsets[i - 1]) + ", edges " + std::to_string(m) + ")");
      }
    }
    if (offsets[n] != m) {
      file_.fail(at(n), "the last " + std::string(which) + " offset is " + std::to_string(offsets[n]) +
                            " but the header says " + std::to_string(m) + " edges");
    }
    return offsets;
  }

  // m int32 ids, each in [0, n).
  std::vector<std::uint64_t> read_ids(std::uint64_t n, std::uint64_t m, const char* which) {
    std::vector<std::uint64_t> ids(m);
    std::vector<std::int32_t> block(std::min(block_values, m));
    for (std::uint64_t e = 0; e < m; e += block_values) {
      const std::uint64_t count = std::min(block_values, m - e);
      const std::uint64_t base = offset_;
      read(block.data(), count * sizeof(std::int32_t));
      for (std::uint64_t k = 0; k < count; ++k) {
        if (block[k] < 0 || static_cast<std::uint64_t>(block[k]) >= n) {
          file_.fail(base + k * sizeof(std::int32_t), std::string(which) + " neighbour id " + std::to_string(block[k]) +
                                                          " is outside 0.." + std::to_string(n - 1));
        }
        ids[e + k] = static_cast<std::uint64_t>(block[k]);
      }
    }
    return ids;
  }

 private:
  static std::string signed_text(std::uint64_t v) { return std::to_string(static_cast<std::int64_t>(v)); }

  const detail::SgFile& file_;
  const ReadOptions& options_;
  std::uint64_t offset_ = detail::sg_header_bytes;
  std::uint64_t next_progress_ = 0;
};

SgContents read_sg(const detail::SgFile& file, SgReader& reader, runtime::ThreadPool& pool) {
  const std::uint64_t nv = file.header().vertices;
  const std::uint64_t mv = file.header().edges;
  const bool directed = file.header().directed;
  check_build_memory(nv, mv, file.where(1));
  SgContents contents;
  contents.directed = directed;
  contents.vertices = nv;
  const std::uint64_t out_ids = file.out().ids_at;
  contents.out.offsets = reader.read_offsets(nv, mv, "out");
  contents.out.targets = reader.read_ids(nv, mv, "out");
  auto edge = [](std::uint64_t from, std::uint64_t to) { return std::to_string(from) + " -> " + std::to_string(to); };
  // The byte offset of the first id `id` in vertex's list of parts, whose ids start at base.
  auto offset_of = [](const CsrParts& parts, std::uint64_t ids_base, std::uint64_t vertex, std::uint64_t id) {
    return ids_base + *detail::position_in_list(parts, vertex, id) * sizeof(std::int32_t);
  };
  const CsrParts expected_in = detail::transpose(contents.out, nv, pool);
  if (!directed) {
    // Symmetric: every vertex's out-list equals its in-list (the transpose), counting repeats.
    CsrParts sorted_out = contents.out;
    detail::normalize(sorted_out, false, false, pool);
    if (const auto d = detail::first_difference(sorted_out, expected_in, nv, pool)) {
      const std::uint64_t at = d->count_a > 0 ? offset_of(contents.out, out_ids, d->vertex, d->id)
                                              : offset_of(contents.out, out_ids, d->id, d->vertex);
      file.fail(at, "the graph is undirected but its edges are not symmetric (first difference at vertex " +
                        std::to_string(d->vertex) + ": " + edge(d->vertex, d->id) + " is stored " +
                        detail::times(d->count_a) + ", " + edge(d->id, d->vertex) + " " + detail::times(d->count_b) + ")");
    }
    return contents;
  }
  const std::uint64_t in_ids = file.in().ids_at;
  contents.in.offsets = reader.read_offsets(nv, mv, "in");
  contents.in.targets = reader.read_ids(nv, mv, "in");
  CsrParts stored = contents.in;
  detail::normalize(stored, false, false, pool);
  if (const auto d = detail::first_difference(stored, expected_in, nv, pool)) {
    const std::uint64_t at = d->count_a > 0 ? offset_of(contents.in, in_ids, d->vertex, d->id)
                                            : offset_of(contents.out, out_ids, d->id, d->vertex);
    file.fail(at, "the in-edges are not the transpose of the out-edges (first difference at vertex " +
                      std::to_string(d->vertex) + ": the in-edges hold " + edge(d->id, d->vertex) + " " +
                      detail::times(d->count_a) + ", the out-edges " + detail::times(d->count_b) + ")");
  }
  return contents;
}

}  // namespace

SgContents read_gap_sg(const std::string& path, const ReadOptions& options, runtime::ThreadPool& pool) {
  const detail::SgFile file(path);
  SgReader reader(file, options);
  return detail::out_of_memory_naming([&] { return file.where(reader.offset()); },
                                      [&] { return read_sg(file, reader, pool); });
}

}  // namespace smartarrays::graph
