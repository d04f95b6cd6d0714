// Owns opening a path: the NUL check, the interrupted open, the check that decides whether a call
// cut short by a signal stops, and a reader's descriptor and its reads (open_file.hpp).
#include "os/open_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>

#include "smartarrays/error.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::os {

namespace {

std::atomic<SignalStopCheck> signal_stop_check{nullptr};

// The largest count one read(2) or pread(2) is asked for; Linux reads at most 0x7ffff000 bytes a call.
constexpr std::size_t largest_read = std::size_t{1} << 30;

// Calls get() (a read(2) or pread(2)) until it does not fail with EINTR: its count, 0 at the end.
// Throws naming path when it fails, or when a signal cut it short and the installed check stops it.
template <typename Get>
std::size_t read_once(const std::string& path, Get&& get) {
  for (;;) {
    const ssize_t got = get();
    if (got >= 0) return static_cast<std::size_t>(got);
    if (errno != EINTR) fail_on_path("read", path, errno);
    stop_if_signalled("read", path);
  }
}

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
  file.path_ = path;
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
    : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)), regular_(other.regular_), size_(other.size_) {}

InputFile& InputFile::operator=(InputFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(other.path_);
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

std::size_t InputFile::read(void* out, std::size_t size) const {
  return read_once(path_, [&] { return ::read(fd_, out, std::min(size, largest_read)); });
}

std::size_t InputFile::read_at(std::uint64_t offset, void* out, std::size_t size) const {
  auto* cursor = static_cast<std::uint8_t*>(out);
  std::size_t done = 0;
  while (done < size) {
    const std::size_t got = read_once(path_, [&] {
      return ::pread(fd_, cursor + done, std::min(size - done, largest_read), static_cast<off_t>(offset + done));
    });
    if (got == 0) break;
    done += got;
  }
  return done;
}

}  // namespace smartarrays::os
