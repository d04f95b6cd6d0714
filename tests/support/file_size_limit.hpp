// A full disk for tests: while a FileSizeLimit lives, a write past the limit fails with EFBIG (the
// soft RLIMIT_FSIZE lowered, SIGXFSZ ignored), as a write to a full file system fails with ENOSPC.
#pragma once

#include <sys/resource.h>

#include <csignal>
#include <cstdint>

namespace smartarrays::test {

/// Lowers the soft file size limit to bytes for its life; the old limit and SIGXFSZ come back after.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(std::uint64_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &old_);
    rlimit lowered = old_;
    lowered.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &lowered);
    old_signal_ = std::signal(SIGXFSZ, SIG_IGN);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &old_);
    std::signal(SIGXFSZ, old_signal_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit old_{};
  void (*old_signal_)(int) = SIG_DFL;
};

}  // namespace smartarrays::test
