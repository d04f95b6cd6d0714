// Owns the resident-memory sampler.
#include "measure/peak_memory.hpp"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>

namespace smartarrays::measure {

std::uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t size = 0, resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

PeakMemory::PeakMemory() {
  malloc_trim(0);
  baseline_ = resident_bytes();
  peak_ = baseline_;
  sampler_ = std::thread([this] {
    while (running_.load(std::memory_order_relaxed)) {
      const std::uint64_t now = resident_bytes();
      if (now > peak_.load(std::memory_order_relaxed)) peak_.store(now, std::memory_order_relaxed);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
}

PeakMemory::~PeakMemory() { stop(); }

std::uint64_t PeakMemory::stop() {
  if (sampler_.joinable()) {
    running_ = false;
    sampler_.join();
  }
  return std::max(peak_.load(), baseline_) - baseline_;
}

}  // namespace smartarrays::measure
