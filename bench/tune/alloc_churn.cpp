// Owns the allocation churn program that `make bench-tune` tunes: the shape of the study's allocator
// microbenchmark (numa-analytics-strategies §3.1.8) — every thread allocates blocks (small sizes far
// more often than large ones), writes them, and frees random earlier ones — so the allocator knob
// shows what it is worth for a program that allocates from many threads at once. Prints the time.
//
// usage: alloc_churn [OPERATIONS_PER_THREAD] [THREADS]   (defaults 2000000 and SMARTARRAYS_THREADS or 2)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

namespace {

void churn(long operations, unsigned seed, std::size_t* checksum) {
  std::mt19937 random(seed);
  std::vector<char*> live(4096, nullptr);
  std::size_t sum = 0;
  for (long op = 0; op < operations; ++op) {
    const std::size_t slot = random() % live.size();
    if (live[slot] != nullptr) {
      sum += static_cast<unsigned char>(live[slot][0]);
      std::free(live[slot]);
      live[slot] = nullptr;
      continue;
    }
    // Size classes 16 B .. 64 KiB, each half as likely as the one below.
    const std::size_t size = std::size_t{16} << std::min<int>(__builtin_ctz(random() | 0x1000), 12);
    live[slot] = static_cast<char*>(std::malloc(size));
    if (live[slot] == nullptr) std::abort();
    std::memset(live[slot], static_cast<int>(op), size < 256 ? size : 256);
  }
  for (char* block : live) std::free(block);
  *checksum = sum;
}

}  // namespace

int main(int argc, char** argv) {
  const long operations = argc > 1 ? std::atol(argv[1]) : 2000000;
  const char* env = std::getenv("SMARTARRAYS_THREADS");
  const int threads = argc > 2 ? std::atoi(argv[2]) : (env != nullptr ? std::atoi(env) : 2);
  if (operations <= 0 || threads <= 0 || threads > 4096) {
    std::fprintf(stderr, "usage: alloc_churn [OPERATIONS_PER_THREAD] [THREADS]\n");
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::size_t> sums(static_cast<std::size_t>(threads));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(churn, operations, static_cast<unsigned>(t + 1), &sums[t]);
  for (std::thread& t : pool) t.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::size_t total = 0;
  for (const std::size_t s : sums) total += s;
  std::printf("alloc_churn: %d threads x %ld operations in %.4f s (checksum %zu)\n", threads, operations, seconds, total);
  return 0;
}
