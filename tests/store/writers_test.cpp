// Tests what docs/compact-format.md promises of writers and readers sharing a store file: appends
// from many threads and processes lose nothing (the writer lock), a writer that cannot get the lock
// fails naming the file and changes nothing, an append that waited for a replacement lands in the
// new file, a failed append (a full disk, an interrupt) leaves the file byte for byte as committed,
// and on a full tmpfs or ext4 every reader still reads the store, a sparse dead tail included.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "smartarrays/error.hpp"
#include "smartarrays/graph/build.hpp"
#include "smartarrays/graph/generators.hpp"
#include "smartarrays/runtime/interrupt.hpp"
#include "smartarrays/store/store.hpp"
#include "store_support.hpp"
#include "support/file_size_limit.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"

namespace smartarrays {
namespace {

using store::Mode;
using store::Store;

// The writer lock of docs/compact-format.md: byte 2^62, an open-file-description lock.
constexpr off_t writer_lock_byte = off_t{1} << 62;

std::vector<std::uint64_t> values_for(std::uint64_t seed, std::size_t n) {
  std::vector<std::uint64_t> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = (seed * 1000003 + i * 7) % 100000;
  return values;
}

// "prefix<a>-<b>" (appended to, not concatenated: gcc 12 warns falsely on "t" + to_string in a lambda).
std::string object_name(const char* prefix, int a, int b) {
  std::string name(prefix);
  name.append(std::to_string(a)).append("-").append(std::to_string(b));
  return name;
}

std::vector<std::uint64_t> read_all(const SmartArray& array) {
  std::vector<std::uint64_t> out(array.length());
  array.decode(0, out.size(), out.data());
  return out;
}

// Holds the writer lock of path as another writer would, through its own descriptor.
class ForeignWriter {
 public:
  explicit ForeignWriter(const std::string& path) : fd_(::open(path.c_str(), O_RDWR | O_CLOEXEC)) {
    struct flock request {};
    request.l_type = F_WRLCK;
    request.l_whence = SEEK_SET;
    request.l_start = writer_lock_byte;
    request.l_len = 1;
    EXPECT_EQ(::fcntl(fd_, F_OFD_SETLK, &request), 0);
  }
  ~ForeignWriter() { ::close(fd_); }
  ForeignWriter(const ForeignWriter&) = delete;
  ForeignWriter& operator=(const ForeignWriter&) = delete;

