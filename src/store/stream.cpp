// Owns store streams (docs/compact-format.md, "Streams"): sending objects over a file descriptor as
// a preamble and the bytes of a store file, blocks written with writev straight from the arrays'
// memory; sending a store file with sendfile; and receiving a stream into one placed region whose
// blocks become arrays in place, after the same checks as opening a file. SIGPIPE is held off
// while sending so a closed peer is an error, not a signal. No read or write waits on a peer where
// an interrupt could go unnoticed (Descriptor), and the received region's pages are faulted in as
// the bytes arrive, not when a preamble announces them.
#include <poll.h>
#include <pthread.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstring>
#include <memory>
#include <mutex>

#include "smartarrays/error.hpp"
#include "smartarrays/os/memory_limit.hpp"
#include "smartarrays/os/memory_region.hpp"
#include "smartarrays/runtime/interrupt.hpp"
#include "smartarrays/store/store.hpp"
#include "smartarrays/util/byte_size.hpp"
#include "smartarrays/util/text.hpp"
#include "codec/crc32c.hpp"
#include "store/format.hpp"
#include "store/state.hpp"
#include "store/store_file.hpp"

namespace smartarrays::store {
namespace {

using detail::BlockEntry;
using detail::Catalogue;
using detail::ObjectEntry;

constexpr char stream_magic[8] = {'S', 'A', 'S', 'T', 'R', 'E', 'A', 'M'};
constexpr std::size_t preamble_bytes = 16;
// Stream blocks are page aligned only: a received region is page aligned, and huge-page alignment
// would put up to 2 MiB of zeros on the wire per block.
constexpr std::uint64_t stream_alignment = detail::block_alignment;
alignas(8) constexpr std::uint8_t zeros[stream_alignment] = {};
// A received region is faulted in this far ahead of the bytes read: a huge page, so a region on
// huge pages gets them whole, and at most this much memory is touched that no byte has reached.
constexpr std::uint64_t fault_step = std::uint64_t{2} << 20;
// Bytes sendfile is asked for at a time.
constexpr std::uint64_t sendfile_batch = std::uint64_t{1} << 20;

[[noreturn]] void fail(const std::string& what, int err) {
  throw_error(ErrorCode::os_error, "store stream: " + what + ": " + std::strerror(err));
}

std::uint64_t align_up(std::uint64_t offset, std::uint64_t alignment) { return (offset + alignment - 1) / alignment * alignment; }

// Holds SIGPIPE blocked in the calling thread for its lifetime; a SIGPIPE raised meanwhile (a
// write to a closed peer) is consumed unless one was already pending, so the write's EPIPE is
// the only trace.
class SigpipeHeld {
 public:
  SigpipeHeld() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeHeld() {
    if (!was_pending_) {
      const timespec none{0, 0};
      while (sigtimedwait(&pipe_, nullptr, &none) == SIGPIPE) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeHeld(const SigpipeHeld&) = delete;
  SigpipeHeld& operator=(const SigpipeHeld&) = delete;

 private:
  sigset_t pipe_{}, old_{};
  bool was_pending_ = false;
};

// A read or write that a signal cut short, or that found nothing to do, before the loop around it
// decides: EAGAIN (or EWOULDBLOCK) means wait, EINTR means look at the interrupt now.
bool would_block(int err) noexcept { return err == EAGAIN || err == EWOULDBLOCK; }

// Reads and writes of a stream's descriptor that never wait inside the kernel where a signal could
// go unnoticed: sockets with MSG_DONTWAIT, pipes and FIFOs with RWF_NOWAIT, both returning EAGAIN
// when they would wait, so the caller waits in runtime::wait_ready (which polls the interrupt check)
// and then tries again; regular files and block devices plainly, since they never wait on a peer.
// Other descriptors (terminals, and pipes on kernels without RWF_NOWAIT for them) wait in
// wait_ready before a plain call, which then finds data or room; a signal during such a call cuts it
// short (EINTR or a short count), which the callers check at once. The same loop serves a
// descriptor in non-blocking mode (a Python socket with a timeout): EAGAIN is a wait, not a failure.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {
    struct stat st{};
    // A descriptor fstat refuses (closed, say) is used plainly: the first call names the failure.
    if (::fstat(fd, &st) != 0 || S_ISREG(st.st_mode) || S_ISBLK(st.st_mode)) kind_ = Kind::file;
    if (S_ISSOCK(st.st_mode)) kind_ = Kind::socket;
    if (S_ISFIFO(st.st_mode)) kind_ = Kind::pipe;
  }

