// Tests the sa_store entry points: the round trip from C (capi_c_checks.c), the C layout of
// sa_store_object, and every argument and file error with its status and message.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "capi/capi_c_checks.h"
#include "smartarrays.h"
#include "smartarrays/graph/build.hpp"
#include "smartarrays/graph/generators.hpp"
#include "smartarrays/store/store.hpp"
#include "store/store_support.hpp"
#include "support/capi_expect.hpp"
#include "support/graph_fixtures.hpp"

namespace {

using smartarrays::test::expect_failure;
using smartarrays::test::graph_data;
using smartarrays::test::ScratchDir;

TEST(StoreCApi, RoundTripFromC) {
  const ScratchDir dir;
  char error[512] = "";
  EXPECT_EQ(capi_c_store_round_trip(graph_data("tiny.el").c_str(), dir.file("c.sa").c_str(), error, sizeof error), 0) << error;
  size_t layout[2];
  capi_c_store_layout(layout);
  EXPECT_EQ(layout[0], sizeof(sa_store_object));
  EXPECT_EQ(layout[1], offsetof(sa_store_object, graph));
}

// Its checksums are right, its ids are not: mapped, it used to open unchecked, and sa_graph_pagerank
// then died with SIGSEGV.
TEST(StoreCApi, AGraphWithIdsPastItsVertexCountIsRefusedMappedOrLoaded) {
  const ScratchDir dir;
  const std::string path = dir.file("bounds.sa");
  smartarrays::store::Store::write(path, {{"g", smartarrays::test::graph_out_of_bounds()}});
  for (sa_store_mode mode : {SA_STORE_MAP, SA_STORE_LOAD}) {
    sa_store* s = nullptr;
    expect_failure(sa_store_open(path.c_str(), mode, nullptr, &s), SA_EINVAL, "sa_store_open",
                   smartarrays::test::out_of_bounds_message);
    EXPECT_EQ(s, nullptr);
  }
}

TEST(StoreCApi, ArgumentAndFileErrors) {
  const ScratchDir dir;
  const std::string path = dir.file("e.sa");
  sa_array* a = nullptr;
  const uint64_t values[3] = {1, 2, 3};
  ASSERT_EQ(sa_array_from_u64(values, 3, nullptr, &a), SA_OK);
  sa_store_object both{"x", a, nullptr};
  expect_failure(sa_store_write(nullptr, &both, 1), SA_EINVAL, "sa_store_write", "path is NULL");
  expect_failure(sa_store_write(path.c_str(), nullptr, 1), SA_EINVAL, "sa_store_write", "objects (with n > 0) is NULL");
  sa_store_object neither{"x", nullptr, nullptr};
  expect_failure(sa_store_write(path.c_str(), &neither, 1), SA_EINVAL, "sa_store_write", "objects[0] must have exactly one");
  sa_store_object unnamed{nullptr, a, nullptr};
  expect_failure(sa_store_write(path.c_str(), &unnamed, 1), SA_EINVAL, "sa_store_write", "objects[0].name is NULL");
  ASSERT_EQ(sa_store_write(path.c_str(), &both, 1), SA_OK);
  expect_failure(sa_store_append(path.c_str(), &both, 1), SA_EINVAL, "sa_store_append", "already exists");
  sa_store* s = nullptr;
  expect_failure(sa_store_open(path.c_str(), static_cast<sa_store_mode>(7), nullptr, &s), SA_EINVAL, "sa_store_open",
                 "mode 7 is neither");
  sa_options wide;
  sa_options_init(&wide);
  wide.bits = 3;
  expect_failure(sa_store_open(path.c_str(), SA_STORE_LOAD, &wide, &s), SA_EINVAL, "sa_store_open", "keep their stored widths");
  sa_options interleaved;
  sa_options_init(&interleaved);
  interleaved.placement = SA_INTERLEAVED;
  expect_failure(sa_store_open(path.c_str(), SA_STORE_MAP, &interleaved, &s), SA_EINVAL, "sa_store_open",
                 "placement, nodes and huge pages apply to load mode; a mapped store stays in the file's pages");
  ASSERT_EQ(sa_store_open(path.c_str(), SA_STORE_LOAD, &interleaved, &s), SA_OK);
  sa_store_close(s);
  expect_failure(sa_store_open(graph_data("tiny.el").c_str(), SA_STORE_MAP, nullptr, &s), SA_EINVAL, "sa_store_open",
                 "not a smartarrays store");
  expect_failure(sa_store_open(dir.file("missing.sa").c_str(), SA_STORE_MAP, nullptr, &s), SA_EOS, "sa_store_open", "missing.sa");
  ASSERT_EQ(sa_store_open(path.c_str(), SA_STORE_MAP, nullptr, &s), SA_OK);
  sa_graph* g = nullptr;
  expect_failure(sa_store_graph(s, "x", &g), SA_EINVAL, "sa_store_graph", "is an array, not a graph");
  sa_array* b = nullptr;
  expect_failure(sa_store_array(s, "y", &b), SA_EINVAL, "sa_store_array", "no object named 'y'");
  expect_failure(sa_store_array(nullptr, "x", &b), SA_EINVAL, "sa_store_array", "s is NULL");
  sa_store_object_kind kind;
  expect_failure(sa_store_kind(s, nullptr, &kind), SA_EINVAL, "sa_store_kind", "name is NULL");
  EXPECT_EQ(sa_store_count(nullptr), 0u);
  EXPECT_EQ(sa_store_name(nullptr, 0), nullptr);
  sa_store_close(s);
  sa_store_close(nullptr);
  uint64_t problems = 0;
  expect_failure(sa_store_verify(path.c_str(), 0, nullptr), SA_EINVAL, "sa_store_verify", "problems is NULL");
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  ASSERT_EQ(::write(fds[1], "NOTASTREAM......", 16), 16);
  expect_failure(sa_store_recv(fds[0], nullptr, 0, &s), SA_EINVAL, "sa_store_recv", "not a store stream");
  ::close(fds[1]);
  expect_failure(sa_store_recv(fds[0], nullptr, 0, &s), SA_EOS, "sa_store_recv", "the peer closed the stream after 0 of 16");
  ::close(fds[0]);
  expect_failure(sa_store_send(-1, &both, 1), SA_EOS, "sa_store_send", "writev failed");
  ASSERT_EQ(sa_store_verify(path.c_str(), 1, &problems), SA_OK);
  EXPECT_EQ(problems, 0u);
  sa_array_free(a);
}

TEST(StoreCApi, AReceiverReusesItsRegionOnceTheLastStoreAndItsArraysAreGone) {
  const uint64_t values[5] = {5, 4, 3, 2, 1};
  sa_array* a = nullptr;
  ASSERT_EQ(sa_array_from_u64(values, 5, nullptr, &a), SA_OK);
  const sa_store_object object{"a", a, nullptr};
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  sa_receiver* r = nullptr;
  ASSERT_EQ(sa_receiver_new(nullptr, 0, &r), SA_OK);
  uint64_t reserved = 1, reuses = 1;
  ASSERT_EQ(sa_receiver_stats(r, &reserved, &reuses), SA_OK);
  EXPECT_EQ(reserved, 0u);
  EXPECT_EQ(reuses, 0u);
  // A small stream fits in the socket's buffer: send, then receive, in one thread.
  auto receive = [&] {
    EXPECT_EQ(sa_store_send(fds[1], &object, 1), SA_OK);
    sa_store* s = nullptr;
    EXPECT_EQ(sa_receiver_recv(r, fds[0], &s), SA_OK);
    return s;
  };
  sa_store* first = receive();
  sa_array* held = nullptr;
  ASSERT_EQ(sa_store_array(first, "a", &held), SA_OK);
  sa_store_close(first);
  sa_store* second = receive();  // held keeps the first region: a new one
  ASSERT_EQ(sa_receiver_stats(r, nullptr, &reuses), SA_OK);
  EXPECT_EQ(reuses, 0u);
  uint64_t got = 0;
  ASSERT_EQ(sa_array_get(held, 4, &got), SA_OK);
  EXPECT_EQ(got, 1u);
  sa_array_free(held);
  sa_store_close(second);
  sa_store* third = receive();
  ASSERT_EQ(sa_receiver_stats(r, &reserved, &reuses), SA_OK);
  EXPECT_EQ(reuses, 1u);
  EXPECT_GT(reserved, 4096u);
  sa_array* again = nullptr;
  ASSERT_EQ(sa_store_array(third, "a", &again), SA_OK);
  ASSERT_EQ(sa_array_get(again, 0, &got), SA_OK);
  EXPECT_EQ(got, 5u);
  sa_array_free(again);
  sa_store_close(third);

  sa_store* s = nullptr;
  expect_failure(sa_receiver_recv(nullptr, fds[0], &s), SA_EINVAL, "sa_receiver_recv", "r is NULL");
  expect_failure(sa_receiver_recv(r, fds[0], nullptr), SA_EINVAL, "sa_receiver_recv", "out is NULL");
  expect_failure(sa_receiver_stats(nullptr, &reserved, &reuses), SA_EINVAL, "sa_receiver_stats", "r is NULL");
  sa_options replicated;
  sa_options_init(&replicated);
  replicated.placement = SA_REPLICATED;
  sa_receiver* bad = nullptr;
  expect_failure(sa_receiver_new(&replicated, 0, &bad), SA_EINVAL, "sa_receiver_new", "needs copies");
  expect_failure(sa_receiver_new(nullptr, 0, nullptr), SA_EINVAL, "sa_receiver_new", "out is NULL");
  ASSERT_EQ(::write(fds[1], "NOTASTREAM......", 16), 16);
  expect_failure(sa_receiver_recv(r, fds[0], &s), SA_EINVAL, "sa_receiver_recv", "not a store stream");
  sa_receiver_free(r);
  sa_receiver_free(nullptr);
  ::close(fds[0]);
  ::close(fds[1]);
  sa_array_free(a);
}

// A mapped store cut underneath by another process: the call that reads past the new end fails with
// SA_EOS naming the file (the guard's zeros never pass for values), where it used to die of SIGBUS.
TEST(StoreCApi, AMappedStoreTruncatedUnderneathFailsTheCallNamingTheFile) {
  const ScratchDir dir;
  const std::string path = dir.file("cut.sa");
  std::vector<uint64_t> values(300000);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = i;
  smartarrays::store::Store::write(path, {{"big", smartarrays::SmartArray::from_values(values, {})},
                                          {"g", smartarrays::graph::build_csr(smartarrays::graph::generate_uniform({.vertices = 20000, .average_degree = 8, .seed = 3}))}});
  sa_store* s = nullptr;
  ASSERT_EQ(sa_store_open(path.c_str(), SA_STORE_MAP, nullptr, &s), SA_OK);
  sa_array* big = nullptr;
  sa_graph* g = nullptr;
  ASSERT_EQ(sa_store_array(s, "big", &big), SA_OK);
  ASSERT_EQ(sa_store_graph(s, "g", &g), SA_OK);
  ASSERT_EQ(::truncate(path.c_str(), 4096), 0);
  uint64_t value = 0;
  expect_failure(sa_array_get(big, values.size() - 1, &value), SA_EOS, "sa_array_get", "was truncated while mapped");
  uint64_t sum = 0;
  expect_failure(sa_array_sum(big, &sum), SA_EOS, "sa_array_sum", path.c_str());
  std::vector<double> ranks(20000);
  expect_failure(sa_graph_pagerank(g, nullptr, ranks.data(), ranks.size(), nullptr), SA_EOS, "sa_graph_pagerank",
                 "was truncated while mapped");
  sa_graph_free(g);
  sa_array_free(big);
  sa_store_close(s);
}

}  // namespace
