// Tests that the default pool survives fork(): a child (as made by Python's multiprocessing) gets a
// fresh pool on first use instead of waiting forever on workers that only exist in the parent.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>

#include "smartarrays/runtime/thread_pool.hpp"
#include "support/sanitizers.hpp"

namespace smartarrays::runtime {
namespace {

[[maybe_unused]] std::uint64_t sum_to(std::uint64_t n) {  // unused where TSan skips the test
  return parallel_reduce<std::uint64_t>(
      0, n, 0,
      [](std::uint64_t lo, std::uint64_t hi) {
        std::uint64_t s = 0;
        for (std::uint64_t i = lo; i < hi; ++i) s += i;
        return s;
      },
      [](std::uint64_t a, std::uint64_t b) { return a + b; });
}

TEST(DefaultPool, ForkedChildGetsAWorkingPool) {
#if defined(SMARTARRAYS_TEST_TSAN)
  GTEST_SKIP() << "ThreadSanitizer does not support starting threads after a multi-threaded fork";
#else
  constexpr std::uint64_t n = 1 << 20;
  const std::uint64_t expected = n * (n - 1) / 2;
  ASSERT_EQ(sum_to(n), expected);  // the parent's pool exists and has run a loop
  const pid_t child = fork();
  ASSERT_NE(child, -1);
  if (child == 0) {
    alarm(30);  // a child stuck on the parent's workers dies of SIGALRM instead of hanging the test
    _exit(sum_to(n) == expected ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "child did not exit normally (signal " << WTERMSIG(status) << ")";
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(sum_to(n), expected);  // the parent's pool still works
#endif
}

}  // namespace
}  // namespace smartarrays::runtime