  int fd() const noexcept { return fd_; }
  /// True when a call may wait in the kernel (after wait_ready found the descriptor ready): a short
  /// count from it then means a signal.
  bool waits() const noexcept { return kind_ == Kind::polled; }

  /// Writes some bytes of count pieces at iov: their number, or -1 with errno set.
  ssize_t write_some(const iovec* iov, int count) {
    switch (kind_) {
      case Kind::socket: {
        msghdr message{};
        message.msg_iov = const_cast<iovec*>(iov);
        message.msg_iovlen = static_cast<std::size_t>(count);
        return ::sendmsg(fd_, &message, MSG_DONTWAIT | MSG_NOSIGNAL);
      }
      case Kind::pipe: {
        const ssize_t n = ::pwritev2(fd_, iov, count, -1, RWF_NOWAIT);
        if (n >= 0 || !unsupported(errno)) return n;
        kind_ = Kind::polled;
        return write_some(iov, count);
      }
      case Kind::polled:
        runtime::wait_ready(fd_, POLLOUT);
        return ::writev(fd_, iov, count);
      case Kind::file:
        break;
    }
    return ::writev(fd_, iov, count);
  }

  /// Reads at most size bytes into data: their number (0 at the end of the stream), or -1 with errno set.
  ssize_t read_some(void* data, std::size_t size) {
    switch (kind_) {
      case Kind::socket:
        return ::recv(fd_, data, size, MSG_DONTWAIT);
      case Kind::pipe: {
        const iovec piece{data, size};
        const ssize_t n = ::preadv2(fd_, &piece, 1, -1, RWF_NOWAIT);
        if (n >= 0 || !unsupported(errno)) return n;
        kind_ = Kind::polled;
        return read_some(data, size);
      }
      case Kind::polled:
        runtime::wait_ready(fd_, POLLIN);
        return ::read(fd_, data, size);
      case Kind::file:
        break;
    }
    return ::read(fd_, data, size);
  }

 private:
  enum class Kind { socket, pipe, file, polled };
  // Kernels before 4.14 lack RWF_NOWAIT (EOPNOTSUPP, or ENOSYS without preadv2), and later ones
  // before pipes honoured it refuse it for them.
  static bool unsupported(int err) noexcept { return err == EOPNOTSUPP || err == ENOSYS || err == EINVAL; }

  int fd_;
  Kind kind_ = Kind::polled;
};

// Writes a stream of pieces with writev, batched (up to IOV_MAX pieces, flushed once batch_bytes
// are pending) and resumed after short writes; counts the bytes for messages.
class StreamWriter {
 public:
  /// Bytes of pending pieces that trigger a write: small enough that a chunk checksummed just
  /// before is still in the cache when the kernel copies it.
  static constexpr std::uint64_t batch_bytes = std::uint64_t{128} << 10;

  StreamWriter(int fd, std::uint64_t total) : out_(fd), total_(total) {}

