// Owns LayoutSpec: the placement and bit widths of a graph's arrays (and of the analytics' arrays
// built beside it) said by name, as the command's --placement / --bits lists, the C ABI's
// sa_graph_options and the Python keywords say them; its parsing and validation, and the
// GraphLayout of a variant it gives.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "smartarrays/array/options.hpp"
#include "smartarrays/export.hpp"
#include "smartarrays/graph/csr_graph.hpp"

namespace smartarrays::graph {

/// Placements by array name over a base for every array, and bit-width overrides of the graph's
/// arrays. Names: the graph's arrays (begin, edge, rbegin, redge) and the analytics'
/// arrays (contributions, ranks, degrees).
class SMARTARRAYS_API LayoutSpec {
 public:
  /// Every array placed by os_default until told otherwise.
  LayoutSpec() = default;
  /// Every array placed like base (placement, node, nodes, huge pages; its bits are ignored).
  explicit LayoutSpec(ArrayOptions base);

  /// Adds a comma-separated list of items: PLACEMENT (every array's placement, over all nodes) or
  /// ARRAY=PLACEMENT (one array's), e.g. "interleaved,redge=replicated". Throws
  /// Error(invalid_argument) naming an empty item, an unknown array or an unknown placement.
  void add_placements(std::string_view list);
  /// Adds a comma-separated list of ARRAY=BITS items (graph arrays, 1..64), e.g. "edge=24";
  /// they replace the variant's widths. Throws Error(invalid_argument) naming the bad item.
  void add_bits(std::string_view list);
  /// Makes node the node of every single_node placement, whenever it was given.
  void set_node(int node);

  /// True when the base or an array's override is single_node (what set_node() applies to).
  bool places_single_node() const;

  /// The options of array name (bits 0): its override, else the base.
  ArrayOptions for_array(std::string_view name) const;
  /// The options of an output array (ranks, degrees; bits 0): its override, else interleaved over
  /// every node, as the paper keeps outputs whatever the other arrays' placement.
  ArrayOptions for_output(std::string_view name) const;
  /// The placements of this spec with the widths of variant, overridden by add_bits().
  GraphLayout layout(Variant variant) const;

 private:
  ArrayOptions with_node(ArrayOptions options) const;

  ArrayOptions base_;
  std::map<std::string, ArrayOptions, std::less<>> placements_;
  std::map<std::string, unsigned, std::less<>> bits_;
  std::optional<int> node_;
};

}  // namespace smartarrays::graph
