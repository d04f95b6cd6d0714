// Owns opening a path: the NUL check, the interrupted open, the check that decides whether a call
// cut short by a signal stops, and a reader's descriptor (open_file.hpp).
#include "os/open_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>

#include "smartarrays/error.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::os {

namespace {

std::atomic<SignalStopCheck> signal_stop_check{nullptr};

}  // namespace

void check_path(const std::string& path) {
  if (path.find('\0') != std::string::npos) {
    throw_error(ErrorCode::invalid_argument, util::quoted(path, 256) + ": a path cannot hold a NUL byte");
  }
}

void fail_on_path(const std::string& what, const std::string& path, int err) {
  throw_error(err == ENOMEM ? ErrorCode::out_of_memory : ErrorCode::os_error,
              "cannot " + what + " " + util::quoted(path, 256) + ": " + std::strerror(err));
}

void set_signal_stop_check(SignalStopCheck check) noexcept { signal_stop_check.store(check, std::memory_order_release); }

void stop_if_signalled(const std::string& what, const std::string& path) {
  const SignalStopCheck check = signal_stop_check.load(std::memory_order_acquire);
  if (check != nullptr && check()) {
    throw_error(ErrorCode::cancelled, "interrupted while waiting to " + what + " " + util::quoted(path, 256));
  }
}

int open_path(const std::string& path, int flags, unsigned mode) {
  check_path(path);
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
  if (fd >= 0) return fd;
  const int err = errno;
  const std::string what = flags & O_CREAT ? "create" : "open";
  if (err == EINTR) throw_error(ErrorCode::cancelled, "interrupted while waiting to " + what + " " + util::quoted(path, 256));
  fail_on_path(what, path, err);
}

InputFile InputFile::open(const std::string& path, InputKind kind) {
  const bool regular_only = kind == InputKind::regular;
  InputFile file;
  file.fd_ = open_path(path, O_RDONLY | (regular_only ? O_NONBLOCK : 0));
  struct stat st {};
  if (::fstat(file.fd_, &st) != 0) fail_on_path("stat", path, errno);
  file.regular_ = S_ISREG(st.st_mode);
  if (regular_only) {
    if (!file.regular_) throw_error(ErrorCode::invalid_argument, util::quoted(path, 256) + " is not a regular file");
    // O_NONBLOCK only kept the open from waiting: a descriptor handed on reads as if opened plainly.
    static_cast<void>(::fcntl(file.fd_, F_SETFL, O_RDONLY));
  }
  file.size_ = file.regular_ ? static_cast<std::uint64_t>(st.st_size) : 0;
  return file;
}

InputFile::InputFile(InputFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), regular_(other.regular_), size_(other.size_) {}

InputFile& InputFile::operator=(InputFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    regular_ = other.regular_;
    size_ = other.size_;
  }
  return *this;
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

int InputFile::release() noexcept { return std::exchange(fd_, -1); }

}  // namespace smartarrays::os