  /// Queues len bytes at data (nothing for 0), writing when enough are pending.
  void add(const void* data, std::uint64_t len) {
    if (len == 0) return;
    pending_.push_back({const_cast<void*>(data), static_cast<std::size_t>(len)});
    pending_bytes_ += len;
    if (pending_bytes_ >= batch_bytes || pending_.size() == IOV_MAX) flush();
  }
  /// Queues n zero bytes, from the shared zero page.
  void add_zeros(std::uint64_t n) {
    while (n > 0) {
      const std::uint64_t len = std::min<std::uint64_t>(n, sizeof zeros);
      add(zeros, len);
      n -= len;
    }
  }
  /// Writes everything pending, checking the interrupt after every write (at once after one a
  /// signal cut short) and waiting interruptibly while the peer takes nothing.
  void flush() {
    std::size_t first = 0;
    while (first < pending_.size()) {
      const std::uint64_t asked = pending_bytes_;
      const ssize_t n = out_.write_some(pending_.data() + first, static_cast<int>(pending_.size() - first));
      if (n < 0 && would_block(errno)) {
        runtime::wait_ready(out_.fd(), POLLOUT);
        continue;
      }
      if (n < 0 && errno == EINTR) {
        runtime::check_interrupt(true);
        continue;
      }
      if (n < 0) fail("sent " + std::to_string(sent_) + " of " + std::to_string(total_) + " bytes, then writev failed", errno);
      sent_ += static_cast<std::uint64_t>(n);
      pending_bytes_ -= static_cast<std::uint64_t>(n);
      runtime::check_interrupt(out_.waits() && static_cast<std::uint64_t>(n) < asked);
      auto left = static_cast<std::size_t>(n);
      while (first < pending_.size() && left >= pending_[first].iov_len) {
        left -= pending_[first].iov_len;
        ++first;
      }
      if (left > 0) {
        pending_[first].iov_base = static_cast<std::uint8_t*>(pending_[first].iov_base) + left;
        pending_[first].iov_len -= left;
      }
    }
    pending_.clear();
    pending_bytes_ = 0;
  }
  /// Bytes written so far.
  std::uint64_t sent() const noexcept { return sent_; }

