// Owns the libFuzzer harness of the graph readers: the input bytes become a file in memory (a
// memfd, read through /proc/self/fd like any path), which load_graph reads in the format this
// binary was built for (SMARTARRAYS_FUZZ_FORMAT) and builds into a CSR. A smartarrays::Error is
// the right answer to bad input; a crash, a sanitizer report, a timeout or memory beyond
// libFuzzer's -rss_limit_mb is a finding.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "smartarrays/error.hpp"
#include "smartarrays/graph/formats.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace {

// One worker: the harness runs one input at a time, and a single thread keeps runs repeatable.
smartarrays::runtime::ThreadPool& pool() {
  static smartarrays::runtime::ThreadPool p(smartarrays::runtime::PoolOptions{.threads = 1});
  return p;
}

// A file holding data, reachable by path, closed on destruction.
class MemoryFile {
 public:
  MemoryFile(const std::uint8_t* data, std::size_t size) : fd_(memfd_create("fuzz-input", 0)) {
    if (fd_ < 0) std::abort();
    for (std::size_t done = 0; done < size;) {
      const ssize_t n = write(fd_, data + done, size - done);
      if (n <= 0) std::abort();
      done += static_cast<std::size_t>(n);
    }
  }
  ~MemoryFile() { close(fd_); }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const MemoryFile file(data, size);
  try {
    const auto format = smartarrays::graph::parse_graph_format(SMARTARRAYS_FUZZ_FORMAT);
    const auto graph = smartarrays::graph::load_graph(file.path(), format, {}, {}, pool());
    graph.validate();
  } catch (const smartarrays::Error&) {
    // Bad input rejected with a message: the expected outcome for most inputs.
  }
  return 0;
}
