// Tests every branch of the two decision diagrams of Figure 13, the choice between their candidates
// and the huge-page rule, each from a hand-written machine: the expected choice and the rule the
// explanation names.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "adapt/profiles.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/adapt/decision.hpp"

namespace smartarrays::adapt {
namespace {

constexpr std::uint64_t big = 64ull << 20;  // 64 Mi values: 512 MiB at 64 bits, beyond any cache

// The outcome of rule id about array (in step when given); fails the test when it is absent.
std::string outcome(const Decision& d, const std::string& id, const std::string& step = "", const std::string& array = "a1") {
  for (const Rule& r : d.explanation) {
    if (r.rule == id && r.array == array && (step.empty() || r.step == step)) return r.outcome;
  }
  ADD_FAILURE() << "no rule " << id << " (" << step << ") for " << array << " in:\n" << d.text();
  return "";
}

bool has_rule(const Decision& d, const std::string& id, const std::string& step) {
  return std::any_of(d.explanation.begin(), d.explanation.end(),
                     [&](const Rule& r) { return r.rule == id && r.step == step; });
}

WorkloadProfile one_array(unsigned value_bits, bool read_only, AccessPattern pattern, double passes,
                          std::uint64_t length = big) {
  WorkloadProfile w = array_workload(length, value_bits, AccessHints{read_only, pattern, passes, 0});
  w.arrays[0].name = "a1";
  return w;
}

// --- Figure 13 (a): uncompressed ---

TEST(UncompressedDiagram, OneMemoryNodeIsNotBound) {
  const Decision d = decide(test::machine(1, 2, 10, 10), one_array(64, true, AccessPattern::sequential, 1));
  EXPECT_EQ(outcome(d, "one_memory_node", "uncompressed"), "os_default");
  EXPECT_EQ(d.arrays[0].choice.placement, Placement::os_default);
  EXPECT_EQ(d.arrays[0].choice.bits, 64u);
}

TEST(UncompressedDiagram, NotReadOnlyIsNeverReplicated) {
  const Decision d = decide(test::machine(2, 4, 40, 30), one_array(64, false, AccessPattern::sequential, 1000));
  EXPECT_EQ(outcome(d, "read_only", "uncompressed"), "no");
  EXPECT_FALSE(has_rule(d, "space_for_replication", "uncompressed"));
  EXPECT_NE(d.arrays[0].uncompressed->placement, Placement::replicated);
}

TEST(UncompressedDiagram, ReplicatedWhenItFitsAndPassesAmortiseIt) {
  const Decision d = decide(test::machine(2, 4, 40, 10), one_array(64, true, AccessPattern::sequential, 100));
  EXPECT_EQ(outcome(d, "read_only", "uncompressed"), "yes");
  EXPECT_EQ(outcome(d, "space_for_replication", "uncompressed"), "yes");
  EXPECT_EQ(outcome(d, "random_accesses", "uncompressed"), "no");
  EXPECT_EQ(outcome(d, "amortise_replication", "uncompressed"), "yes");
  EXPECT_EQ(d.arrays[0].uncompressed->placement, Placement::replicated);
  EXPECT_EQ(d.arrays[0].choice.placement, Placement::replicated);
}

TEST(UncompressedDiagram, OnePassDoesNotAmortiseReplicas) {
  const Decision d = decide(test::machine(2, 4, 40, 30), one_array(64, true, AccessPattern::sequential, 1));
  EXPECT_EQ(outcome(d, "amortise_replication", "uncompressed"), "no");
  EXPECT_NE(d.arrays[0].uncompressed->placement, Placement::replicated);
}

TEST(UncompressedDiagram, RandomAccessesJudgeReplicationByLatency) {
  const Decision d = decide(test::machine(2, 4, 40, 10), one_array(64, true, AccessPattern::random, 100));
  EXPECT_EQ(outcome(d, "random_accesses", "uncompressed"), "yes");
  EXPECT_EQ(outcome(d, "amortise_replication", "uncompressed"), "yes");
  EXPECT_EQ(d.arrays[0].uncompressed->placement, Placement::replicated);
}

TEST(UncompressedDiagram, NoSpaceForReplicasFallsBackToOneNodeOrInterleaving) {
  // 512 MiB per replica, 400 MiB free per node: only interleaving (256 MiB per node) fits.
  MachineProfile m = with_free_memory(test::machine(2, 4, 40, 30), 400ull << 20);
  const Decision d = decide(m, one_array(64, true, AccessPattern::sequential, 100));
  EXPECT_EQ(outcome(d, "space_for_replication", "uncompressed"), "no");
  EXPECT_EQ(outcome(d, "space_on_one_node", "uncompressed"), "no");
  EXPECT_EQ(d.arrays[0].uncompressed->placement, Placement::interleaved);
}

TEST(UncompressedDiagram, SlowInterconnectPutsEverythingOnOneNode) {
  // The paper's 8-core case taken further: 49 GB/s local, 2 GB/s between sockets.
  const Decision d = decide(test::machine(2, 8, 49, 2), one_array(64, false, AccessPattern::sequential, 1));
  EXPECT_EQ(outcome(d, "local_vs_remote", "uncompressed"), "single_node");
  EXPECT_EQ(d.arrays[0].uncompressed->placement, Placement::single_node);
}

TEST(UncompressedDiagram, FastInterconnectInterleaves) {
  // The 18-core case: 44 GB/s local, 40 GB/s remote.
  const Decision d = decide(test::machine(2, 18, 44, 40), one_array(64, false, AccessPattern::sequential, 1));
  EXPECT_EQ(outcome(d, "local_vs_remote", "uncompressed"), "interleaved");
  EXPECT_EQ(d.arrays[0].uncompressed->placement, Placement::interleaved);
}

TEST(UncompressedDiagram, TooLargeEvenInterleavedLeavesOnlyTheCompressedCandidate) {
  // 512 MiB uncompressed needs 256 MiB per node; 200 MiB free fits 10-bit values (80 MiB) replicated.
  MachineProfile m = with_free_memory(test::machine(2, 4, 40, 10, 4e9), 200ull << 20);
  const Decision d = decide(m, one_array(10, true, AccessPattern::sequential, 100));
  EXPECT_EQ(outcome(d, "space", "uncompressed"), "none");
  EXPECT_FALSE(d.arrays[0].uncompressed.has_value());
  EXPECT_EQ(outcome(d, "only_candidate", "prediction"), "replicated/10");
  EXPECT_EQ(d.arrays[0].choice.bits, 10u);
}

// --- Figure 13 (b): compressed ---

TEST(CompressedDiagram, NothingToSaveAtTheNaturalWidth) {
  const Decision d = decide(test::machine(2, 4, 40, 30), one_array(64, true, AccessPattern::sequential, 1));
  EXPECT_EQ(outcome(d, "compression_possible", "compressed"), "no");
  EXPECT_FALSE(d.arrays[0].compressed.has_value());
  EXPECT_EQ(outcome(d, "only_candidate", "prediction"), d.arrays[0].uncompressed ? "interleaved/64" : "");
}

TEST(CompressedDiagram, RandomAccessesWhoseDecodingCostsMoreThanMemoryDropCompression) {
  MachineProfile m = test::machine(2, 4, 40, 30);
  m.decode.get_ns[32] = 40;  // 33 bits: 39 ns more than 64 bits, more than 80 ns / 8 of memory time
  const Decision d = decide(m, one_array(33, true, AccessPattern::random, 10));
  EXPECT_EQ(outcome(d, "random_decode_cost", "compressed"), "yes");
  EXPECT_FALSE(d.arrays[0].compressed.has_value());
  EXPECT_EQ(d.arrays[0].choice.bits, 64u);
}

TEST(CompressedDiagram, CheapRandomDecodingKeepsTheCompressedCandidate) {
  const Decision d = decide(test::machine(2, 4, 40, 30), one_array(33, true, AccessPattern::random, 10));
  EXPECT_EQ(outcome(d, "random_decode_cost", "compressed"), "no");
  EXPECT_TRUE(d.arrays[0].compressed.has_value());
}

TEST(CompressedDiagram, CompressionMakesReplicationFit) {
  // 512 MiB uncompressed does not fit per node in 300 MiB; 80 MiB at 10 bits does.
  MachineProfile m = with_free_memory(test::machine(2, 4, 40, 10, 4e9), 300ull << 20);
  const Decision d = decide(m, one_array(10, true, AccessPattern::sequential, 100));
  EXPECT_EQ(outcome(d, "space_for_replication", "uncompressed"), "no");
  EXPECT_EQ(outcome(d, "space_for_compressed_replication", "compressed"), "yes");
  EXPECT_EQ(outcome(d, "amortise_replication", "compressed"), "yes");
  EXPECT_EQ(d.arrays[0].compressed->placement, Placement::replicated);
  EXPECT_EQ(d.arrays[0].choice.placement, Placement::replicated);
  EXPECT_EQ(d.arrays[0].choice.bits, 10u);
}

TEST(CompressedDiagram, NoSpaceForCompressedReplicasInterleaves) {
  // 264 MiB at 33 bits per replica does not fit in 200 MiB; interleaved (132 MiB per node) does.
  MachineProfile m = with_free_memory(test::machine(2, 4, 40, 30), 200ull << 20);
  const Decision d = decide(m, one_array(33, true, AccessPattern::sequential, 100));
  EXPECT_EQ(outcome(d, "space_for_compressed_replication", "compressed"), "no");
  EXPECT_EQ(outcome(d, "space_on_one_node", "compressed"), "no");
  EXPECT_EQ(d.arrays[0].compressed->placement, Placement::interleaved);
}

TEST(CompressedDiagram, SlowInterconnectPutsCompressedDataOnOneNode) {
  const Decision d = decide(test::machine(2, 8, 49, 2, 4e9), one_array(33, false, AccessPattern::sequential, 1));
  EXPECT_EQ(outcome(d, "local_vs_remote", "compressed"), "single_node");
  EXPECT_EQ(d.arrays[0].compressed->placement, Placement::single_node);
}

TEST(CompressedDiagram, OneMemoryNodeIsNotBound) {
  const Decision d = decide(test::machine(1, 2, 10, 10), one_array(33, true, AccessPattern::sequential, 1));
  EXPECT_EQ(outcome(d, "one_memory_node", "compressed"), "os_default");
  EXPECT_EQ(d.arrays[0].compressed->placement, Placement::os_default);
}

// --- Step 2 and huge pages ---

TEST(Prediction, CompressionWinsWhenMemoryBoundWithSpareCompute) {
  // 2 CPUs decoding 4e9 values/s each against 10 GB/s: reading 33/64 of the bytes wins.
  const Decision d = decide(test::machine(1, 2, 10, 10, 4e9), one_array(33, true, AccessPattern::sequential, 1));
  EXPECT_EQ(outcome(d, "fastest", "prediction"), "os_default/33");
  EXPECT_EQ(d.arrays[0].choice.bits, 33u);
}

TEST(Prediction, UncompressedWinsWhenDecodingIsTheBottleneck) {
  // Decoding 33 bits at 0.1e9 values/s per CPU is far slower than streaming 64-bit values.
  const Decision d = decide(test::machine(1, 2, 10, 10, 0.1e9), one_array(33, true, AccessPattern::sequential, 1));
  EXPECT_EQ(outcome(d, "fastest", "prediction"), "os_default/64");
  EXPECT_EQ(d.arrays[0].choice.bits, 64u);
}

TEST(HugePages, OffWhenTheKernelHasThemOff) {
  MachineProfile m = test::machine(1, 2, 10, 10);
  m.thp_enabled = "never";
  const Decision d = decide(m, one_array(64, true, AccessPattern::sequential, 1));
  EXPECT_EQ(outcome(d, "huge_pages", "huge pages"), "no");
  EXPECT_FALSE(d.arrays[0].choice.huge_pages);
}

TEST(HugePages, OnForLargeStreams) {
  const Decision d = decide(test::machine(1, 2, 10, 10), one_array(64, true, AccessPattern::sequential, 1));
  EXPECT_EQ(outcome(d, "huge_pages", "huge pages"), "yes");
  EXPECT_TRUE(d.arrays[0].choice.huge_pages);
}

TEST(HugePages, OffForSmallArrays) {
  const Decision d = decide(test::machine(1, 2, 10, 10), one_array(64, true, AccessPattern::sequential, 1, 1024));
  EXPECT_EQ(outcome(d, "huge_pages", "huge pages"), "no");
}

TEST(HugePages, RandomAccessesFollowTheMeasuredLatencyGain) {
  MachineProfile m = test::machine(1, 2, 10, 10);
  m.huge_page_latency_ratio = 0.6;
  EXPECT_EQ(outcome(decide(m, one_array(64, true, AccessPattern::random, 1)), "huge_pages", "huge pages"), "yes");
  m.huge_page_latency_ratio = 1.0;
  EXPECT_EQ(outcome(decide(m, one_array(64, true, AccessPattern::random, 1)), "huge_pages", "huge pages"), "no");
}

// --- Several arrays ---

TEST(MultipleArrays, PageRankGetsADecisionPerArrayAndKeepsItsOutputInterleaved) {
  const Decision d = decide(test::machine(2, 4, 40, 10, 4e9), pagerank_workload(1u << 22, 1u << 26, 0, 20));
  ASSERT_EQ(d.arrays.size(), 5u);
  EXPECT_TRUE(d.array("ranks").fixed);
  EXPECT_EQ(d.array("ranks").choice.placement, Placement::interleaved);
  // Contributions are rewritten every iteration: never replicated, never compressed.
  EXPECT_NE(d.array("contributions").choice.placement, Placement::replicated);
  EXPECT_EQ(d.array("contributions").choice.bits, 64u);
  // Deciding per array predicts no slower than any one configuration for all arrays.
  for (const Candidate& c : d.candidates) EXPECT_LE(d.predicted.seconds, c.prediction.seconds * 1.000001) << c.label;
  EXPECT_EQ(outcome(d, "read_only", "uncompressed", "rbegin"), "yes");
  EXPECT_THROW(d.array("nothing"), Error);
}

TEST(MultipleArrays, AUniformCandidatePredictedFasterReplacesThePerArrayChoices) {
  // Aggregation of two 33-bit arrays on 8 threads over two nodes with a slow interconnect: the
  // diagrams put the first array on one node, after which interleaving the second looks better on
  // its own, yet the model predicts both on one node faster.
  const Decision d = decide(test::machine(2, 8, 40, 10, 4e9), aggregate_workload(8u << 20, 33, 8, 1));
  EXPECT_EQ(outcome(d, "local_vs_remote", "compressed", "a1"), "single_node");
  EXPECT_EQ(outcome(d, "local_vs_remote", "compressed", "a2"), "interleaved");
  EXPECT_EQ(outcome(d, "uniform_candidate", "joint", ""), "single_node/compressed") << d.text();
  for (const ArrayDecision& a : d.arrays) {
    EXPECT_EQ(a.choice.placement, Placement::single_node) << a.name;
    EXPECT_EQ(a.choice.bits, 33u) << a.name;
  }
  for (const Candidate& c : d.candidates) EXPECT_LE(d.predicted.seconds, c.prediction.seconds * 1.000001) << c.label;
}

TEST(MultipleArrays, PerArrayChoicesStayWhenNoUniformCandidateIsFaster) {
  // One memory node: every placement predicts the same, and the arrays' own widths are the fastest.
  const Decision d = decide(test::machine(1, 2, 10, 10), aggregate_workload(8u << 20, 33, 2, 1));
  EXPECT_EQ(outcome(d, "uniform_candidate", "joint", ""), "per_array") << d.text();
  for (const ArrayDecision& a : d.arrays) EXPECT_EQ(a.choice.placement, Placement::os_default) << a.name;
}

TEST(MultipleArrays, NothingFitsIsOutOfMemory) {
  MachineProfile m = with_free_memory(test::machine(1, 2, 10, 10), 1u << 20);
  try {
    decide(m, one_array(33, true, AccessPattern::sequential, 1));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::out_of_memory);
    EXPECT_NE(std::string(e.what()).find("fits in no configuration"), std::string::npos) << e.what();
  }
}

// --- Threads and pinning (beyond the paper) ---

TEST(Threads, AMemoryBoundLoopTakesTheFewestThreadsThatSaturateTheBandwidth) {
  // One node of 8 CPUs reading 10 GB/s with all workers and 5 GB/s with one: 2 threads saturate it;
  // decoding 64-bit values (16e9 per s per CPU) costs little beside 512 MiB of traffic.
  const Decision d = decide(test::machine(1, 8, 10, 10, 4e9), one_array(64, true, AccessPattern::sequential, 1));
  EXPECT_EQ(outcome(d, "fewest_threads_near_fastest", "threads", ""), "2");
  EXPECT_EQ(d.threads, 2u);
  EXPECT_TRUE(d.threads_decided);
  EXPECT_EQ(d.pinning, runtime::PinPolicy::sparse);
  EXPECT_NE(d.json().find("\"threads\": 2"), std::string::npos) << d.json();
}

TEST(Threads, AComputeBoundLoopTakesEveryCpu) {
  // Memory at 100 GB/s takes 5 ms; decoding 64 Mi values at 0.4e9 per s per CPU takes 160 ms / threads.
  const Decision d = decide(test::machine(1, 8, 100, 100, 0.1e9), one_array(64, true, AccessPattern::sequential, 1));
  EXPECT_EQ(outcome(d, "fewest_threads_near_fastest", "threads", ""), "8");
  EXPECT_EQ(d.threads, 8u);
}

// The number name of rule id; fails the test when it is absent.
double number(const Decision& d, const std::string& id, const std::string& name) {
  for (const Rule& r : d.explanation) {
    if (r.rule != id) continue;
    for (const auto& [key, value] : r.numbers) {
      if (key == name) return value;
    }
  }
  ADD_FAILURE() << "no number " << name << " in rule " << id << " of:\n" << d.text();
  return 0;
}

// The search predicts the counts at every dense-pinning boundary of a machine of up to 8 nodes, and
// beyond that at 16, 32, 64, ... nodes: a boundary after every node made it cubic in the nodes (a
// 1000-node profile searched for 27-124 s, predicting 1000 counts).
TEST(Threads, TheSearchKeepsEveryNodeBoundaryUpTo8NodesAndDoublesBeyond) {
  // 8 nodes of 3 CPUs: 1, 2, 4, 8, 16 threads, the boundaries 3, 6, 9, 12, 15, 18, 21, and all 24.
  const Decision eight = decide(test::machine(8, 3, 40, 10), one_array(64, true, AccessPattern::sequential, 1));
  EXPECT_EQ(number(eight, "fewest_threads_near_fastest", "counts_predicted"), 13);
  // 1000 nodes of 1 CPU: 1, 2, 4, ..., 512 threads, the boundaries after 3, 5, 6 and 7 nodes, and all 1000.
  const Decision many = decide(test::machine(1000, 1, 40, 10), one_array(64, true, AccessPattern::sequential, 1));
  EXPECT_EQ(number(many, "fewest_threads_near_fastest", "counts_predicted"), 15);
}

TEST(Threads, ACountTheWorkloadGivesIsKept) {
  WorkloadProfile w = one_array(64, true, AccessPattern::sequential, 1);
  w.threads = 3;
  const Decision d = decide(test::machine(1, 8, 10, 10, 4e9), w);
  EXPECT_EQ(outcome(d, "threads_given", "threads", ""), "3");
  EXPECT_EQ(d.threads, 3u);
  EXPECT_FALSE(d.threads_decided);
  EXPECT_EQ(d.workload.threads, 3u);
}

TEST(Pinning, DenseWhenTheDataLivesOnOneNodeAndSparseOtherwise) {
  // 49 GB/s local, 2 GB/s between the sockets: the array goes to one node, whose controller bounds
  // either pinning alike; 4 workers there read it locally where sparse pinning would leave 2 of them
  // reading across the interconnect.
  WorkloadProfile w = one_array(64, false, AccessPattern::sequential, 1);
  w.threads = 4;
  const Decision bound = decide(test::machine(2, 8, 49, 2), w);
  ASSERT_EQ(bound.arrays[0].choice.placement, Placement::single_node) << bound.text();
  EXPECT_EQ(outcome(bound, "pinning", "threads", ""), "dense");
  EXPECT_EQ(bound.pinning, runtime::PinPolicy::dense);
  // 44 GB/s local, 40 GB/s remote: interleaved, where two nodes' controllers serve more than one.
  const Decision spread = decide(test::machine(2, 18, 44, 40), w);
  ASSERT_EQ(spread.arrays[0].choice.placement, Placement::interleaved) << spread.text();
  EXPECT_EQ(outcome(spread, "pinning", "threads", ""), "sparse");
}

TEST(Pinning, DenseFillsOneNodeBeforeTheNext) {
  const MachineProfile m = test::machine(3, 4, 10, 5);
  EXPECT_EQ(threads_per_node(m, 6, runtime::PinPolicy::dense), (std::vector<unsigned>{4, 2, 0}));
  EXPECT_EQ(threads_per_node(m, 6, runtime::PinPolicy::sparse), (std::vector<unsigned>{2, 2, 2}));
  EXPECT_EQ(threads_per_node(m, 100, runtime::PinPolicy::dense), (std::vector<unsigned>{4, 4, 4}));
}

TEST(Explanation, TextAndJsonCarryTheRulesAndCandidates) {
  const Decision d = decide(test::machine(2, 4, 40, 10), aggregate_workload(big, 33, 0, 10));
  EXPECT_NE(d.text().find("a1 [uncompressed] read_only:"), std::string::npos) << d.text();
  const std::string json = d.json();
  for (const char* key : {"\"choice\"", "\"placement\"", "\"bits\"", "\"candidates\"", "\"predicted_s\"",
                          "\"explanation\"", "\"rule\"", "\"numbers\""}) {
    EXPECT_NE(json.find(key), std::string::npos) << key;
  }
  EXPECT_EQ(d.candidates.back().label, "adaptive");
}

}  // namespace
}  // namespace smartarrays::adapt