 private:
  Descriptor out_;
  std::uint64_t total_;
  std::uint64_t sent_ = 0;
  std::vector<iovec> pending_;
  std::uint64_t pending_bytes_ = 0;
};

std::array<std::uint8_t, preamble_bytes> preamble(std::uint64_t length) {
  std::array<std::uint8_t, preamble_bytes> p{};
  std::memcpy(p.data(), stream_magic, sizeof stream_magic);
  std::memcpy(p.data() + 8, &length, sizeof length);
  return p;
}

// One array to send: its block entry (offset in the stream's store; the CRC is computed while
// sending) and its words.
struct Outgoing {
  BlockEntry block;
  const std::uint64_t* words;
};

Outgoing plan_block(const SmartArray& array, const std::string& name, std::uint64_t& end) {
  if (array.replicas() == 0) throw_error(ErrorCode::invalid_argument, "store: " + name + " is an emptied (moved-from) array");
  Outgoing out{{}, array.replica(0)};
  out.block.bits = array.bits();
  out.block.length = array.length();
  if (!detail::block_byte_length(out.block.length, out.block.bits, out.block.byte_length)) {
    throw_error(ErrorCode::invalid_argument, "store: " + name + " is too large for the format");
  }
  out.block.offset = align_up(end, stream_alignment);
  end = out.block.offset + out.block.byte_length;
  return out;
}

// Reads exactly size bytes into data, or throws naming how many came; checks the interrupt after
// every read (at once after EINTR) and waits interruptibly while nothing comes.
void read_exactly(Descriptor& in, std::uint8_t* data, std::uint64_t size, std::uint64_t done_before, std::uint64_t total) {
  std::uint64_t got = 0;
  while (got < size) {
    const std::size_t chunk = static_cast<std::size_t>(std::min<std::uint64_t>(size - got, std::uint64_t{1} << 30));
    const ssize_t n = in.read_some(data + got, chunk);
    if (n < 0 && would_block(errno)) {
      runtime::wait_ready(in.fd(), POLLIN);
      continue;
    }
    if (n < 0 && errno == EINTR) {
      runtime::check_interrupt(true);
      continue;
    }
    if (n < 0) fail("received " + std::to_string(done_before + got) + " of " + std::to_string(total) + " bytes, then read failed", errno);
    if (n == 0) {
      throw_error(ErrorCode::os_error, "store stream: the peer closed the stream after " + std::to_string(done_before + got) +
                                           " of " + std::to_string(total) + " bytes");
    }
    got += static_cast<std::uint64_t>(n);
    runtime::check_interrupt();
  }
}

os::RegionOptions region_options(const ArrayOptions& placement) {
  os::RegionOptions r;
  r.huge_pages = placement.huge_pages;
  switch (placement.placement) {
    case Placement::os_default:
      break;
    case Placement::single_node:
      r.policy = os::MemoryPolicy::bind;
      r.nodes = {placement.node};
      break;
    case Placement::interleaved:
      r.policy = os::MemoryPolicy::interleave;
      r.nodes = placement.nodes;
      break;
    case Placement::partitioned:
      r.policy = os::MemoryPolicy::partition;
      r.nodes = placement.nodes;
      break;
    default:
      throw_error(ErrorCode::invalid_argument, std::string("store stream: a received store is one region; placement ") +
                                                   to_string(placement.placement) +
                                                   " needs copies (open or build the arrays from it)");
  }
  return r;
}

// Reads a stream's preamble from in and returns the length of the store that follows, checked
// against max_bytes (0: no such limit) and the process memory limit before anything is allocated.
std::uint64_t read_preamble(Descriptor& in, std::uint64_t max_bytes) {
  std::array<std::uint8_t, preamble_bytes> pre{};
  read_exactly(in, pre.data(), pre.size(), 0, preamble_bytes);
  if (std::memcmp(pre.data(), stream_magic, sizeof stream_magic) != 0) {
    throw_error(ErrorCode::invalid_argument, "store stream: the first bytes " +
                                                 util::quoted(std::string_view(reinterpret_cast<const char*>(pre.data()), 8)) +
                                                 " are not 'SASTREAM' (not a store stream)");
  }
  std::uint64_t length = 0;
  std::memcpy(&length, pre.data() + 8, sizeof length);
  if (length < detail::header_bytes + detail::trailer_bytes) {
    throw_error(ErrorCode::invalid_argument, "store stream: a length of " + std::to_string(length) +
                                                 " bytes cannot hold a store's header and trailer");
  }
  const os::MemoryLimit& memory = os::memory_limit();
  if (max_bytes != 0 && length > max_bytes) {
    throw_error(ErrorCode::invalid_argument, "store stream: the stream announces " + util::format_bytes(length) +
                                                 ", more than the " + util::format_bytes(max_bytes) + " accepted (max_bytes)");
  }
  if (length > memory.bytes) {
    throw_error(ErrorCode::invalid_argument, "store stream: the stream announces " + util::format_bytes(length) +
                                                 ", more than the " + util::format_bytes(memory.bytes) +
                                                 " accepted (the memory limit: " + memory.source + ")");
  }
  return length;
}

}  // namespace

void Store::send(int fd, const std::vector<Object>& objects) {
  Catalogue catalogue;
  detail::check_objects(objects, catalogue);
  std::vector<const std::uint64_t*> words;
  std::uint64_t end = detail::header_bytes;
  for (const Object& object : objects) {
    catalogue.objects.push_back(detail::plan_object(object, [&](const SmartArray& array, const std::string& name) {
      const Outgoing out = plan_block(array, name, end);
      catalogue.blocks.push_back(out.block);
      words.push_back(out.words);
      return static_cast<std::uint32_t>(catalogue.blocks.size() - 1);
    }));
  }
  // The directory's size does not depend on the CRCs, so the length is known before any block is read.
  const std::uint64_t directory_offset = align_up(end, 8);
  const std::uint64_t length = directory_offset + detail::encode_directory(catalogue).size() + detail::trailer_bytes;
  const auto pre = preamble(length);
  const auto header = detail::encode_header();
  const SigpipeHeld held;
  StreamWriter out(fd, preamble_bytes + length);
  out.add(pre.data(), pre.size());
  out.add(header.data(), header.size());
  std::uint64_t at = header.size();
  // Each block is checksummed chunk by chunk just before the chunk is written, so its words are
  // read from memory once; the directory with the CRCs follows the blocks.
  for (std::size_t i = 0; i < catalogue.blocks.size(); ++i) {
    BlockEntry& b = catalogue.blocks[i];
    out.add_zeros(b.offset - at);
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(words[i]);
    const std::uint64_t stream_bytes = b.byte_length - 8;
    std::uint32_t crc = 0;
    for (std::uint64_t done = 0; done < stream_bytes;) {
      const std::uint64_t chunk = std::min(stream_bytes - done, StreamWriter::batch_bytes);
      crc = codec::crc32c(bytes + done, chunk, crc);
      out.add(bytes + done, chunk);
      done += chunk;
    }
    b.crc = codec::crc32c(zeros, 8, crc);
    out.add(zeros, 8);
    at = b.offset + b.byte_length;
  }
  const std::vector<std::uint8_t> directory = detail::encode_directory(catalogue);
  const auto trailer = detail::encode_trailer(directory_offset, directory);
  out.add_zeros(directory_offset - at);
  out.add(directory.data(), directory.size());
  out.add(trailer.data(), trailer.size());
  out.flush();
}

void Store::send_file(int fd, const std::string& path) {
  const std::uint64_t length = detail::open_committed(path).catalogue.committed_bytes;
  const int in = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) fail("cannot open " + util::quoted(path, 256), errno);
  const std::unique_ptr<int, void (*)(int*)> closer(new int(in), [](int* f) {
    ::close(*f);
    delete f;
  });
  const SigpipeHeld held;
  const auto pre = preamble(length);
  StreamWriter out(fd, preamble_bytes + length);
  out.add(pre.data(), pre.size());
  out.flush();
  off_t offset = 0;
  while (static_cast<std::uint64_t>(offset) < length) {
    // sendfile has no non-blocking flag: it is asked for a MiB at a time once poll finds room, so it
    // seldom waits in the kernel, and a signal while it does cuts it short (checked at once).
    runtime::wait_ready(fd, POLLOUT);
    const std::size_t chunk = static_cast<std::size_t>(std::min<std::uint64_t>(length - static_cast<std::uint64_t>(offset), sendfile_batch));
    const ssize_t n = ::sendfile(fd, in, &offset, chunk);
    if (n < 0 && would_block(errno)) continue;
    if (n < 0 && errno == EINTR) {
      runtime::check_interrupt(true);
      continue;
    }
    if (n < 0) {
      fail("sent " + std::to_string(preamble_bytes + static_cast<std::uint64_t>(offset)) + " of " +
               std::to_string(preamble_bytes + length) + " bytes of " + util::quoted(path, 256) + ", then sendfile failed",
           errno);
    }
    if (n == 0) throw_error(ErrorCode::os_error, "store stream: " + util::quoted(path, 256) + " became shorter while it was sent");
    runtime::check_interrupt(static_cast<std::size_t>(n) < chunk);
  }
}

