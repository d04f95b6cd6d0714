// Owns the libFuzzer harness of the graph readers: the input bytes become a file in memory (a
// memfd, read through /proc/self/fd like any path), which GraphSource reads in the format this
// binary was built for (SMARTARRAYS_FUZZ_FORMAT) and builds into a CSR, as given and deduplicated
// without self-loops, each validated. A graph that loads is then written in every format, each to
// its own memfd, and read back: it must be the same CSR, or the input showed data loss. A
// smartarrays::Error is the right answer to bad input; a crash, a sanitizer report, a failed round
// trip, a timeout or memory beyond libFuzzer's -rss_limit_mb / -malloc_limit_mb is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz/memory_file.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/graph/formats.hpp"
#include "smartarrays/graph/source.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace {

using namespace smartarrays;
using fuzz::MemoryFile;

// The memory the library may assume (SMARTARRAYS_MEMORY_LIMIT_MB): far below -rss_limit_mb even
// with ASan's overhead and two graphs alive during a round trip, and small enough that the largest
// graph an input may describe builds in milliseconds, so executions stay fast. An edge list of a few
// bytes naming a large id builds arrays as large as the limit allows, through a dozen whole-graph
// passes that the coverage instrumentation slows most: at 8 MiB the edge-list harness ran its corpus
// 10x slower than at 4 MiB; at 4 MiB it ran 61 exec/s against 367-568 at 2 MiB (30 s each from the
// same corpus and seed, alternating), which also reached more coverage in that time (2155-2171
// edges against 2143). 1 MiB was no faster than 2 and starts with less coverage.
constexpr const char* memory_limit_mib = "2";

// One worker: the harness runs one input at a time, and a single thread keeps runs repeatable.
runtime::ThreadPool& pool() {
  static runtime::ThreadPool p(runtime::PoolOptions{.threads = 1});
  return p;
}

// Every array of a graph, decoded, and its directedness: what a round trip must preserve.
struct Decoded {
  std::vector<std::vector<std::uint64_t>> arrays;
  bool directed = true;
  friend bool operator==(const Decoded&, const Decoded&) = default;
};

Decoded decode(const graph::CsrGraph& g) {
  Decoded d;
  d.directed = g.directed();
  for (std::size_t a = 0; a < graph::graph_array_count; ++a) {
    const SmartArray& array = g.array(static_cast<graph::GraphArray>(a));
    std::vector<std::uint64_t>& values = d.arrays.emplace_back(array.length());
    if (!values.empty()) array.decode(0, values.size(), values.data());
  }
  return d;
}

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "round-trip finding: %s\n", what.c_str());
  std::abort();
}

// Writes g in format to a memfd and reads it back; anything but the same CSR is a finding. A text
// writer may refuse a graph its reader would refuse (an isolated tail beyond the declared-vertex
// limit); the .sg writer holds every graph an input can describe.
void round_trip(const graph::CsrGraph& g, const Decoded& expected, graph::GraphFormat format) {
  const MemoryFile file;
  try {
    graph::save_graph(g, file.path(), format);
  } catch (const Error& e) {
    if (format == graph::GraphFormat::gap_sg) finding(std::string("writing .sg failed: ") + e.what());
    return;
  }
  graph::SourceOptions options;
  options.format = format;
  try {
    if (decode(graph::GraphSource::open(file.path(), options, pool()).build({}, pool())) != expected) {
      finding(std::string("the graph read back from ") + graph::to_string(format) + " differs");
    }
  } catch (const Error& e) {
    finding(std::string("reading back ") + graph::to_string(format) + " failed: " + e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Read once, at the library's first need: set before any call. A user's own values win.
  setenv("SMARTARRAYS_MEMORY_LIMIT_MB", memory_limit_mib, 0);
  setenv("SMARTARRAYS_THREADS", "1", 0);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const MemoryFile file(data, size);
  graph::SourceOptions options;
  options.format = graph::parse_graph_format(SMARTARRAYS_FUZZ_FORMAT);
  try {
    const graph::GraphSource source = graph::GraphSource::open(file.path(), options, pool());
    graph::BuildOptions squeezed;
    squeezed.dedup = true;
    squeezed.drop_self_loops = true;
    source.build(squeezed, pool()).validate();
    const graph::CsrGraph g = source.build({}, pool());
    g.validate();
    const Decoded expected = decode(g);
    for (graph::GraphFormat format : {graph::GraphFormat::edge_list, graph::GraphFormat::matrix_market,
                                      graph::GraphFormat::gap_sg}) {
      round_trip(g, expected, format);
    }
  } catch (const Error&) {
    // Bad input rejected with a message: the expected outcome for most inputs.
  }
  return 0;
}
