// Owns the store tests' helpers: scratch files removed after each test, reading and writing whole
// files, patching a store's directory with its checksums recomputed (to build hostile files), a
// graph whose ids lie past its vertex count (what a corrupt but checksum-consistent store holds),
// and a socket pair or pipe to receive a stream's bytes through.
#pragma once

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "codec/crc32c.hpp"
#include "smartarrays/graph/csr_graph.hpp"
#include "smartarrays/store/store.hpp"

namespace smartarrays::test {

/// A path in the temporary folder, removed (with any leftover) on destruction.
class ScratchFile {
 public:
  /// A path unique to this process and tag.
  explicit ScratchFile(const std::string& tag)
      : path_((std::filesystem::temp_directory_path() / ("sa-store-" + std::to_string(::getpid()) + "-" + tag)).string()) {
    std::filesystem::remove(path_);
  }
  ~ScratchFile() { std::filesystem::remove(path_); }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
  /// The path.
  const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
};

/// The bytes of the file at path.
inline std::vector<std::uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Replaces the file at path with bytes.
inline void write_bytes(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

/// Reads a little-endian u64 at offset.
inline std::uint64_t u64_at(const std::vector<std::uint8_t>& bytes, std::size_t offset) {
  std::uint64_t v;
  std::memcpy(&v, bytes.data() + offset, sizeof v);
  return v;
}

/// Writes a little-endian value at offset.
template <typename T>
void put_at(std::vector<std::uint8_t>& bytes, std::size_t offset, T v) {
  std::memcpy(bytes.data() + offset, &v, sizeof v);
}

/// The file offset of the directory of a store whose last 32 bytes are its trailer.
inline std::size_t directory_offset(const std::vector<std::uint8_t>& bytes) { return u64_at(bytes, bytes.size() - 24); }

/// Applies patch to the store's bytes (given the directory's offset), then recomputes the
/// directory checksum and the trailer's, so only the patched fields are wrong.
inline void patch_directory(std::vector<std::uint8_t>& bytes, const std::function<void(std::vector<std::uint8_t>&, std::size_t)>& patch) {
  const std::size_t trailer = bytes.size() - 32;
  const std::size_t dir = directory_offset(bytes);
  patch(bytes, dir);
  const std::uint64_t dir_bytes = u64_at(bytes, trailer + 16);
  put_at<std::uint32_t>(bytes, trailer + 24, codec::crc32c(bytes.data() + dir, dir_bytes));
  put_at<std::uint32_t>(bytes, trailer + 28, codec::crc32c(bytes.data() + trailer, 28));
}

/// The message of a graph_out_of_bounds() read from a store or stream, after "graph 'NAME' (entry at offset N): ".
inline constexpr char out_of_bounds_message[] = "CSR bounds: neighbour id edge[0] = 4294967295 is not below the vertex count 3";

/// A directed graph of 3 vertices whose edge ids (2^32 - 1, 2^31, 3e9) lie past its vertex count,
/// its reverse sound: CsrGraph's constructor checks lengths only, so it is written and sent as is.
inline graph::CsrGraph graph_out_of_bounds() {
  auto values = [](std::vector<std::uint64_t> v, unsigned bits) {
    ArrayOptions options;
    options.bits = bits;
    return SmartArray::from_values(v, options);
  };
  return graph::CsrGraph({values({0, 1, 2, 3}, 64), values({4294967295u, 2147483648u, 3000000000u}, 32),
                          values({0, 1, 2, 3}, 64), values({2, 0, 1}, 32)},
                         true);
}

/// Two connected file descriptors, closed on destruction unless closed before.
struct Channel {
  int fds[2] = {-1, -1};  ///< the two ends
  /// A connected pair of Unix stream sockets.
  static Channel sockets() {
    Channel c;
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, c.fds), 0);
    return c;
  }
  /// A pipe.
  static Channel pipe() {
    Channel c;
    EXPECT_EQ(::pipe(c.fds), 0);  // fds[0] reads, fds[1] writes
    return c;
  }
  /// The end to read.
  int reader() const { return fds[0]; }
  /// The end to write.
  int writer() const { return fds[1]; }
  /// Closes end k (0 or 1) unless it is closed.
  void close_end(int k) {
    if (fds[k] >= 0) ::close(fds[k]);
    fds[k] = -1;
  }
  ~Channel() {
    close_end(0);
    close_end(1);
  }
};

/// What store::Store::receive() makes of bytes written by another thread (which then closes its end).
inline store::Store receive_bytes(const std::vector<std::uint8_t>& bytes, const store::ReceiveOptions& options = {}) {
  Channel c = Channel::sockets();
  std::thread writer([&] {
    std::size_t done = 0;
    while (done < bytes.size()) {
      // MSG_NOSIGNAL: a receiver that refuses the stream before reading it closes its end.
      const ssize_t n = ::send(c.writer(), bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    c.close_end(1);
  });
  try {
    store::Store s = store::Store::receive(c.reader(), options);
    writer.join();
    return s;
  } catch (...) {
    c.close_end(0);
    writer.join();
    throw;
  }
}

}  // namespace smartarrays::test