void Store::send(int fd) const {
  std::vector<Object> objects;
  for (const State::Entry& e : state_->entries) {
    if (e.array) {
      objects.emplace_back(e.name, *e.array);
    } else {
      objects.emplace_back(e.name, *e.graph);
    }
  }
  send(fd, objects);
}

// Reads the length bytes of a store from fd into the region, checks them as opening a file does,
// and returns its objects as arrays over the region (each array keeps it alive).
Store Receiver::read(int fd, std::uint64_t length) {
  const ReceiveOptions& options = options_;
  Descriptor in(fd);
  auto* data = static_cast<std::uint8_t*>(region_->data());
  // Read in pieces small enough to be checksummed page by page while still in the cache. The
  // region's pages are faulted in a step ahead of the bytes (a fault per page inside read() would
  // cost more than the copy), so its memory follows what arrived, not what the preamble announced.
  codec::PagedCrc32c pages;
  for (std::uint64_t got = 0; got < length;) {
    const std::uint64_t n = std::min(length - got, StreamWriter::batch_bytes);
    if (got + n > faulted_) {
      const std::uint64_t to = std::min<std::uint64_t>(region_->mapped_bytes(), align_up(got + n, fault_step));
      region_->prefault(static_cast<std::size_t>(faulted_), static_cast<std::size_t>(to));
      faulted_ = to;
    }
    read_exactly(in, data + got, n, preamble_bytes + got, preamble_bytes + length);
    got += n;
    if (options.verify_blocks) pages.advance(data, got);
  }
  const Catalogue catalogue = detail::read_catalogue(data, static_cast<std::size_t>(length));
  if (catalogue.committed_bytes != length) {
    throw_error(ErrorCode::invalid_argument, "store stream: " + std::to_string(length - catalogue.committed_bytes) +
                                                 " bytes follow the trailer at offset " +
                                                 std::to_string(catalogue.committed_bytes - detail::trailer_bytes));
  }
  const std::shared_ptr<const void> owner = region_;
  auto array_of = [&](const ObjectEntry& object, std::size_t k) {
    const BlockEntry& b = catalogue.blocks[object.blocks[k]];
    if (options.verify_blocks) {
      const std::uint32_t crc = pages.range(data, b.offset, b.byte_length);
      if (crc != b.crc) {
        throw_error(ErrorCode::invalid_argument,
                    "store stream: " + std::string(detail::object_kind_name(object.kind)) + " " + util::quoted(object.name) +
                        ": the block at offset " + std::to_string(b.offset) + " has checksum " + std::to_string(crc) +
                        ", the directory says " + std::to_string(b.crc) + " (the stream is corrupt)");
      }
    }
    return SmartArray::over_region(b.length, b.bits, os::MemoryRegion::borrow(data + b.offset, b.byte_length, owner));
  };
  auto state = std::make_unique<Store::State>();
  state->mode = Mode::load;
  for (const ObjectEntry& object : catalogue.objects) {
    Store::State::Entry entry{object.name, static_cast<ObjectKind>(object.kind), std::nullopt, nullptr};
    if (object.kind == detail::object_kind_array) {
      entry.array.emplace(array_of(object, 0));
    } else {
      entry.graph = std::make_unique<graph::CsrGraph>(
          detail::graph_of(object, [&](std::size_t k) { return array_of(object, k); },
                           "store stream: " + detail::entry_label(object), runtime::default_pool()));
    }
    state->entries.push_back(std::move(entry));
  }
  return Store(std::move(state));
}

