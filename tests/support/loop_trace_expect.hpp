// Owns the tests' checks of a traced loop (runtime::LoopTrace): every part lies where the data of
// its indices lives, and every worker took its own node's batches before any other node's.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::test {

/// Checks one traced loop: each part's indices all have node_of(index) == the part's node, and each
/// worker's batches from its own node's parts come before any it took from other nodes' parts.
/// Returns how many parts had a node of their own data (so a caller can insist the loop followed a layout).
inline std::size_t expect_local_first(const runtime::LoopTrace::Traced& loop,
                                      const std::function<int(std::uint64_t)>& node_of) {
  // The parts whose every index has its data on the part's node (the parts a layout made).
  std::vector<runtime::LoopPart> placed;
  for (const runtime::LoopPart& part : loop.parts) {
    bool all = part.begin < part.end;
    for (std::uint64_t i = part.begin; all && i < part.end; ++i) all = node_of(i) == part.node;
    if (all) placed.push_back(part);
  }
  for (std::size_t w = 0; w < loop.by_worker.size(); ++w) {
    bool stolen = false;
    for (const runtime::Batch& batch : loop.by_worker[w]) {
      if (batch.node != loop.worker_nodes[w]) {
        stolen = true;
        continue;
      }
      EXPECT_FALSE(stolen) << "worker " << w << " took a batch of its node " << batch.node << " at [" << batch.lo << ", "
                           << batch.hi << ") after stealing";
      const bool in_placed = std::any_of(placed.begin(), placed.end(), [&](const runtime::LoopPart& part) {
        return part.begin <= batch.lo && batch.hi <= part.end;
      });
      if (!in_placed) continue;  // a part split by weights: its data is on no one node
      for (std::uint64_t i = batch.lo; i < batch.hi; ++i) {
        if (node_of(i) == batch.node) continue;
        ADD_FAILURE() << "worker " << w << " on node " << batch.node << " ran index " << i << " of node " << node_of(i);
        break;
      }
    }
  }
  return placed.size();
}

/// The node of the range of ranges holding position (-1 when none does).
inline int node_at(const std::vector<runtime::LoopPart>& ranges, std::uint64_t position) {
  for (const runtime::LoopPart& range : ranges) {
    if (range.begin <= position && position < range.end) return range.node;
  }
  return -1;
}

}  // namespace smartarrays::test
