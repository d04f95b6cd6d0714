// Tests measuring a built-in workload's profile by running it: every field of `measured` is filled
// and the result reads back as JSON (no timing asserts).
#include <gtest/gtest.h>

#include <string>

#include "measure/workload_profile.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays::measure {
namespace {

TEST(MeasureWorkload, FillsTheMeasurementOfEveryBuiltInWorkload) {
  for (const adapt::WorkloadProfile& w :
       {adapt::aggregate_workload(1 << 16, 20, 1), adapt::degree_workload(1 << 12, 1 << 15, 1),
        adapt::pagerank_workload(1 << 12, 1 << 15, 1, 2)}) {
    const adapt::WorkloadProfile m = measure_workload(w, Trials{0, 1});
    ASSERT_TRUE(m.measured.has_value()) << w.workload;
    EXPECT_EQ(m.measured->placement, "interleaved");
    EXPECT_GT(m.measured->seconds, 0) << w.workload;
    EXPECT_GT(m.measured->compute_seconds, 0) << w.workload;
    EXPECT_GT(m.measured->bytes_read, 0) << w.workload;
    EXPECT_GT(m.measured->accesses_per_s, 0) << w.workload;
    EXPECT_GT(m.measured->compressed_compute_seconds, 0) << w.workload << ": every one has arrays to compress";
    EXPECT_GT(m.measured->compressed_seconds, 0) << w.workload;
    EXPECT_EQ(adapt::to_json(adapt::parse_workload_profile(adapt::to_json(m), "m.json")), adapt::to_json(m));
  }
}

TEST(MeasureWorkload, NothingToCompressMeasuresNoCompressedCost) {
  const adapt::WorkloadProfile m = measure_workload(adapt::aggregate_workload(1 << 16, 64, 1), Trials{0, 1});
  ASSERT_TRUE(m.measured.has_value());
  EXPECT_EQ(m.measured->compressed_compute_seconds, 0);
  EXPECT_EQ(m.measured->compressed_seconds, 0);
}

TEST(MeasureWorkload, RefusesAWorkloadItCannotRun) {
  EXPECT_THROW(measure_workload(adapt::array_workload(10, 4, AccessHints{})), Error);
}

// A pagerank profile's passes are the iterations its measurement runs: a whole number up to
// max_measured_iterations, refused before anything is built (1e20 was cast to unsigned, undefined
// behaviour; 5e9 ran for hours).
TEST(MeasureWorkload, RefusesPageRankPassesThatAreNoIterationCount) {
  for (const double passes : {1e20, 5e9, max_measured_iterations + 1.0, 2.5, 0.5}) {
    adapt::WorkloadProfile w = adapt::pagerank_workload(1 << 12, 1 << 15, 1, 2);
    for (adapt::ArrayUse& a : w.arrays) a.hints.passes = passes;
    try {
      measure_workload(w, Trials{0, 1});
      FAIL() << passes;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
      EXPECT_NE(std::string(e.what()).find("expected a whole number from 1 to 1000000"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace smartarrays::measure
