// Tests that running out of memory in the collections is a clear error, not a crash: group-by, hash
// join and the hash map and set are run in a forked child whose address space may grow by only a
// few MiB past what it holds, through the C++ API (Error(out_of_memory) or std::bad_alloc) and the
// C ABI (SA_ENOMEM with a message).
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <new>
#include <string>
#include <vector>

#include "smartarrays.h"
#include "smartarrays/collections/group_by.hpp"
#include "smartarrays/collections/hash_join.hpp"
#include "smartarrays/collections/hash_map.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/util/mix64.hpp"
#include "support/sanitizers.hpp"

namespace smartarrays::collections {
namespace {

constexpr std::uint64_t rows = std::uint64_t{1} << 21;
constexpr std::uint64_t headroom = std::uint64_t{8} << 20;

// Two columns of rows values (64-bit keys: the hash paths, with their scratch), as C++ arrays and
// as C ABI handles.
struct Inputs {
  SmartArray keys = detail::empty_array();
  SmartArray values = detail::empty_array();
  sa_array* c_keys = nullptr;
  sa_array* c_values = nullptr;
};

std::uint64_t vm_size() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmSize:", 0) == 0) return std::stoull(line.substr(7)) * 1024;
  }
  return 0;
}

// Child exit codes: 0 a clear out-of-memory error, 1 no error at all, 2 another error, 3 setrlimit.
const char* const outcomes[] = {"out of memory, clearly", "no error (the limit was not hit)", "another error", "setrlimit failed"};

// Runs op in a forked child limited to its address space plus headroom; op returns the child's exit
// code. The inputs are made and the default pool started before the limit, as a program's would be.
int run_limited(const std::function<int(const Inputs&)>& op) {
  const pid_t child = ::fork();
  if (child < 0) return -1;
  if (child == 0) {
    int code = 2;
    try {
      std::vector<std::uint64_t> keys(rows), values(rows);
      for (std::uint64_t i = 0; i < rows; ++i) {
        keys[i] = util::mix64(i);
        values[i] = i;
      }
      Inputs in;
      in.keys = SmartArray::from_values(keys, {});
      in.values = SmartArray::from_values(values, {});
      if (sa_array_from_u64(keys.data(), rows, nullptr, &in.c_keys) != SA_OK ||
          sa_array_from_u64(values.data(), rows, nullptr, &in.c_values) != SA_OK) {
        ::_exit(2);
      }
      keys = {};
      values = {};
      runtime::default_pool().parallel_for(0, 1024, [](std::uint64_t, std::uint64_t) { delete[] new char[1 << 20]; });
      const rlimit limit{vm_size() + headroom, RLIM_INFINITY};
      if (::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(3);
      code = op(in);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child: %s\n", e.what());
    }
    ::_exit(code);
  }
  int status = 0;
  if (::waitpid(child, &status, 0) != child) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// 0 when op throws Error(out_of_memory) or std::bad_alloc with a message, else 1 or 2.
int cpp_outcome(const std::function<void()>& op) {
  try {
    op();
    return 1;
  } catch (const Error& e) {
    std::fprintf(stderr, "child: %s\n", e.what());
    return e.code() == ErrorCode::out_of_memory && std::string(e.what()).size() > 10 ? 0 : 2;
  } catch (const std::bad_alloc&) {
    return 0;
  }
}

// 0 when the C ABI call fails with SA_ENOMEM and a message naming the function.
int capi_outcome(sa_status status, const char* function) {
  if (status == SA_OK) return 1;
  const std::string message = sa_last_error();
  std::fprintf(stderr, "child: %s\n", message.c_str());
  return status == SA_ENOMEM && message.find(function) != std::string::npos ? 0 : 2;
}

class OutOfMemory : public ::testing::Test {
 protected:
  void SetUp() override {
#if defined(SMARTARRAYS_TEST_TSAN) || defined(SMARTARRAYS_TEST_ASAN)
    // Sanitizers reserve terabytes of shadow address space: an address-space limit means nothing there.
    GTEST_SKIP() << "the address-space limit does not apply under sanitizers";
#endif
  }
  static void expect_clear(int code) {
    ASSERT_GE(code, 0) << "fork or wait failed";
    EXPECT_EQ(code, 0) << (code < 4 ? outcomes[code] : "the child died of a signal");
  }
};

TEST_F(OutOfMemory, GroupByIsAClearError) {
  expect_clear(run_limited([](const Inputs& in) { return cpp_outcome([&] { GroupBy(in.keys, in.values).median(); }); }));
  expect_clear(run_limited([](const Inputs& in) {
    sa_array* keys = nullptr;
    sa_array* medians = nullptr;
    return capi_outcome(sa_group_by(in.c_keys, in.c_values, SA_AGG_MEDIAN, nullptr, &keys, &medians), "sa_group_by");
  }));
}

TEST_F(OutOfMemory, HashJoinIsAClearError) {
  expect_clear(run_limited([](const Inputs& in) { return cpp_outcome([&] { hash_join_pairs(in.keys, in.values); }); }));
  expect_clear(run_limited([](const Inputs& in) {
    std::uint64_t count = 0;
    return capi_outcome(sa_hash_join_count(in.c_keys, in.c_values, nullptr, &count),
                        "sa_hash_join_count");
  }));
}

TEST_F(OutOfMemory, HashMapAndSetAreClearErrors) {
  expect_clear(run_limited([](const Inputs& in) { return cpp_outcome([&] { HashMap::build(in.keys, in.values); }); }));
  expect_clear(run_limited([](const Inputs& in) { return cpp_outcome([&] { HashSet::build(in.keys); }); }));
  expect_clear(run_limited([](const Inputs& in) {
    sa_hash_map* map = nullptr;
    return capi_outcome(sa_hash_map_build(in.c_keys, in.c_values, nullptr, &map), "sa_hash_map_build");
  }));
  expect_clear(run_limited([](const Inputs& in) {
    sa_hash_set* set = nullptr;
    return capi_outcome(sa_hash_set_build(in.c_keys, nullptr, &set), "sa_hash_set_build");
  }));
}

}  // namespace
}  // namespace smartarrays::collections