Store Store::receive(int fd, const ReceiveOptions& options) { return Receiver(options).receive(fd); }

// region_options() throws now for a placement a received region cannot have.
Receiver::Receiver(ReceiveOptions options) : options_(std::move(options)) { region_options(options_.placement); }
Receiver::Receiver(Receiver&&) noexcept = default;
Receiver& Receiver::operator=(Receiver&&) noexcept = default;
Receiver::~Receiver() = default;

std::uint64_t Receiver::reserved_bytes() const {
  const std::lock_guard<std::mutex> lock(*turn_);
  return region_ ? region_->size() : 0;
}

std::uint64_t Receiver::reuses() const {
  const std::lock_guard<std::mutex> lock(*turn_);
  return reuses_;
}

Store Receiver::receive(int fd) {
  const std::lock_guard<std::mutex> lock(*turn_);
  Descriptor in(fd);
  const std::uint64_t length = read_preamble(in, options_.max_bytes);
  // use_count() == 1: no array of an earlier store holds the region, and none can start to.
  const bool exact = options_.placement.placement == Placement::partitioned;
  if (region_ && region_.use_count() == 1 && (exact ? region_->size() == length : region_->size() >= length)) {
    ++reuses_;
  } else {
    region_.reset();
    faulted_ = 0;
    // Address space under the placement's policy; read() faults its pages in as the bytes come.
    region_ = std::make_shared<os::MemoryRegion>(
        os::MemoryRegion::reserve(static_cast<std::size_t>(length), region_options(options_.placement)));
  }
  return read(fd, length);
}

}  // namespace smartarrays::store
