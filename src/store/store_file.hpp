// Owns how the store's writers and readers share one file (docs/compact-format.md, "Writers,
// readers and locks"): the writer lock a writer holds for a whole append or replacement, the commit
// lock under which a writer changes what readers read and readers read the header, trailer and
// directory, the committed part found with positioned reads and mapped alone (never the bytes an
// append is writing), and the room an append reserves before it writes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "os/file_lock.hpp"
#include "os/output_file.hpp"
#include "smartarrays/os/mapped_file.hpp"
#include "store/format.hpp"

namespace smartarrays::store::detail {

/// The byte (past any real file's end) whose lock a writer holds for a whole append or replacement.
inline constexpr std::uint64_t writer_lock_byte = std::uint64_t{1} << 62;
/// The byte whose lock a writer holds alone while it drops a tail, rewrites the header or writes a
/// trailer, and readers hold shared while they read the header, trailer and directory.
inline constexpr std::uint64_t commit_lock_byte = writer_lock_byte + 1;

/// A store file as a reader opened it: its committed part mapped and that part's catalogue.
struct CommittedFile {
  std::shared_ptr<const os::MappedFile> mapping;  ///< bytes [0, catalogue.committed_bytes)
  Catalogue catalogue;
  std::uint64_t file_bytes = 0;  ///< the file's size when read (uncommitted bytes included)
  std::uint32_t version = 0;     ///< the header's format version
};

/// Opens the store at path for reading under a shared commit lock: checks the header, finds the
/// trailer in force with positioned reads, maps the bytes up to its end and reads the catalogue.
/// Throws Error(invalid_argument) for a malformed store, Error(os_error) naming path otherwise.
CommittedFile open_committed(const std::string& path);

/// A store file held by its writer: open for reading and writing, its writer lock held, and the
/// file at path when the lock was taken (an appender that waited for a replacement appends to the
/// new file).
class HeldFile {
 public:
  /// Opens the store at path and takes its writer lock, waiting store::lock_wait_seconds() at most;
  /// throws Error(os_error) "store 'PATH' is being written by another writer ..." when the wait ran out.
  static HeldFile for_append(const std::string& path);
  /// Takes the writer lock of the regular file at path when there is one (a replacement then never
  /// lands while an append to the old file is under way); an empty hold otherwise.
  static HeldFile for_replace(const std::string& path);

  /// The file (for_append only).
  const os::File& file() const { return *file_; }

 private:
  std::unique_ptr<os::File> file_;
  os::ByteLock lock_;
};

/// Reserves bytes [from, to) of file for an append (fallocate, the size kept), so a full file system
/// fails the append before any byte is written; a file system without fallocate reserves nothing.
/// Throws Error(os_error) naming the file and the bytes when the file system has no room.
void reserve(const os::File& file, std::uint64_t from, std::uint64_t to);

/// Returns file to its committed length after a failed append: the reserved room released, the
/// bytes written after committed dropped. Never throws (a failure leaves a tail readers ignore).
void roll_back(const os::File& file, std::uint64_t committed, std::uint64_t reserved_end) noexcept;

/// The commit lock of file, held alone, for a writer's commit; waits store::lock_wait_seconds() at most.
os::ByteLock lock_commit(const os::File& file);

}  // namespace smartarrays::store::detail
