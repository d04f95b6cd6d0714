// Owns opening a path and reading it: the checks every open shares (a path holding a NUL byte is
// refused, since the system would open the shorter path before it; a signal that interrupts an open
// waiting on a FIFO stops it as an interruption), and the descriptor a reader opens (InputFile),
// which refuses a file that is not regular without blocking when the reader needs one, and through
// which every file reader reads: at the file offset (a pipe's bytes as they arrive) or at a given
// offset, a signal handled as writes handle it, an error naming the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace smartarrays::os {

/// Throws Error(invalid_argument) when path holds a NUL byte.
void check_path(const std::string& path);

/// Throws the error of a failed system call on path: "cannot WHAT 'PATH': reason", out_of_memory
/// for ENOMEM and os_error otherwise.
[[noreturn]] void fail_on_path(const std::string& what, const std::string& path, int err);

/// open(2) of path with flags (O_CLOEXEC added) and mode after check_path. Throws Error(cancelled)
/// when a signal interrupts it (opening a FIFO waits for its other end), Error(out_of_memory) for
/// ENOMEM and Error(os_error) otherwise, each naming the path ("cannot open 'PATH': reason").
int open_path(const std::string& path, int flags, unsigned mode = 0);

/// The check that decides whether a system call cut short by a signal (EINTR) stops or is retried:
/// the runtime's interrupt check, which every runtime::InterruptScope installs here (this layer is
/// below the runtime). Until one is installed, such calls are retried.
using SignalStopCheck = bool (*)();

/// Installs check, process-wide (the check itself looks at the calling thread's interrupt scope).
void set_signal_stop_check(SignalStopCheck check) noexcept;

/// Called when a system call on path returned EINTR: throws Error(cancelled) "interrupted while
/// waiting to WHAT 'PATH'" when the installed check asks to stop, else returns so the call is retried
/// (a write to a pipe or FIFO whose reader stopped reading then ends on Ctrl-C).
void stop_if_signalled(const std::string& what, const std::string& path);

/// What a reader needs of its file.
enum class InputKind {
  stream,   ///< read front to back: a pipe, FIFO or device will do
  regular,  ///< sized, mapped or read at offsets: a regular file only
};

/// A file open for reading; the descriptor is closed with the object. Reads that a signal cuts
/// short (EINTR) stop with Error(cancelled) when the installed check asks (stop_if_signalled), else
/// are retried; a failed read is Error(os_error) "cannot read 'PATH': reason" (fail_on_path).
class InputFile {
 public:
  /// Opens path read-only through open_path. A regular kind opens without waiting (O_NONBLOCK,
  /// cleared after) and refuses any other file with Error(invalid_argument) "'PATH' is not a
  /// regular file", so a FIFO is refused, not waited on.
  static InputFile open(const std::string& path, InputKind kind);

  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&& other) noexcept;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  /// The descriptor (-1 once released).
  int descriptor() const noexcept { return fd_; }
  /// True for a regular file.
  bool regular() const noexcept { return regular_; }
  /// The size of a regular file when opened (0 for any other).
  std::uint64_t size() const noexcept { return size_; }
  /// The path the file was opened by, as messages name it.
  const std::string& path() const noexcept { return path_; }
  /// Hands the descriptor to the caller, who closes it.
  int release() noexcept;

  /// Reads at most size bytes at the file offset, advancing it, with one read(2) that returns
  /// something: the bytes read (a pipe's that have arrived), 0 at the end of the file.
  std::size_t read(void* out, std::size_t size) const;
  /// Reads size bytes at offset, leaving the file offset as it was (pread: safe from many threads
  /// at once): the bytes read, fewer than size only when the file ends first.
  std::size_t read_at(std::uint64_t offset, void* out, std::size_t size) const;

 private:
  InputFile() = default;
  std::string path_;
  int fd_ = -1;
  bool regular_ = false;
  std::uint64_t size_ = 0;
};

}  // namespace smartarrays::os
