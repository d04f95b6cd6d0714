// Owns the parsing of placement and bit-width lists into a LayoutSpec and the layouts it gives.
#include "smartarrays/graph/layout_spec.hpp"

#include <algorithm>
#include <charconv>
#include <utility>
#include <vector>

#include "smartarrays/error.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::graph {

namespace {

// The analytics' arrays that are made beside a graph and placed with it: PageRank's contributions
// and ranks, degree centrality's degrees.
constexpr const char* analytics_arrays[] = {"contributions", "ranks", "degrees"};

bool is_placeable(std::string_view name) {
  for (std::size_t i = 0; i < graph_array_count; ++i) {
    if (name == to_string(static_cast<GraphArray>(i))) return true;
  }
  for (const char* a : analytics_arrays) {
    if (name == a) return true;
  }
  return false;
}

// The items of a comma-separated list; what names the list in errors ("placement", "bits").
std::vector<std::string_view> split_items(std::string_view list, const char* what) {
  std::vector<std::string_view> items;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = list.find(',', start);
    const std::string_view item = list.substr(start, comma == std::string_view::npos ? comma : comma - start);
    if (item.empty()) {
      throw_error(ErrorCode::invalid_argument, std::string(what) + " list " + util::quoted(list) + " has an empty item");
    }
    items.push_back(item);
    if (comma == std::string_view::npos) return items;
    start = comma + 1;
  }
}

Placement placement_of(std::string_view item, std::string_view name) {
  try {
    return parse_placement(name);
  } catch (const Error& e) {
    throw Error(e.code(), "placement " + util::quoted(item) + ": " + e.what());
  }
}

// The graph array named array in a list's item; parse_graph_array's error prefixed by what and the item.
GraphArray graph_array_of(std::string_view item, std::string_view array, const char* what) {
  try {
    return parse_graph_array(array);
  } catch (const Error& e) {
    throw Error(e.code(), std::string(what) + " " + util::quoted(item) + ": " + e.what());
  }
}

unsigned bits_of(std::string_view item, std::string_view text) {
  unsigned bits = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), bits);
  if (ec != std::errc() || end != text.data() + text.size() || bits < 1 || bits > 64) {
    throw_error(ErrorCode::invalid_argument,
                "bits " + util::quoted(item) + ": " + util::quoted(text) + " is not a width of 1..64 bits");
  }
  return bits;
}

}  // namespace

LayoutSpec::LayoutSpec(ArrayOptions base) : base_(std::move(base)) { base_.bits = 0; }

void LayoutSpec::add_placements(std::string_view list) {
  for (const std::string_view item : split_items(list, "placement")) {
    const std::size_t eq = item.find('=');
    ArrayOptions options = base_;
    options.nodes.clear();
    if (eq == std::string_view::npos) {
      options.placement = placement_of(item, item);
      base_ = std::move(options);
      continue;
    }
    const std::string_view array = item.substr(0, eq);
    if (!is_placeable(array)) {
      // The graph layer's words for its former out_degree array (derived from begin now).
      if (array == "out_degree") graph_array_of(item, array, "placement");
      throw_error(ErrorCode::invalid_argument, "placement " + util::quoted(item) + ": unknown array " +
                                                   util::quoted(array) +
                                                   " (expected begin, edge, rbegin, redge, "
                                                   "contributions, ranks or degrees)");
    }
    options.placement = placement_of(item, item.substr(eq + 1));
    placements_.insert_or_assign(std::string(array), std::move(options));
  }
}

void LayoutSpec::add_bits(std::string_view list) {
  for (const std::string_view item : split_items(list, "bits")) {
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      throw_error(ErrorCode::invalid_argument, "bits: expected ARRAY=BITS, got " + util::quoted(item));
    }
    const std::string_view array = item.substr(0, eq);
    graph_array_of(item, array, "bits");
    bits_.insert_or_assign(std::string(array), bits_of(item, item.substr(eq + 1)));
  }
}

void LayoutSpec::set_node(int node) { node_ = node; }

bool LayoutSpec::places_single_node() const {
  return base_.placement == Placement::single_node ||
         std::any_of(placements_.begin(), placements_.end(),
                     [](const auto& item) { return item.second.placement == Placement::single_node; });
}

ArrayOptions LayoutSpec::with_node(ArrayOptions options) const {
  if (node_ && options.placement == Placement::single_node) options.node = *node_;
  return options;
}

ArrayOptions LayoutSpec::for_array(std::string_view name) const {
  const auto it = placements_.find(name);
  return with_node(it != placements_.end() ? it->second : base_);
}

ArrayOptions LayoutSpec::for_output(std::string_view name) const {
  const auto it = placements_.find(name);
  if (it != placements_.end()) return with_node(it->second);
  ArrayOptions interleaved;
  interleaved.placement = Placement::interleaved;
  return interleaved;
}

GraphLayout LayoutSpec::layout(Variant variant) const {
  GraphLayout layout = GraphLayout::for_variant(variant);
  for (std::size_t i = 0; i < graph_array_count; ++i) {
    const auto a = static_cast<GraphArray>(i);
    const unsigned variant_bits = layout[a].bits;
    layout[a] = for_array(to_string(a));
    const auto forced = bits_.find(to_string(a));
    layout[a].bits = forced != bits_.end() ? forced->second : variant_bits;
  }
  return layout;
}

}  // namespace smartarrays::graph
