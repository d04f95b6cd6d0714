// Owns writing files: a descriptor whose every write is whole or an error naming the file (File), and
// the one way the library writes an output file (OutputFile): beside its path, renamed into place
// when complete, so a full disk, an error, an exception or an interrupt leaves the old file or none,
// never a truncated one that a later read would take for the whole.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace smartarrays::os {

/// A file descriptor closed on destruction; each call writes all its bytes or throws Error naming
/// the file (out_of_memory for ENOMEM, os_error otherwise, a full disk included).
class File {
 public:
  /// Opens path with open(2) flags (O_CLOEXEC added) and mode for a file it creates.
  File(const std::string& path, int flags, unsigned mode = 0666);
  /// Takes an open descriptor; messages name path.
  File(int descriptor, std::string path) noexcept;
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  ~File();

  /// Appends size bytes at the file offset.
  void write(const void* bytes, std::size_t size) const;
  /// Writes size bytes at offset, leaving the file offset as it was.
  void write_at(const void* bytes, std::size_t size, std::uint64_t offset) const;
  /// Flushes the file's data to the device (fdatasync; nothing for a device or pipe that holds none).
  void sync() const;
  /// Cuts or extends the file to size bytes.
  void truncate(std::uint64_t size) const;
  /// Closes the descriptor now, reporting what close(2) reports (a delayed write error).
  void close();
  /// The path the file was opened by, as messages name it.
  const std::string& path() const noexcept { return path_; }
  /// The descriptor (-1 once closed).
  int descriptor() const noexcept { return fd_; }

 private:
  std::string path_;
  int fd_;
};

/// Whether OutputFile::commit makes the new file survive a crash of the machine.
enum class Durability { none, synced };

/// An output file written as a staged file beside its path (PATH.partial-PID-N, or beside the file
/// a symbolic link at PATH names) and renamed over it by commit(): a destruction without commit
/// removes the staged file, so the path keeps its old contents, or stays absent. The new file keeps
/// an old file's permission bits. A name of an open descriptor (/dev/stdout, /dev/fd/N) is written
/// through that descriptor; a path that exists but is no regular file (a FIFO), another path under
/// /dev or /proc, or a writable file in a folder where no file can be created, is written in place.
class OutputFile {
 public:
  /// Creates the staged file; throws Error naming path when it cannot.
  explicit OutputFile(const std::string& path);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  /// Removes the staged file unless commit() succeeded.
  ~OutputFile();

  /// The staged file (in place: the file itself), to write.
  const File& file() const noexcept { return file_; }
  /// Appends size bytes.
  void write(const void* bytes, std::size_t size) const { file_.write(bytes, size); }
  /// Closes the file and renames it over the path (synced first, and its folder after, when
  /// durability is synced). Throws Error naming the path; the staged file is then removed.
  void commit(Durability durability = Durability::none);
  /// The path the file is written to, as messages name it.
  const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;    // as given
  std::string target_;  // what the rename replaces: path_, or the file its symbolic link names
  std::string staged_;  // the staged file; empty when written in place
  bool committed_ = false;
  File file_;
};

}  // namespace smartarrays::os
