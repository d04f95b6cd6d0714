// Owns what the graph and algorithm tests share: a scratch directory, file helpers, decoding a
// graph's arrays to vectors, the hand-checked tiny graph of tests/data/graph, hand-written .sg
// bytes, the check that a call fails with a message naming what was wrong, and a mapping that fails
// as memory running out does.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "smartarrays/error.hpp"
#include "smartarrays/graph/csr_graph.hpp"
#include "smartarrays/os/huge_pages.hpp"
#include "support/array_values.hpp"
#include "support/scratch_dir.hpp"

namespace smartarrays::test {

/// A file of tests/data/graph.
inline std::string graph_data(const std::string& name) { return std::string(SMARTARRAYS_TEST_DATA_DIR) + "/graph/" + name; }

/// The graph's four CSR arrays and its out-degrees (derived from begin by CsrGraph::out_degree),
/// decoded, for exact comparisons.
struct DecodedGraph {
  std::vector<std::uint64_t> begin, edge, rbegin, redge, out_degree;
  bool directed = true;
  friend bool operator==(const DecodedGraph&, const DecodedGraph&) = default;
};

/// Decodes every array of g, and asks g for every vertex's out-degree.
inline DecodedGraph decode(const graph::CsrGraph& g) {
  std::vector<std::uint64_t> out_degree(g.vertices());
  for (std::uint64_t v = 0; v < g.vertices(); ++v) out_degree[v] = g.out_degree(v);
  return {values_of(g.begin()), values_of(g.edge()), values_of(g.rbegin()), values_of(g.redge()), std::move(out_degree),
          g.directed()};
}

/// tests/data/graph/tiny.el built without dedup and with self-loops: 6 vertices, 7 edges
/// 0->1 (twice), 0->2, 1->2, 2->0, 3->2, 4->4, vertex 5 isolated.
inline DecodedGraph tiny_graph() {
  return {{0, 3, 4, 5, 6, 7, 7}, {1, 1, 2, 2, 0, 2, 4}, {0, 1, 3, 6, 6, 7, 7}, {2, 0, 0, 0, 1, 3, 4}, {3, 1, 1, 1, 1, 0},
          true};
}

/// Hand-written .sg bytes, field by field as GAP's writer lays them out.
struct SgBytes {
  std::string bytes;  ///< the file so far
  /// Appends the directed flag byte.
  SgBytes& flag(std::uint8_t f) { return raw(&f, 1); }
  /// Appends an int64 (a count or an offset).
  SgBytes& i64(std::int64_t v) { return raw(&v, 8); }
  /// Appends an int32 (a neighbour id).
  SgBytes& i32(std::int32_t v) { return raw(&v, 4); }
  /// Appends int64s.
  SgBytes& i64s(std::initializer_list<std::int64_t> vs) {
    for (auto v : vs) i64(v);
    return *this;
  }
  /// Appends int32s.
  SgBytes& i32s(std::initializer_list<std::int32_t> vs) {
    for (auto v : vs) i32(v);
    return *this;
  }
  /// Appends n raw bytes.
  SgBytes& raw(const void* p, std::size_t n) {
    bytes.append(static_cast<const char*>(p), n);
    return *this;
  }
};

/// Runs f, expects an Error whose message contains every needle, and returns its code (none if f did not throw).
template <typename F>
std::optional<ErrorCode> expect_error(F&& f, std::initializer_list<const char*> needles) {
  try {
    f();
  } catch (const Error& e) {
    for (const char* needle : needles) EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    return e.code();
  }
  ADD_FAILURE() << "expected an error";
  return std::nullopt;
}

/// Whether mapping 2 MiB hugetlb pages (ArrayOptions::huge_pages = pages_2m) fails as memory running
/// out does, Error(out_of_memory): the kernel has the pool and it is empty, as on most machines.
inline bool hugetlb_2m_pool_is_empty() {
  for (const os::HugetlbPool& pool : os::read_hugetlb_pools()) {
    if (pool.page_bytes == std::uint64_t{2} << 20) return pool.free_pages == 0;
  }
  return false;
}

}  // namespace smartarrays::test
