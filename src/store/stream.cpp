// Owns store streams (docs/compact-format.md, "Streams"): sending objects over a file descriptor as
// a preamble and the bytes of a store file, blocks written with writev straight from the arrays'
// memory; sending a store file with sendfile; and receiving a stream into one placed region whose
// blocks become arrays in place, after the same checks as opening a file. SIGPIPE is held off
// while sending so a closed peer is an error, not a signal.
#include <pthread.h>
#include <sys/sendfile.h>
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

#include "smartarrays/error.hpp"
#include "smartarrays/os/mapped_file.hpp"
#include "smartarrays/os/memory_limit.hpp"
#include "smartarrays/os/memory_region.hpp"
#include "smartarrays/runtime/interrupt.hpp"
#include "smartarrays/store/store.hpp"
#include "smartarrays/util/byte_size.hpp"
#include "smartarrays/util/text.hpp"
#include "store/crc32c.hpp"
#include "store/format.hpp"
#include "store/state.hpp"

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

// Writes every piece with writev, IOV_MAX at a time, resuming after short writes.
void write_all(int fd, std::vector<iovec> pieces, std::uint64_t total) {
  std::uint64_t sent = 0;
  std::size_t first = 0;
  while (first < pieces.size()) {
    const int count = static_cast<int>(std::min<std::size_t>(pieces.size() - first, IOV_MAX));
    const ssize_t n = ::writev(fd, pieces.data() + first, count);
    if (n < 0 && errno == EINTR) {
      runtime::check_interrupt();
      continue;
    }
    if (n < 0) fail("sent " + std::to_string(sent) + " of " + std::to_string(total) + " bytes, then writev failed", errno);
    sent += static_cast<std::uint64_t>(n);
    auto left = static_cast<std::size_t>(n);
    while (first < pieces.size() && left >= pieces[first].iov_len) {
      left -= pieces[first].iov_len;
      ++first;
    }
    if (left > 0) {
      pieces[first].iov_base = static_cast<std::uint8_t*>(pieces[first].iov_base) + left;
      pieces[first].iov_len -= left;
    }
  }
}

// Adds len bytes at data to pieces (nothing for 0).
void add_piece(std::vector<iovec>& pieces, const void* data, std::uint64_t len) {
  if (len > 0) pieces.push_back({const_cast<void*>(data), static_cast<std::size_t>(len)});
}

// Adds n zero bytes, from the shared zero page.
void add_zeros(std::vector<iovec>& pieces, std::uint64_t n) {
  while (n > 0) {
    const std::uint64_t len = std::min<std::uint64_t>(n, sizeof zeros);
    add_piece(pieces, zeros, len);
    n -= len;
  }
}

std::array<std::uint8_t, preamble_bytes> preamble(std::uint64_t length) {
  std::array<std::uint8_t, preamble_bytes> p{};
  std::memcpy(p.data(), stream_magic, sizeof stream_magic);
  std::memcpy(p.data() + 8, &length, sizeof length);
  return p;
}

// One array to send: its block entry (offset in the stream's store) and its words.
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
  const std::uint64_t zero = 0;
  out.block.crc = detail::crc32c(&zero, sizeof zero, detail::crc32c(out.words, out.block.byte_length - 8));
  end = out.block.offset + out.block.byte_length;
  return out;
}

