// Owns the libFuzzer harness of the store reader: the input bytes become a file in memory (a
// memfd, opened through /proc/self/fd like any path), opened as a store mapped and loaded, every
// object touched (every array summed and read at its ends; every graph's sizes, its last vertex's
// neighbours and two PageRank iterations, which read every id: a mapped graph with an id past its
// vertex count once crashed PageRank here), then verified
// deeply; and the same bytes behind a stream preamble are received from a memfd as a store stream
// and touched. A smartarrays::Error is the right answer to bad input; a crash, a sanitizer report, a
// timeout or memory beyond libFuzzer's -rss_limit_mb is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz/memory_file.hpp"
#include "smartarrays/algo/pagerank.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/runtime/thread_pool.hpp"
#include "smartarrays/store/store.hpp"

namespace {

using smartarrays::fuzz::MemoryFile;

// One worker: the harness runs one input at a time, and a single thread keeps runs repeatable.
smartarrays::runtime::ThreadPool& pool() {
  static smartarrays::runtime::ThreadPool p(smartarrays::runtime::PoolOptions{.threads = 1});
  return p;
}

// Two PageRank iterations over g: every offset and id read, as an algorithm reads them.
std::uint64_t traverse(const smartarrays::graph::CsrGraph& g) {
  smartarrays::algo::PageRankOptions options;
  options.tolerance = 0;
  options.max_iterations = 2;
  const smartarrays::algo::PageRankResult result = smartarrays::algo::pagerank(g.rbegin(), g.redge(), g.begin(), options, pool());
  std::uint64_t seen = result.iterations;
  if (g.vertices() > 0) {
    seen += g.out_neighbours(g.vertices() - 1).size() + g.in_neighbours(g.vertices() - 1).size();
    seen += result.ranks.get(g.vertices() - 1);
  }
  return seen;
}

// Reads every object: sums and end values of arrays; sizes, one neighbour list and PageRank of graphs.
std::uint64_t touch(const smartarrays::store::Store& store) {
  std::uint64_t seen = 0;
  for (const std::string& name : store.names()) {
    if (store.kind(name) == smartarrays::store::ObjectKind::array) {
      const smartarrays::SmartArray& a = store.array(name);
      seen += a.sum();
      if (a.length() > 0) seen += a.get(0) + a.get(a.length() - 1);
    } else {
      const smartarrays::graph::CsrGraph& g = store.graph(name);
      seen += g.vertices() + g.edges() + g.begin().sum() + g.redge().sum() + traverse(g);
    }
  }
  return seen;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const MemoryFile file(data, size);
  for (smartarrays::store::Mode mode : {smartarrays::store::Mode::map, smartarrays::store::Mode::load}) {
    try {
      const auto store = smartarrays::store::Store::open(file.path(), mode, {}, pool());
      volatile std::uint64_t sink = touch(store);
      (void)sink;
    } catch (const smartarrays::Error&) {
      // Bad input rejected with a message: the expected outcome for most inputs.
    }
  }
  try {
    (void)smartarrays::store::verify(file.path(), true);
  } catch (const smartarrays::Error&) {
    // A malformed header, directory or trailer throws, like open.
  }
  // The input as a stream: "SASTREAM", its length, then the bytes.
  std::vector<std::uint8_t> stream(16 + size);
  std::memcpy(stream.data(), "SASTREAM", 8);
  const std::uint64_t length = size;
  std::memcpy(stream.data() + 8, &length, sizeof length);
  if (size > 0) std::memcpy(stream.data() + 16, data, size);
  const MemoryFile streamed(stream.data(), stream.size());
  try {
    smartarrays::store::ReceiveOptions options;
    options.max_bytes = std::uint64_t{1} << 26;
    const auto store = smartarrays::store::Store::receive(streamed.rewound(), options);
    volatile std::uint64_t sink = touch(store);
    (void)sink;
  } catch (const smartarrays::Error&) {
    // A malformed stream is refused like a malformed file.
  }
  return 0;
}
