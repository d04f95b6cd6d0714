// Owns the seam through which the graph layer reads and writes the compact form: the store layer
// sits above graph (it stores CsrGraphs), so it registers its reader and writer when it is linked
// and GraphSource::open and save_graph call them, keeping the one format switch in the graph layer.
#pragma once

#include <string>

#include "smartarrays/graph/csr_graph.hpp"
#include "smartarrays/graph/source.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::graph::detail {

/// The compact form's reader and writer, as the store layer registers them.
struct CompactHooks {
  /// The graph options.object of the store at path, mapped or loaded as options.mode says.
  CsrGraph (*open)(const std::string& path, const SourceOptions& options, runtime::ThreadPool& pool) = nullptr;
  /// Writes graph as a new store at path holding it as "graph".
  void (*write)(const CsrGraph& graph, const std::string& path) = nullptr;
};

/// Registers the store layer's reader and writer (at its static initialisation).
void register_compact_hooks(CompactHooks hooks) noexcept;

/// The registered reader's graph; throws Error(unsupported) when no store layer is linked.
CsrGraph open_compact(const std::string& path, const SourceOptions& options, runtime::ThreadPool& pool);

/// The registered writer; throws Error(unsupported) when no store layer is linked.
void write_compact(const CsrGraph& graph, const std::string& path);

}  // namespace smartarrays::graph::detail