// Reads exactly size bytes into data, or throws naming how many came.
void read_exactly(int fd, std::uint8_t* data, std::uint64_t size, std::uint64_t done_before, std::uint64_t total) {
  std::uint64_t got = 0;
  while (got < size) {
    const std::size_t chunk = static_cast<std::size_t>(std::min<std::uint64_t>(size - got, std::uint64_t{1} << 30));
    const ssize_t n = ::read(fd, data + got, chunk);
    if (n < 0 && errno == EINTR) {
      runtime::check_interrupt();
      continue;
    }
    if (n < 0) fail("received " + std::to_string(done_before + got) + " of " + std::to_string(total) + " bytes, then read failed", errno);
    if (n == 0) {
      throw_error(ErrorCode::os_error, "store stream: the peer closed the stream after " + std::to_string(done_before + got) +
                                           " of " + std::to_string(total) + " bytes");
    }
    got += static_cast<std::uint64_t>(n);
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

}  // namespace

void Store::send(int fd, const std::vector<Object>& objects) {
  Catalogue catalogue;
  detail::check_objects(objects, catalogue);
  std::vector<const std::uint64_t*> words;
  std::uint64_t end = detail::header_bytes;
  for (const Object& object : objects) {
    ObjectEntry entry;
    entry.name = object.name;
    auto add = [&](const SmartArray& array, const std::string& name) {
      const Outgoing out = plan_block(array, name, end);
      catalogue.blocks.push_back(out.block);
      words.push_back(out.words);
      return static_cast<std::uint32_t>(catalogue.blocks.size() - 1);
    };
    if (object.array != nullptr) {
      entry.kind = detail::object_kind_array;
      entry.blocks[0] = add(*object.array, "array " + util::quoted(object.name));
    } else {
      const graph::CsrGraph& g = *object.graph;
      entry.kind = detail::object_kind_graph;
      entry.directed = g.directed();
      entry.vertices = g.vertices();
      entry.edges = g.edges();
      entry.variant = static_cast<std::uint32_t>(g.variant());
      for (std::size_t k = 0; k < detail::graph_blocks; ++k) {
        const auto which = static_cast<graph::GraphArray>(k);
        entry.blocks[k] = add(g.array(which), "graph " + util::quoted(object.name) + " array " + graph::to_string(which));
      }
    }
    catalogue.objects.push_back(std::move(entry));
  }
  const std::uint64_t directory_offset = align_up(end, 8);
  const std::vector<std::uint8_t> directory = detail::encode_directory(catalogue);
  const auto trailer = detail::encode_trailer(directory_offset, directory);
  const auto header = detail::encode_header();
  const std::uint64_t length = directory_offset + directory.size() + trailer.size();
  const auto pre = preamble(length);
  std::vector<iovec> pieces;
  add_piece(pieces, pre.data(), pre.size());
  add_piece(pieces, header.data(), header.size());
  std::uint64_t at = header.size();
  for (std::size_t i = 0; i < catalogue.blocks.size(); ++i) {
    const BlockEntry& b = catalogue.blocks[i];
    add_zeros(pieces, b.offset - at);
    add_piece(pieces, words[i], b.byte_length - 8);
    add_piece(pieces, zeros, 8);
    at = b.offset + b.byte_length;
  }
  add_zeros(pieces, directory_offset - at);
  add_piece(pieces, directory.data(), directory.size());
  add_piece(pieces, trailer.data(), trailer.size());
  const SigpipeHeld held;
  write_all(fd, std::move(pieces), preamble_bytes + length);
}

void Store::send_file(int fd, const std::string& path) {
  std::uint64_t length = 0;
  {
    const os::MappedFile mapped = os::MappedFile::open(path);
    length = detail::read_catalogue(mapped.data(), mapped.size()).committed_bytes;
  }
  const int in = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) fail("cannot open " + util::quoted(path, 256), errno);
  const std::unique_ptr<int, void (*)(int*)> closer(new int(in), [](int* f) {
    ::close(*f);
    delete f;
  });
  const SigpipeHeld held;
  const auto pre = preamble(length);
  write_all(fd, {{const_cast<std::uint8_t*>(pre.data()), pre.size()}}, preamble_bytes + length);
  off_t offset = 0;
  while (static_cast<std::uint64_t>(offset) < length) {
    const std::size_t chunk = static_cast<std::size_t>(std::min<std::uint64_t>(length - static_cast<std::uint64_t>(offset), std::uint64_t{1} << 30));
    const ssize_t n = ::sendfile(fd, in, &offset, chunk);
    if (n < 0 && errno == EINTR) {
      runtime::check_interrupt();
      continue;
    }
    if (n < 0) {
      fail("sent " + std::to_string(preamble_bytes + static_cast<std::uint64_t>(offset)) + " of " +
               std::to_string(preamble_bytes + length) + " bytes of " + util::quoted(path, 256) + ", then sendfile failed",
           errno);
    }
    if (n == 0) throw_error(ErrorCode::os_error, "store stream: " + util::quoted(path, 256) + " became shorter while it was sent");
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

Store Store::receive(int fd, const ReceiveOptions& options) {
  std::array<std::uint8_t, preamble_bytes> pre{};
  const std::uint64_t limit = options.max_bytes != 0 ? options.max_bytes : os::memory_limit().bytes;
  read_exactly(fd, pre.data(), pre.size(), 0, preamble_bytes);
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
  if (length > limit) {
    throw_error(ErrorCode::invalid_argument, "store stream: the stream announces " + util::format_bytes(length) +
                                                 ", more than the " + util::format_bytes(limit) + " accepted");
  }
  const ArrayOptions& placement = options.placement;
  auto region = std::make_shared<os::MemoryRegion>(
      os::MemoryRegion::allocate(static_cast<std::size_t>(length), region_options(placement)));
  auto* data = static_cast<std::uint8_t*>(region->data());
  read_exactly(fd, data, length, preamble_bytes, preamble_bytes + length);
  const Catalogue catalogue = detail::read_catalogue(data, static_cast<std::size_t>(length));
  if (catalogue.committed_bytes != length) {
    throw_error(ErrorCode::invalid_argument, "store stream: " + std::to_string(length - catalogue.committed_bytes) +
                                                 " bytes follow the trailer at offset " +
                                                 std::to_string(catalogue.committed_bytes - detail::trailer_bytes));
  }
  const std::shared_ptr<const void> owner = region;
  auto array_of = [&](const ObjectEntry& object, std::size_t k) {
    const BlockEntry& b = catalogue.blocks[object.blocks[k]];
    if (options.verify_blocks) {
      const std::uint32_t crc = detail::crc32c(data + b.offset, b.byte_length);
      if (crc != b.crc) {
        throw_error(ErrorCode::invalid_argument,
                    "store stream: " + std::string(detail::object_kind_name(object.kind)) + " " + util::quoted(object.name) +
                        ": the block at offset " + std::to_string(b.offset) + " has checksum " + std::to_string(crc) +
                        ", the directory says " + std::to_string(b.crc) + " (the stream is corrupt)");
      }
    }
    return SmartArray::over_region(b.length, b.bits, os::MemoryRegion::borrow(data + b.offset, b.byte_length, owner));
  };
  auto state = std::make_unique<State>();
  state->mode = Mode::load;
  for (const ObjectEntry& object : catalogue.objects) {
    State::Entry entry{object.name, static_cast<ObjectKind>(object.kind), std::nullopt, nullptr};
    if (object.kind == detail::object_kind_array) {
      entry.array.emplace(array_of(object, 0));
    } else {
      std::array<SmartArray, graph::graph_array_count> arrays{array_of(object, 0), array_of(object, 1), array_of(object, 2),
                                                              array_of(object, 3), array_of(object, 4)};
      try {
        entry.graph = std::make_unique<graph::CsrGraph>(std::move(arrays), object.directed);
      } catch (const Error& e) {
        throw_error(ErrorCode::invalid_argument, "store stream: graph " + util::quoted(object.name) + " (entry at offset " +
                                                     std::to_string(object.entry_offset) + "): " + e.what());
      }
    }
    state->entries.push_back(std::move(entry));
  }
  return Store(std::move(state));
}

}  // namespace smartarrays::store
