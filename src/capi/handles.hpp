// Owns the C ABI's opaque handles sa_array, sa_graph, sa_live and sa_pull_part: each holds its own array,
// graph or part, or (from an sa_store) a read-only view of one that a shared owner keeps alive after
// the store closes.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/build/live_array.hpp"
#include "smartarrays/graph/csr_graph.hpp"
#include "smartarrays/graph/layout_spec.hpp"
#include "smartarrays/graph/pull_part.hpp"

/// One SmartArray on the C++ heap: owned, or a store's array kept alive by keep.
struct sa_array {
  /// An array the handle owns.
  explicit sa_array(smartarrays::SmartArray a) : owned(std::move(a)), array(&*owned) {}
  /// An array the handle owns, made by the adaptive layer's decision (its JSON kept for the caller).
  sa_array(smartarrays::SmartArray a, std::string decision) : sa_array(std::move(a)) {
    decision_json = std::move(decision);
  }
  /// A view of another owner's array (a store's), which keep holds alive.
  sa_array(const smartarrays::SmartArray& view, std::shared_ptr<const void> keeper) : array(&view), keep(std::move(keeper)) {}
  sa_array(const sa_array&) = delete;
  sa_array& operator=(const sa_array&) = delete;

  std::optional<smartarrays::SmartArray> owned;  ///< the array, unless a view
  const smartarrays::SmartArray* array;          ///< the array served
  std::shared_ptr<const void> keep;              ///< the owner of a view
  std::string decision_json = "null";            ///< the adaptive decision behind auto options
};

/// A graph, and the spec that also places the arrays its analytics make: owned, or a store's graph kept alive by keep.
struct sa_graph {
  /// A graph the handle owns.
  sa_graph(smartarrays::graph::CsrGraph g, smartarrays::graph::LayoutSpec spec)
      : owned(std::move(g)), graph(&*owned), layout(std::move(spec)) {}
  /// A view of another owner's graph (a store's), which keep holds alive.
  sa_graph(const smartarrays::graph::CsrGraph& view, std::shared_ptr<const void> keeper)
      : graph(&view), keep(std::move(keeper)) {}
  sa_graph(const sa_graph&) = delete;
  sa_graph& operator=(const sa_graph&) = delete;

  std::optional<smartarrays::graph::CsrGraph> owned;  ///< the graph, unless a view
  const smartarrays::graph::CsrGraph* graph;          ///< the graph served
  std::shared_ptr<const void> keep;                   ///< the owner of a view
  smartarrays::graph::LayoutSpec layout;              ///< placements of the analytics' arrays
};

/// A live array (re-laid out while read), owned; its snapshots are sa_array views that keep their version.
struct sa_live {
  smartarrays::build::LiveArray live;  ///< the versions
};

/// A vertex-range part of a reverse CSR, owned.
struct sa_pull_part {
  smartarrays::graph::PullPart part;  ///< the part
};
