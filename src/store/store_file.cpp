// Owns the store's sharing of one file between writers and readers (store_file.hpp): the two locks,
// the committed part found with positioned reads (os::InputFile::read_at, so a reader never touches an
// append's tail, which on a full tmpfs would raise SIGBUS) and mapped alone, the reservation and the
// roll-back of an append.
#include "store/store_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <utility>

#include "os/open_file.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/store/store.hpp"
#include "smartarrays/util/settings.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::store::detail {

namespace {

constexpr std::uint64_t max_lock_wait_seconds = 86400;

std::string store_named(const std::string& path) { return "store " + util::quoted(path, 256); }

[[noreturn]] void fail_waiting(const std::string& path, const char* holder) {
  throw_error(ErrorCode::os_error, store_named(path) + " is being written by another " + holder + "; waited " +
                                       std::to_string(static_cast<std::uint64_t>(lock_wait_seconds())) +
                                       " s for it (SMARTARRAYS_STORE_LOCK_WAIT), nothing was changed");
}

// Reads n bytes at offset of file into out, zeros past the end of the file.
void read_exactly(const os::InputFile& file, std::uint64_t offset, std::size_t n, std::uint8_t* out) {
  const std::size_t done = file.read_at(offset, out, n);
  std::memset(out + done, 0, n - done);
}

bool same_file(int fd, const std::string& path) {
  struct stat open_file {}, named {};
  return ::fstat(fd, &open_file) == 0 && ::stat(path.c_str(), &named) == 0 && open_file.st_dev == named.st_dev &&
         open_file.st_ino == named.st_ino;
}

}  // namespace

CommittedFile open_committed(const std::string& path) {
  const os::InputFile input = os::InputFile::open(path, os::InputKind::regular);
  const int fd = input.descriptor();
  const os::ByteLock lock = os::ByteLock::take(fd, commit_lock_byte, os::LockKind::shared, lock_wait_seconds(), path);
  if (!lock.held()) fail_waiting(path, "writer committing an append");
  // The size under the lock: a commit that ended while this reader waited is seen whole.
  struct stat st {};
  if (::fstat(fd, &st) != 0) os::fail_on_path("stat", path, errno);
  CommittedFile opened;
  opened.file_bytes = static_cast<std::uint64_t>(st.st_size);
  std::array<std::uint8_t, header_bytes> header{};
  read_exactly(input, 0, header.size(), header.data());
  check_header(header.data(), opened.file_bytes);
  std::memcpy(&opened.version, header.data() + 8, sizeof opened.version);
  const std::uint64_t committed = committed_end(
      [&](std::uint64_t offset, std::size_t n, std::uint8_t* out) { read_exactly(input, offset, n, out); },
      opened.file_bytes);
  opened.mapping = std::make_shared<const os::MappedFile>(os::MappedFile::map(fd, committed, path));
  opened.catalogue = read_catalogue(opened.mapping->data(), committed);
  return opened;
}

HeldFile HeldFile::for_append(const std::string& path) {
  for (;;) {
    HeldFile held;
    held.file_ = std::make_unique<os::File>(path, O_RDWR);
    held.lock_ = os::ByteLock::take(held.file_->descriptor(), writer_lock_byte, os::LockKind::exclusive, lock_wait_seconds(), path);
    if (!held.lock_.held()) fail_waiting(path, "writer");
    // A writer that replaced the file while this one waited left the old file unnamed: append to the new one.
    if (same_file(held.file_->descriptor(), path)) return held;
  }
}

HeldFile HeldFile::for_replace(const std::string& path) {
  HeldFile held;
  os::check_path(path);
  // Not waiting on a FIFO; a file this process may not write is not appended to by it either.
  const int fd = ::open(path.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return held;
  held.file_ = std::make_unique<os::File>(fd, path);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return held;
  held.lock_ = os::ByteLock::take(fd, writer_lock_byte, os::LockKind::exclusive, lock_wait_seconds(), path);
  if (!held.lock_.held()) fail_waiting(path, "writer");
  return held;
}

void reserve(const os::File& file, std::uint64_t from, std::uint64_t to) {
  if (to <= from) return;
  int err = 0;
  while (::fallocate(file.descriptor(), FALLOC_FL_KEEP_SIZE, static_cast<off_t>(from), static_cast<off_t>(to - from)) != 0) {
    err = errno;
    if (err != EINTR) break;
    os::stop_if_signalled("reserve room in", file.path());
    err = 0;
  }
  // A file system (or a pipe, a device) that cannot reserve: the writes themselves report a full disk.
  if (err == 0 || err == EOPNOTSUPP || err == ENOSYS || err == ESPIPE || err == ENODEV) return;
  if (err == ENOSPC || err == EDQUOT || err == EFBIG) {
    throw_error(ErrorCode::os_error, store_named(file.path()) + ": the file system has no room for the " +
                                         std::to_string(to - from) + " bytes this write needs (" + std::strerror(err) +
                                         "); nothing was written");
  }
  os::fail_on_path("reserve room in", file.path(), err);
}

void roll_back(const os::File& file, std::uint64_t committed, std::uint64_t reserved_end) noexcept {
  // Reserved blocks past the end stay allocated until released: punch them out, then cut the tail.
  if (reserved_end > committed) {
    static_cast<void>(::fallocate(file.descriptor(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(committed),
                                  static_cast<off_t>(reserved_end - committed)));
  }
  static_cast<void>(::ftruncate(file.descriptor(), static_cast<off_t>(committed)));
}

os::ByteLock lock_commit(const os::File& file) {
  os::ByteLock lock = os::ByteLock::take(file.descriptor(), commit_lock_byte, os::LockKind::exclusive, lock_wait_seconds(), file.path());
  if (!lock.held()) fail_waiting(file.path(), "reader or writer");
  return lock;
}

}  // namespace smartarrays::store::detail

namespace smartarrays::store {

double lock_wait_seconds() {
  static const double seconds = static_cast<double>(
      util::setting_count("SMARTARRAYS_STORE_LOCK_WAIT", 0, detail::max_lock_wait_seconds, 60));
  return seconds;
}

}  // namespace smartarrays::store
