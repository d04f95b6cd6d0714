// Owns writing files: whole writes through a descriptor, and staging an output file beside its path
// until it is complete (the names, the in-place cases, the rename and the folder's sync).
#include "os/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <utility>

#include "os/open_file.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays::os {
namespace {

// The descriptor path names (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N), or -1.
int named_descriptor(const std::string& path) {
  if (path == "/dev/stdout") return STDOUT_FILENO;
  if (path == "/dev/stderr") return STDERR_FILENO;
  for (const std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (path.rfind(prefix, 0) != 0 || path.size() == prefix.size()) continue;
    int fd = -1;
    const char* end = path.data() + path.size();
    const auto [stop, error] = std::from_chars(path.data() + prefix.size(), end, fd);
    if (error == std::errc() && stop == end) return fd;
  }
  return -1;
}

// Opens the file an OutputFile of path writes: the staged file beside target (path, or the file
// its symbolic link names), whose name lands in staged, or path itself (staged left empty).
int open_output(const std::string& path, std::string& target, std::string& staged) {
  check_path(path);
  target = path;
  // Writing through the descriptor itself keeps its offset and mode: reopening /dev/stdout would
  // truncate a file stdout is redirected to (>> included) and write over what the process prints.
  if (const int named = named_descriptor(path); named >= 0) {
    const int fd = ::fcntl(named, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) fail_on_path("write", path, errno);
    return fd;
  }
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  // A FIFO or a device, or another name under /dev or /proc: no file to stage beside.
  const bool special = path.rfind("/dev/", 0) == 0 || path.rfind("/proc/", 0) == 0;
  if (special || (exists && !S_ISREG(st.st_mode))) return open_path(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
  // A rename replaces a file whatever its permissions: a file this process may not write stays.
  if (exists && ::access(path.c_str(), W_OK) != 0) fail_on_path("write", path, errno);
  struct stat link {};
  if (::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    if (char* real = ::realpath(path.c_str(), nullptr)) {
      target = real;
      std::free(real);
    } else {
      // A link to no file yet: the file it names is created, as open(2) through it would.
      std::error_code ec;
      const std::filesystem::path named = std::filesystem::read_symlink(path, ec);
      if (!ec) target = (named.is_absolute() ? named : std::filesystem::path(path).parent_path() / named).string();
    }
  }
  // A name a killed process of the same pid left behind is passed over (pids repeat: a container
  // running the same steps again often gets the same ones).
  static std::atomic<std::uint64_t> serial{0};
  int fd = -1;
  for (int attempt = 0; attempt < 1000 && (attempt == 0 || errno == EEXIST); ++attempt) {
    staged = target + ".partial-" + std::to_string(::getpid()) + "-" + std::to_string(serial++);
    fd = ::open(staged.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) break;
  }
  if (fd >= 0) {
    // Best effort: a file system without permission bits keeps the new file's default ones.
    if (exists) static_cast<void>(::fchmod(fd, st.st_mode & 07777));
    return fd;
  }
  const int err = errno;
  staged.clear();
  // No file can be created beside it (a folder this process may not write, a name at the length
  // limit): the existing file is overwritten in place, as a plain open would.
  if (exists && (err == EACCES || err == EPERM || err == ENAMETOOLONG)) {
    return open_path(path, O_WRONLY | O_TRUNC, 0666);
  }
  fail_on_path("create", path, err);
}

// Makes a rename in target's folder survive a crash: the folder is synced.
void sync_folder(const std::string& target, const std::string& path) {
  const std::size_t slash = target.rfind('/');
  const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : target.substr(0, slash);
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fail_on_path("sync the folder of", path, errno);
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0) fail_on_path("sync the folder of", path, err);
}

// Writes size bytes through put(p, n, done), one write(2) or pwrite(2) of n bytes from p after done
// bytes, until all are written; throws naming path when a call fails.
template <typename Put>
void write_all(const std::string& path, const void* bytes, std::size_t size, Put&& put) {
  const auto* p = static_cast<const std::uint8_t*>(bytes);
  std::uint64_t done = 0;
  while (size > 0) {
    const ssize_t n = put(p, size, done);
    if (n <= 0 && !(n < 0 && errno == EINTR)) fail_on_path("write", path, n < 0 ? errno : ENOSPC);
    const std::size_t written = n > 0 ? static_cast<std::size_t>(n) : 0;
    p += written;
    size -= written;
    done += written;
    // A signal cuts a write to a pipe or FIFO short, or fails it (EINTR) before any byte: Ctrl-C
    // stops a write whose reader stopped reading here.
    if (size > 0) stop_if_signalled("write", path);
  }
}

}  // namespace

File::File(const std::string& path, int flags, unsigned mode) : path_(path), fd_(open_path(path, flags, mode)) {}

File::File(int descriptor, std::string path) noexcept : path_(std::move(path)), fd_(descriptor) {}

File::~File() {
  if (fd_ >= 0) ::close(fd_);
}

void File::write(const void* bytes, std::size_t size) const {
  write_all(path_, bytes, size, [this](const std::uint8_t* p, std::size_t n, std::uint64_t) { return ::write(fd_, p, n); });
}

void File::write_at(const void* bytes, std::size_t size, std::uint64_t offset) const {
  write_all(path_, bytes, size, [this, offset](const std::uint8_t* p, std::size_t n, std::uint64_t done) {
    return ::pwrite(fd_, p, n, static_cast<off_t>(offset + done));
  });
}

void File::sync() const {
  // EINVAL: a file that holds nothing to sync (/dev/null, a pipe).
  if (::fdatasync(fd_) != 0 && errno != EINVAL) fail_on_path("sync", path_, errno);
}

void File::truncate(std::uint64_t size) const {
  if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) fail_on_path("truncate", path_, errno);
}

void File::close() {
  const int fd = std::exchange(fd_, -1);
  // Linux closes the descriptor even when close(2) fails; EINTR reports nothing lost.
  if (fd >= 0 && ::close(fd) != 0 && errno != EINTR) fail_on_path("write", path_, errno);
}

OutputFile::OutputFile(const std::string& path) : path_(path), file_(open_output(path, target_, staged_), path) {}

OutputFile::~OutputFile() {
  if (!committed_ && !staged_.empty()) ::unlink(staged_.c_str());
}

void OutputFile::commit(Durability durability) {
  if (durability == Durability::synced) file_.sync();
  file_.close();
  if (!staged_.empty()) {
    if (::rename(staged_.c_str(), target_.c_str()) != 0) fail_on_path("write", path_, errno);
    staged_.clear();
    if (durability == Durability::synced) sync_folder(target_, path_);
  }
  committed_ = true;
}

}  // namespace smartarrays::os
