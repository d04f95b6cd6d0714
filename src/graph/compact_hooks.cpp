// Owns the registered compact-form reader and writer (see compact_hooks.hpp) and the error when a
// program links the graph layer without the store layer.
#include "graph/compact_hooks.hpp"

#include "smartarrays/error.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::graph::detail {
namespace {

// Constant-initialised, so registration during another file's static initialisation is safe.
CompactHooks registered{};

[[noreturn]] void missing(const std::string& path) {
  throw_error(ErrorCode::unsupported, "the compact graph format (" + util::quoted(path, 4096) +
                                          ") needs the store layer, which this program does not link");
}

}  // namespace

void register_compact_hooks(CompactHooks hooks) noexcept { registered = hooks; }

CsrGraph open_compact(const std::string& path, const SourceOptions& options, runtime::ThreadPool& pool) {
  if (registered.open == nullptr) missing(path);
  return registered.open(path, options, pool);
}

void write_compact(const CsrGraph& graph, const std::string& path) {
  if (registered.write == nullptr) missing(path);
  registered.write(graph, path);
}

}  // namespace smartarrays::graph::detail
