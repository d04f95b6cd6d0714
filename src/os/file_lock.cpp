// Owns the open-file-description locks of file_lock.hpp: F_OFD_SETLK polled with a growing pause,
// so that a waiting writer can be interrupted and gives up after its bound.
#include "os/file_lock.hpp"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <thread>
#include <utility>

#include "os/open_file.hpp"

namespace smartarrays::os {

namespace {

struct flock lock_request(short type, std::uint64_t offset) {
  struct flock request {};
  request.l_type = type;
  request.l_whence = SEEK_SET;
  request.l_start = static_cast<off_t>(offset);
  request.l_len = 1;
  request.l_pid = 0;  // required by F_OFD_*
  return request;
}

}  // namespace

ByteLock ByteLock::take(int fd, std::uint64_t offset, LockKind kind, double wait_seconds, const std::string& path) {
  struct flock request = lock_request(kind == LockKind::shared ? F_RDLCK : F_WRLCK, offset);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(std::max(0.0, wait_seconds));
  auto pause = std::chrono::milliseconds(1);
  for (;;) {
    if (::fcntl(fd, F_OFD_SETLK, &request) == 0) {
      ByteLock lock;
      lock.fd_ = fd;
      lock.offset_ = offset;
      return lock;
    }
    const int err = errno;
    if (err == EINTR) {
      stop_if_signalled("lock", path);
      continue;
    }
    if (err != EAGAIN && err != EACCES) fail_on_path("lock", path, err);
    if (std::chrono::steady_clock::now() >= deadline) return {};
    stop_if_signalled("lock", path);
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
}

ByteLock::ByteLock(ByteLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)), offset_(other.offset_) {}

ByteLock& ByteLock::operator=(ByteLock&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = std::exchange(other.fd_, -1);
    offset_ = other.offset_;
  }
  return *this;
}

ByteLock::~ByteLock() { release(); }

void ByteLock::release() noexcept {
  if (fd_ < 0) return;
  struct flock request = lock_request(F_UNLCK, offset_);
  // Unlocking a held lock cannot fail; closing the descriptor would release it anyway.
  static_cast<void>(::fcntl(fd_, F_OFD_SETLK, &request));
  fd_ = -1;
}

}  // namespace smartarrays::os
