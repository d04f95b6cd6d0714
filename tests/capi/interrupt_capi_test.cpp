// Tests of the C ABI's interrupt check (sa_set_interrupt_check): a long call polls the calling
// thread's check on that thread only and stops with SA_ECANCELLED once it answers non-zero; without a
// check, or after it is removed, the same call completes; the check belongs to one thread.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "smartarrays.h"

namespace {

// What a check saw: how often it ran, whether it ever ran off the installing thread, and after how
// many calls it starts asking to stop.
struct Probe {
  std::thread::id owner = std::this_thread::get_id();
  std::atomic<int> calls{0};
  std::atomic<bool> foreign_thread{false};
  int stop_after = 0;
};

int probe_check(void* context) {
  Probe& probe = *static_cast<Probe*>(context);
  if (std::this_thread::get_id() != probe.owner) probe.foreign_thread = true;
  return ++probe.calls > probe.stop_after ? 1 : 0;
}

// Removes the calling thread's check when a test ends, whatever it asserted.
struct CheckRemoved {
  ~CheckRemoved() { sa_set_interrupt_check(nullptr, nullptr); }
};

sa_status generate(sa_graph** out) { return sa_graph_generate_rmat(16, 8, 7, nullptr, out); }

TEST(InterruptCapi, ACheckThatAsksToStopEndsALongCallWithCancelledOnTheCallingThread) {
  const CheckRemoved removed;
  Probe probe;
  ASSERT_EQ(sa_set_interrupt_check(probe_check, &probe), SA_OK);
  sa_graph* g = nullptr;
  EXPECT_EQ(generate(&g), SA_ECANCELLED);
  EXPECT_NE(std::string(sa_last_error()).find("interrupted"), std::string::npos) << sa_last_error();
  EXPECT_GE(probe.calls.load(), 1);
  EXPECT_FALSE(probe.foreign_thread.load());
}

TEST(InterruptCapi, ACheckThatNeverAsksLetsTheCallFinishWithTheSameResult) {
  const CheckRemoved removed;
  sa_graph* plain = nullptr;
  ASSERT_EQ(generate(&plain), SA_OK) << sa_last_error();
  Probe probe;
  probe.stop_after = 1 << 30;
  ASSERT_EQ(sa_set_interrupt_check(probe_check, &probe), SA_OK);
  sa_graph* checked = nullptr;
  ASSERT_EQ(generate(&checked), SA_OK) << sa_last_error();
  EXPECT_GE(probe.calls.load(), 1);
  EXPECT_FALSE(probe.foreign_thread.load());
  EXPECT_EQ(sa_graph_vertices(checked), sa_graph_vertices(plain));
  EXPECT_EQ(sa_graph_edges(checked), sa_graph_edges(plain));
  std::vector<double> a(sa_graph_vertices(plain));
  std::vector<double> b(a.size());
  ASSERT_EQ(sa_graph_pagerank(plain, nullptr, a.data(), a.size(), nullptr), SA_OK) << sa_last_error();
  ASSERT_EQ(sa_graph_pagerank(checked, nullptr, b.data(), b.size(), nullptr), SA_OK) << sa_last_error();
  EXPECT_EQ(a, b);
  sa_graph_free(plain);
  sa_graph_free(checked);
}

TEST(InterruptCapi, PageRankStopsWhenTheCheckAsksPartWayThrough) {
  const CheckRemoved removed;
  sa_graph* g = nullptr;
  ASSERT_EQ(generate(&g), SA_OK) << sa_last_error();
  Probe probe;
  probe.stop_after = 1;
  ASSERT_EQ(sa_set_interrupt_check(probe_check, &probe), SA_OK);
  sa_pagerank_options o;
  sa_pagerank_options_init(&o);
  o.tolerance = 0;
  o.max_iterations = 100000;
  std::vector<double> ranks(sa_graph_vertices(g));
  EXPECT_EQ(sa_graph_pagerank(g, &o, ranks.data(), ranks.size(), nullptr), SA_ECANCELLED);
  EXPECT_NE(std::string(sa_last_error()).find("interrupted"), std::string::npos) << sa_last_error();
  EXPECT_GE(probe.calls.load(), 2);
  sa_graph_free(g);
}

TEST(InterruptCapi, RemovingTheCheckLetsTheSameCallComplete) {
  const CheckRemoved removed;
  Probe probe;
  ASSERT_EQ(sa_set_interrupt_check(probe_check, &probe), SA_OK);
  sa_graph* g = nullptr;
  ASSERT_EQ(generate(&g), SA_ECANCELLED);
  const int calls = probe.calls.load();
  ASSERT_EQ(sa_set_interrupt_check(nullptr, &probe), SA_OK);
  ASSERT_EQ(generate(&g), SA_OK) << sa_last_error();
  EXPECT_EQ(probe.calls.load(), calls);
  sa_graph_free(g);
}

TEST(InterruptCapi, TheCheckBelongsToTheThreadThatInstalledIt) {
  const CheckRemoved removed;
  Probe probe;
  ASSERT_EQ(sa_set_interrupt_check(probe_check, &probe), SA_OK);
  sa_status other = SA_EINTERNAL;
  std::thread([&] {
    sa_graph* g = nullptr;
    other = generate(&g);
    sa_graph_free(g);
  }).join();
  EXPECT_EQ(other, SA_OK);
  EXPECT_EQ(probe.calls.load(), 0);
}

TEST(InterruptCapi, ANewCheckReplacesTheOld) {
  const CheckRemoved removed;
  Probe first;
  Probe second;
  second.stop_after = 1 << 30;
  ASSERT_EQ(sa_set_interrupt_check(probe_check, &first), SA_OK);
  ASSERT_EQ(sa_set_interrupt_check(probe_check, &second), SA_OK);
  sa_graph* g = nullptr;
  ASSERT_EQ(generate(&g), SA_OK) << sa_last_error();
  EXPECT_EQ(first.calls.load(), 0);
  EXPECT_GE(second.calls.load(), 1);
  sa_graph_free(g);
}

// A check that (against the rule) calls the library: each call is refused with SA_EINVAL, never
// recursing into the check or waiting for the call it polls from; the outer call still stops.
struct Reentry {
  std::atomic<int> calls{0};
  std::vector<sa_status> statuses;
  std::string message;
};

int reentrant_check(void* context) {
  Reentry& reentry = *static_cast<Reentry*>(context);
  ++reentry.calls;
  sa_graph* inner = nullptr;
  reentry.statuses.push_back(sa_graph_generate_uniform(1000, 4, 1, nullptr, &inner));
  reentry.message = sa_last_error();
  reentry.statuses.push_back(sa_set_interrupt_check(nullptr, nullptr));
  return 1;
}

TEST(InterruptCapi, ACallFromInsideTheCheckIsRefusedAndTheOuterCallStillStops) {
  const CheckRemoved removed;
  Reentry reentry;
  ASSERT_EQ(sa_set_interrupt_check(reentrant_check, &reentry), SA_OK);
  sa_graph* g = nullptr;
  EXPECT_EQ(generate(&g), SA_ECANCELLED);
  EXPECT_EQ(reentry.calls.load(), 1);
  EXPECT_EQ(reentry.statuses, (std::vector<sa_status>{SA_EINVAL, SA_EINVAL}));
  EXPECT_EQ(reentry.message,
            "sa_graph_generate_uniform: called from an interrupt check, which must not call into smartarrays");
  EXPECT_EQ(generate(&g), SA_ECANCELLED);
  EXPECT_EQ(reentry.calls.load(), 2);
}

}  // namespace
