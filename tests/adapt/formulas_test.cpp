// Tests the paper's §6 formulas and the prediction against values computed by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "adapt/profiles.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/adapt/decision.hpp"
#include "smartarrays/adapt/model.hpp"

namespace smartarrays::adapt {
namespace {

TEST(Formulas, ImprovementsAndSpeedupsAsThePaperDefinesThem) {
  EXPECT_DOUBLE_EQ(formulas::improvement_exec(16, 4), 4);
  // The 8-core machine of Table 1: 49.3 GB/s local, 8 GB/s interconnect, 20 GB/s used now.
  EXPECT_DOUBLE_EQ(formulas::improvement_bw(49.3, 8, 20), (49.3 - 8) / 20);
  EXPECT_DOUBLE_EQ(formulas::speedup_remote(8, 20), 0.4);
  EXPECT_DOUBLE_EQ(formulas::speedup_local(4, 2.065), 2.065);
  EXPECT_TRUE(formulas::single_node_pays(2.065, 0.4));   // mean 1.23
  EXPECT_FALSE(formulas::single_node_pays(1.2, 0.7));    // mean 0.95
  EXPECT_FALSE(formulas::single_node_pays(1.5, 0.5));    // mean exactly 1 does not pay
}

TEST(Formulas, CompressedExecAndBandwidth) {
  // 1e9 accesses/s, 0.5 ns extra per access: half a CPU more.
  EXPECT_DOUBLE_EQ(formulas::exec_compressed(2, 1e9, 0.5e-9), 2.5);
  // 33 of 64 bits: 1e9 accesses/s of 8-byte elements save 31/64 of 8 GB/s.
  EXPECT_DOUBLE_EQ(formulas::bw_compressed(10e9, 1e9, 33.0 / 64, 8), 10e9 - 1e9 * (31.0 / 64) * 8);
  EXPECT_DOUBLE_EQ(formulas::node_speedup(8, 4, 40, 10), 2);  // min(2, 4)
  EXPECT_DOUBLE_EQ(formulas::node_speedup(8, 1, 40, 10), 4);  // min(8, 4)
  EXPECT_DOUBLE_EQ(formulas::configuration_speedup({2, 4}), 3);
  EXPECT_DOUBLE_EQ(formulas::configuration_speedup({}), 0);
}

TEST(Predict, OneNodeStreamIsBandwidthOrComputeBound) {
  // One node, 2 CPUs, 10 GB/s; 64 Mi values of 64 bits = 512 MiB: 0.0537 s at 10 GB/s.
  const MachineProfile m = test::machine(1, 2, 10, 10, 1e9);
  const WorkloadProfile w = array_workload(64ull << 20, 64, AccessHints{true, AccessPattern::sequential, 1, 2});
  const Prediction p = predict(m, w, {ArrayConfig{Placement::os_default, 0, 64, false}});
  const double bytes = 64.0 * (1 << 20) * 8;
  EXPECT_NEAR(p.memory_seconds, bytes / 10e9, 1e-9);
  // Compute: 64 Mi values at 4e9 values/s per CPU on 2 CPUs.
  EXPECT_NEAR(p.compute_seconds, 64.0 * (1 << 20) / 8e9, 1e-9);
  EXPECT_NEAR(p.loop_seconds, bytes / 10e9, 1e-9);
  // At 33 bits: 33/64 of the bytes, but 1e9 values/s per CPU: compute-bound at 0.0336 s.
  const Prediction c = predict(m, w, {ArrayConfig{Placement::os_default, 0, 33, false}});
  EXPECT_NEAR(c.memory_seconds, bytes * 33 / 64 / 10e9, 1e-9);
  EXPECT_NEAR(c.loop_seconds, 64.0 * (1 << 20) / 2e9, 1e-9);
  EXPECT_EQ(c.init_seconds, 0);
}

TEST(Predict, TheSerialFractionAddsTheShorterTimeInPart) {
  MachineProfile m = test::machine(1, 2, 10, 10, 1e9);
  m.serial_fraction = 0.5;
  const WorkloadProfile w = array_workload(64ull << 20, 33, AccessHints{true, AccessPattern::sequential, 1, 2});
  const Prediction c = predict(m, w, {ArrayConfig{Placement::os_default, 0, 33, false}});
  const double compute = 64.0 * (1 << 20) / 2e9, memory = 64.0 * (1 << 20) * 33 / 8 / 10e9;
  EXPECT_NEAR(c.loop_seconds, compute + 0.5 * memory, 1e-9);
}

TEST(Predict, ReplicasCostTheirCopyOnTwoNodes) {
  const MachineProfile m = test::machine(2, 4, 40, 10);
  const WorkloadProfile w = array_workload(64ull << 20, 64, AccessHints{true, AccessPattern::sequential, 1, 0});
  const Prediction p = predict(m, w, {ArrayConfig{Placement::replicated, 0, 64, false}});
  const double bytes = array_bytes(64ull << 20, 64);
  // Each node copies its replica at 5 GB/s in parallel, instead of both filling one copy at 10 GB/s.
  EXPECT_NEAR(p.init_seconds, bytes / 5e9 - bytes / 10e9, 1e-9);
  // Both nodes read locally at 40 GB/s, each half the work: bytes / 80 GB/s.
  EXPECT_NEAR(p.loop_seconds, bytes / 80e9, 1e-9);
  const Prediction s = predict(m, w, {ArrayConfig{Placement::single_node, 0, 64, false}});
  // Node 0 at 40 GB/s and node 1 at 10 GB/s share the work by rate (50 GB/s), but node 0's memory
  // serves everything at 40 GB/s at most.
  EXPECT_NEAR(s.loop_seconds, bytes / 40e9, 1e-9);
}

TEST(Predict, AResidentWorkloadReadsMemoryOnlyOnItsFirstPass) {
  // 1 Mi values of 64 bits = 8 MiB, twice that fits the 32 MiB cache: ten passes read memory once.
  const MachineProfile m = test::machine(1, 2, 10, 10, 1e9);
  const auto bytes_of = [&](std::uint64_t length, double passes) {
    const WorkloadProfile w = array_workload(length, 64, AccessHints{true, AccessPattern::sequential, passes, 2});
    return predict(m, w, {ArrayConfig{Placement::os_default, 0, 64, false}}).bytes;
  };
  EXPECT_NEAR(bytes_of(1 << 20, 10), 8.0 * (1 << 20), 1e-3);
  EXPECT_NEAR(bytes_of(1 << 20, 1), 8.0 * (1 << 20), 1e-3);
  // 8 Mi values = 64 MiB does not fit: every pass reads memory.
  EXPECT_NEAR(bytes_of(8 << 20, 10), 10 * 64.0 * (1 << 20), 1e-3);
}

TEST(Predict, RandomLoadsMissBeyondTheCalibratedRandomCache) {
  // 2 Mi values of 64 bits = 16 MiB read at random, 16 times each; the sequential stream makes
  // the workload too large to be resident. With the whole 32 MiB last-level cache every load hits;
  // with a calibrated 4 MiB, three in four miss.
  MachineProfile m = test::machine(1, 2, 10, 10, 1e9);
  WorkloadProfile w = array_workload(2 << 20, 64, AccessHints{true, AccessPattern::random, 16, 2});
  w.arrays.push_back(array_workload(16 << 20, 64, AccessHints{true, AccessPattern::sequential, 1, 2}).arrays[0]);
  w.arrays.back().name = "stream";
  const std::vector<ArrayConfig> configs(2, ArrayConfig{Placement::os_default, 0, 64, false});
  const double stream_bytes = 16.0 * (1 << 20) * 8;
  EXPECT_NEAR(predict(m, w, configs).bytes, stream_bytes, 1e-3);
  m.random_cache_bytes = 4 << 20;
  EXPECT_NEAR(predict(m, w, configs).bytes, stream_bytes + 16.0 * (2 << 20) * 0.75 * 64, 1e-3);
}

TEST(Predict, AMeasuredProfileReproducesWhatItMeasured) {
  // A profile measured at 64 bits (0.1 s, 0.01 s of compute) and on a cache-resident slice at its
  // 20 bits (0.05 s of compute, far more than the calibrated fused decode predicts): the prediction
  // of the profiling configuration is the measured time, and the compressed compute is the measured one.
  const MachineProfile m = test::machine(1, 2, 10, 10, 1e9);
  WorkloadProfile w = aggregate_workload(64ull << 20, 20, 2);
  w.measured = WorkloadMeasurement{"interleaved", 0.1, 0, 0, 0.01, 0.05};
  const std::vector<ArrayConfig> natural(2, ArrayConfig{Placement::interleaved, 0, 64, false});
  const std::vector<ArrayConfig> fewest(2, ArrayConfig{Placement::interleaved, 0, 20, false});
  EXPECT_NEAR(predict(m, w, natural).loop_seconds, 0.1, 1e-6);
  EXPECT_NEAR(predict(m, w, natural).compute_seconds, 0.01, 1e-9);
  EXPECT_NEAR(predict(m, w, fewest).compute_seconds, 0.05, 1e-9);
  // Without the compressed measurement, decoding is priced at the calibrated rate scaled like the
  // natural width's compute: cheaper than measured here.
  w.measured->compressed_compute_seconds = 0;
  EXPECT_LT(predict(m, w, fewest).compute_seconds, 0.05);
  // A run faster than the model's bandwidth explains scales memory down (the old scaling went up only).
  w.measured->seconds = 0.02;
  EXPECT_NEAR(predict(m, w, natural).loop_seconds, 0.02, 1e-6);
}

TEST(Predict, TwoMeasuredRunsRecoverTheWorkloadsOwnOverlap) {
  // Runs made up by the model itself with known corrections (compute x1.5, compressed compute x3,
  // memory x0.8, overlap 0.5 where the machine says 0): the fit finds them again.
  const MachineProfile m = test::machine(1, 2, 10, 10, 1e9);
  WorkloadProfile w = aggregate_workload(64ull << 20, 20, 2);
  const std::vector<ArrayConfig> natural(2, ArrayConfig{Placement::interleaved, 0, 64, false});
  const std::vector<ArrayConfig> fewest(2, ArrayConfig{Placement::interleaved, 0, 20, false});
  const ModelFit truth{1.5, 3, 0.8, 0.5};
  const Prediction n = predict(m, w, natural, truth), c = predict(m, w, fewest, truth);
  w.measured = WorkloadMeasurement{"interleaved", n.loop_seconds, 0, 0, n.compute_seconds, c.compute_seconds, c.loop_seconds};
  const ModelFit fit = fit_model(m, w);
  EXPECT_NEAR(fit.compute, 1.5, 1e-9);
  EXPECT_NEAR(fit.compressed, 3, 1e-9);
  EXPECT_NEAR(fit.memory, 0.8, 1e-6);
  EXPECT_NEAR(fit.serial_fraction, 0.5, 1e-9);
  EXPECT_NEAR(predict(m, w, fewest).loop_seconds, c.loop_seconds, 1e-6 * c.loop_seconds);
  // Compute times no run can take are refused, not scaled to infinity (every prediction 0 s).
  WorkloadProfile absurd = w;
  absurd.measured->compute_seconds = 1.7e308;
  EXPECT_THROW(fit_model(m, absurd), Error);
  EXPECT_THROW(predict(m, absurd, natural), Error);
  // A derived profile is not corrected at all.
  w.measured.reset();
  const ModelFit none = fit_model(m, w);
  EXPECT_EQ(none.compute, 1);
  EXPECT_EQ(none.compressed, 1);
  EXPECT_EQ(none.memory, 1);
  EXPECT_LT(none.serial_fraction, 0);
}

// Passes so many that an array's cost leaves a double's range would predict 0 s (a rate of 0), the
// fastest candidate of all: refused naming the array, while the largest that stays finite predicts.
TEST(Predict, RefusesAWorkloadBeyondWhatItCanTime) {
  const MachineProfile m = test::machine(1, 2, 10, 10, 1e9);
  const std::vector<ArrayConfig> natural{ArrayConfig{Placement::os_default, 0, 64, false}};
  const WorkloadProfile big = array_workload(1 << 20, 64, AccessHints{true, AccessPattern::sequential, 1e290, 2});
  EXPECT_GT(predict(m, big, natural).seconds, 1e270);
  const WorkloadProfile absurd = array_workload(1 << 20, 64, AccessHints{true, AccessPattern::sequential, 1e305, 2});
  try {
    predict(m, absurd, natural);
    FAIL() << "predicted " << predict(m, absurd, natural).seconds << " s";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_STREQ(e.what(), "workload array 'array': 1e+305 passes over 1048576 values are more accesses than the model can time");
  }
  EXPECT_THROW(decide(m, absurd), Error);
}

// A prediction that is not a finite number is an error, not an answer: a profile built in code
// (validate() was not asked) with a copy rate of 5e-324 predicted replicas at -nan ms, which
// compares as neither faster nor slower than any candidate.
TEST(Predict, RefusesATimeThatIsNotAFiniteNumber) {
  MachineProfile m = test::machine(2, 4, 40, 10);
  m.copy_gbs[0] = 5e-324;
  const WorkloadProfile w = array_workload(1 << 20, 64, AccessHints{true, AccessPattern::sequential, 1, 8});
  EXPECT_TRUE(std::isfinite(predict(m, w, {ArrayConfig{Placement::interleaved, 0, 64, false}}).seconds));
  try {
    const double seconds = predict(m, w, {ArrayConfig{Placement::replicated, 0, 64, false}}).seconds;
    FAIL() << "predicted " << seconds << " s";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_EQ(std::string(e.what()).rfind("the machine profile predicts a time that is not a finite number (loop ", 0), 0u)
        << e.what();
  }
  EXPECT_THROW(decide(m, w), Error);
  EXPECT_THROW(validate(m), Error);
}

TEST(Predict, RejectsAConfigurationCountThatDiffers) {
  const MachineProfile m = test::machine(1, 2, 10, 10);
  const WorkloadProfile w = aggregate_workload(1024, 10, 1);
  EXPECT_THROW(predict(m, w, {ArrayConfig{}}), Error);
}

}  // namespace
}  // namespace smartarrays::adapt