 private:
  int fd_;
};

TEST(StoreWriters, ThreadsAppendingToOneFileLoseNothing) {
  test::ScratchFile file("threads");
  Store::write(file.path(), {{"first", SmartArray::from_values(values_for(0, 100), {})}});
  constexpr int threads = 4;
  constexpr int appends = 8;
  std::vector<std::thread> writers;
  for (int t = 0; t < threads; ++t) {
    writers.emplace_back([&file, t] {
      for (int i = 0; i < appends; ++i) {
        const std::uint64_t seed = static_cast<std::uint64_t>(t * appends + i + 1);
        Store::append(file.path(), {{object_name("t", t, i),
                                     SmartArray::from_values(values_for(seed, 500 + seed), {})}});
      }
    });
  }
  for (std::thread& w : writers) w.join();
  const Store opened = Store::open(file.path(), Mode::map);
  EXPECT_EQ(opened.names().size(), std::size_t{1 + threads * appends});
  for (int t = 0; t < threads; ++t) {
    for (int i = 0; i < appends; ++i) {
      const std::uint64_t seed = static_cast<std::uint64_t>(t * appends + i + 1);
      EXPECT_EQ(read_all(opened.array(object_name("t", t, i))), values_for(seed, 500 + seed));
    }
  }
  EXPECT_TRUE(store::verify(file.path(), true).ok());
  EXPECT_EQ(opened.uncommitted_bytes(), 0u);
}

TEST(StoreWriters, ProcessesAppendingToOneFileLoseNothing) {
  const test::ScratchDir dir;
  const std::string store_path = dir.file("shared.sa");
  const std::string edges = dir.write("g.el", "0 1\n1 2\n2 0\n2 3\n");
  Store::write(store_path, {{"first", SmartArray::from_values(values_for(0, 10), {})}});
  constexpr int processes = 4;
  constexpr int appends = 6;
  // Four shells append in turn as fast as they can; a failed append prints its name.
  const std::string failures = dir.file("failures");
  const std::string script = "(for p in 0 1 2 3; do (for i in 0 1 2 3 4 5; do " + std::string(SMARTARRAYS_CLI_PATH) +
                             " store append '" + store_path + "' '" + edges +
                             "' --name g$p-$i >/dev/null 2>&1 || echo failed g$p-$i; done) & done; wait) >'" + failures + "'";
  ASSERT_EQ(std::system(script.c_str()), 0);
  EXPECT_EQ(test::read_file(failures), "");
  const Store opened = Store::open(store_path, Mode::map);
  EXPECT_EQ(opened.names().size(), std::size_t{1 + processes * appends});
  for (int p = 0; p < processes; ++p) {
    for (int i = 0; i < appends; ++i) {
      const graph::CsrGraph& g = opened.graph(object_name("g", p, i));
      EXPECT_EQ(g.vertices(), 4u);
      EXPECT_EQ(g.edges(), 4u);
    }
  }
  EXPECT_TRUE(store::verify(store_path, true).ok());
}

TEST(StoreWriters, AWriterThatCannotGetTheLockFailsNamingTheFileAndChangesNothing) {
  const test::ScratchDir dir;
  const std::string store_path = dir.file("held.sa");
  const std::string edges = dir.write("g.el", "0 1\n");
  Store::write(store_path, {{"first", SmartArray::from_values(values_for(0, 10), {})}});
  const std::vector<std::uint8_t> before = test::read_bytes(store_path);
  {
    const ForeignWriter holder(store_path);
    const test::CliRun run = test::run_cli("store append '" + store_path + "' '" + edges + "' --name late",
                                           dir.file("err"), "SMARTARRAYS_STORE_LOCK_WAIT=1");
    EXPECT_EQ(run.exit_code, 1);
    EXPECT_NE(run.err.find("is being written by another writer"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find(store_path), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("SMARTARRAYS_STORE_LOCK_WAIT"), std::string::npos) << run.err;
    EXPECT_EQ(test::read_bytes(store_path), before);
  }
  const test::CliRun run = test::run_cli("store append '" + store_path + "' '" + edges + "' --name late", dir.file("err"),
                                         "SMARTARRAYS_STORE_LOCK_WAIT=1");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(Store::open(store_path, Mode::map).contains("late"));
}

TEST(StoreWriters, AnAppendThatWaitedWhileTheFileWasReplacedLandsInTheNewFile) {
  const test::ScratchDir dir;
  const std::string store_path = dir.file("replaced.sa");
  const std::string replacement = dir.file("replacement.sa");
  Store::write(store_path, {{"old", SmartArray::from_values(values_for(1, 10), {})}});
  Store::write(replacement, {{"new", SmartArray::from_values(values_for(2, 10), {})}});
  std::thread appender;
  {
    const ForeignWriter holder(store_path);
    appender = std::thread([&] { Store::append(store_path, {{"appended", SmartArray::from_values(values_for(3, 10), {})}}); });
    // The appender is waiting for the lock of the old file when the new one takes its name.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::filesystem::rename(replacement, store_path);
  }
  appender.join();
  const Store opened = Store::open(store_path, Mode::map);
  EXPECT_TRUE(opened.contains("new"));
  EXPECT_FALSE(opened.contains("old"));
  EXPECT_EQ(read_all(opened.array("appended")), values_for(3, 10));
}

TEST(StoreWriters, AFailedOrInterruptedAppendLeavesTheFileAsCommitted) {
  test::ScratchFile file("rollback");
  Store::write(file.path(), {{"kept", SmartArray::from_values(values_for(4, 1000), {})}});
  const std::vector<std::uint8_t> before = test::read_bytes(file.path());
  const SmartArray big = SmartArray::from_values(values_for(5, 1 << 20), {});
  {
    // Room for part of the block only: a write fails halfway, as on a full disk.
    const test::FileSizeLimit limit(before.size() + (256 << 10));
    try {
      Store::append(file.path(), {{"big", big}});
      ADD_FAILURE() << "the append past the file size limit succeeded";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::os_error) << e.what();
      EXPECT_NE(std::string(e.what()).find(file.path()), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(test::read_bytes(file.path()), before);
  {
    const runtime::InterruptScope interrupted([] { return true; });
    EXPECT_THROW(Store::append(file.path(), {{"big", big}}), Error);
  }
  EXPECT_EQ(test::read_bytes(file.path()), before);
  Store::append(file.path(), {{"big", big}});
  const Store opened = Store::open(file.path(), Mode::load);
  EXPECT_EQ(read_all(opened.array("kept")), values_for(4, 1000));
  EXPECT_EQ(opened.array("big").sum(), big.sum());
}

// A small file system of its own, mounted for the test (root only: skipped elsewhere, and always run
// in CI, which runs as root), filled to the last byte by a filler file.
class FullFileSystem : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    mount_point_ = dir_.file("mnt");
    std::filesystem::create_directories(mount_point_);
    const std::string type = GetParam();
    std::string command;
    if (type == "tmpfs") {
      command = "mount -t tmpfs -o size=8m tmpfs '" + mount_point_ + "'";
    } else {
      const std::string image = dir_.file("ext4.img");
      command = "truncate -s 16M '" + image + "' && mkfs.ext4 -q -F '" + image + "' && mount -o loop '" + image + "' '" +
                mount_point_ + "'";
    }
    if (::geteuid() != 0 || std::system((command + " 2>/dev/null").c_str()) != 0) {
      GTEST_SKIP() << "cannot mount a " << type << " file system here (needs root and " << (type == "ext4" ? "loop devices" : "tmpfs") << ")";
    }
    mounted_ = true;
    path_ = mount_point_ + "/store.sa";
  }
  void TearDown() override {
    if (mounted_) {
      EXPECT_EQ(std::system(("umount '" + mount_point_ + "'").c_str()), 0);
    }
  }

  // Writes zeros to a filler file until the file system refuses more.
  void fill_up() const {
    std::ofstream filler(mount_point_ + "/filler", std::ios::binary);
    const std::vector<char> zeros(1 << 16, 1);
    while (filler.write(zeros.data(), static_cast<std::streamsize>(zeros.size()))) {
    }
  }

  // Every reader of the project reads the store: mapped, loaded, described, verified, by the command.
  void expect_readable(const std::vector<std::uint64_t>& kept, std::uint64_t uncommitted) const {
    for (Mode mode : {Mode::map, Mode::load}) {
      const Store opened = Store::open(path_, mode);
      EXPECT_EQ(read_all(opened.array("kept")), kept);
      EXPECT_EQ(opened.uncommitted_bytes(), uncommitted);
    }
    EXPECT_EQ(store::describe(path_).uncommitted_bytes, uncommitted);
    EXPECT_TRUE(store::verify(path_, true).ok());
    const test::CliRun run = test::run_cli("store verify '" + path_ + "' --deep", dir_.file("err"));
    EXPECT_EQ(run.exit_code, 0) << run.err;
  }

  test::ScratchDir dir_;
  std::string mount_point_;
  std::string path_;
  bool mounted_ = false;
};

TEST_P(FullFileSystem, AnAppendIsRefusedAtOnceAndTheStoreStaysReadable) {
  const std::vector<std::uint64_t> kept = values_for(6, 20000);
  Store::write(path_, {{"kept", SmartArray::from_values(kept, {})}});
  const std::uintmax_t size = std::filesystem::file_size(path_);
  fill_up();
  const SmartArray big = SmartArray::from_values(values_for(7, 1 << 20), {});
  try {
    Store::append(path_, {{"big", big}});
    ADD_FAILURE() << "an append to a full file system succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::os_error) << e.what();
    EXPECT_NE(std::string(e.what()).find(path_), std::string::npos) << e.what();
  }
  EXPECT_EQ(std::filesystem::file_size(path_), size);
  expect_readable(kept, 0);
  // A replacement on the full file system fails the same way and keeps the old file.
  EXPECT_THROW(Store::write(path_, {{"big", big}}), Error);
  expect_readable(kept, 0);
  std::filesystem::remove(mount_point_ + "/filler");
  Store::append(path_, {{"big", big}});
  EXPECT_EQ(Store::open(path_, Mode::map).array("big").sum(), big.sum());
}

TEST_P(FullFileSystem, ASparseDeadTailOnAFullFileSystemIsNeverRead) {
  // What an append of an older version left after failing on a full disk: a sparse uncommitted tail.
  const std::vector<std::uint64_t> kept = values_for(8, 20000);
  Store::write(path_, {{"kept", SmartArray::from_values(kept, {})}});
  const std::uintmax_t size = std::filesystem::file_size(path_);
  std::filesystem::resize_file(path_, size + (8 << 20));
  fill_up();
  expect_readable(kept, 8 << 20);
  std::filesystem::remove(mount_point_ + "/filler");
  Store::append(path_, {{"more", SmartArray::from_values(values_for(9, 100), {})}});
  expect_readable(kept, 0);
}

INSTANTIATE_TEST_SUITE_P(Stores, FullFileSystem, ::testing::Values("tmpfs", "ext4"),
                         [](const ::testing::TestParamInfo<const char*>& param) { return std::string(param.param); });

}  // namespace
}  // namespace smartarrays
