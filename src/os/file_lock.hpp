// Owns advisory locks on single bytes of open files (Linux open-file-description locks, shared
// between the threads and processes that honour them): taken shared or exclusive, waited for in
// bounded polls that an interrupt stops, released with the lock object or the descriptor.
#pragma once

#include <cstdint>
#include <string>

namespace smartarrays::os {

/// Whether other holders of a lock on the same byte may hold it too.
enum class LockKind { shared, exclusive };

/// A lock on byte `offset` of an open file (a byte past the end of the file is fine), held until
/// destruction or the descriptor's close. Move-only.
class ByteLock {
 public:
  /// No lock.
  ByteLock() = default;
  /// Waits at most wait_seconds (0: not at all) for other holders to release byte offset of fd,
  /// polling every few milliseconds and running the interrupt check between polls
  /// (stop_if_signalled: Error(cancelled) "interrupted while waiting to lock 'PATH'"). Returns an
  /// unheld lock (held() false) when the wait ran out; throws Error(os_error) naming path when the
  /// file system refuses locks.
  static ByteLock take(int fd, std::uint64_t offset, LockKind kind, double wait_seconds, const std::string& path);

  ByteLock(ByteLock&& other) noexcept;
  ByteLock& operator=(ByteLock&& other) noexcept;
  ByteLock(const ByteLock&) = delete;
  ByteLock& operator=(const ByteLock&) = delete;
  /// Releases the lock.
  ~ByteLock();

  /// True while the lock is held.
  bool held() const noexcept { return fd_ >= 0; }

 private:
  void release() noexcept;
  int fd_ = -1;
  std::uint64_t offset_ = 0;
};

}  // namespace smartarrays::os
