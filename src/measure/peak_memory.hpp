// Owns measuring how much resident memory a piece of work adds at its peak: a sampler thread
// reading /proc/self/statm every millisecond between start and stop, after returning the heap's
// free pages to the kernel (malloc_trim) so earlier work's freed memory does not hide new growth.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

namespace smartarrays::measure {

/// Peak resident growth of the process between start() and stop().
class PeakMemory {
 public:
  /// Trims the heap, reads the baseline and starts sampling.
  PeakMemory();
  /// Stops sampling (if stop() was not called).
  ~PeakMemory();
  PeakMemory(const PeakMemory&) = delete;
  PeakMemory& operator=(const PeakMemory&) = delete;
  /// Stops sampling; returns the peak resident bytes above the baseline (0 if it never grew).
  std::uint64_t stop();

 private:
  std::uint64_t baseline_ = 0;
  std::atomic<std::uint64_t> peak_{0};
  std::atomic<bool> running_{true};
  std::thread sampler_;
};

/// The process's resident bytes now (0 when /proc/self/statm cannot be read).
std::uint64_t resident_bytes();

}  // namespace smartarrays::measure
