// Tests opening a path and reading it (os/open_file.hpp): a path holding a NUL byte is refused
// before the system sees the shorter path; a reader that needs a regular file refuses a FIFO, a
// device or a folder at once instead of waiting for a FIFO's writer; a stream reader takes a FIFO;
// a signal that interrupts an open waiting on a FIFO stops it as Error(cancelled); reads at offsets
// leave the file offset alone and come short only at the end; a signal that cuts a read short stops
// it only when the installed check says so; failures name the path quoted.
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <fstream>
#include <string>
#include <utility>
#include <thread>

#include "os/open_file.hpp"
#include "os/output_file.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/os/mapped_file.hpp"
#include "support/scratch_dir.hpp"

namespace smartarrays::os {
namespace {

// A FIFO in a scratch folder, and while it lives SIGUSR1 handled without SA_RESTART (as the
// command's and Python's handlers are), so a system call waiting on the FIFO that the signal
// interrupts returns EINTR.
struct InterruptibleFifo {
  test::ScratchDir folder;
  std::string path = folder.file("fifo");
  struct sigaction old {};
  InterruptibleFifo() {
    EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0);
    struct sigaction action {};
    action.sa_handler = [](int) {};
    ::sigaction(SIGUSR1, &action, &old);
  }
  ~InterruptibleFifo() { ::sigaction(SIGUSR1, &old, nullptr); }
  InterruptibleFifo(const InterruptibleFifo&) = delete;
  InterruptibleFifo& operator=(const InterruptibleFifo&) = delete;
};

namespace fs = std::filesystem;

// The message and code of the Error f throws, or an empty message when it throws none.
template <typename F>
std::pair<std::string, ErrorCode> error_of_or_none(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return {e.what(), e.code()};
  }
  return {"", ErrorCode::internal};
}

// The message and code of the Error f throws; fails the test when it throws none.
template <typename F>
std::pair<std::string, ErrorCode> error_of(F&& f) {
  std::pair<std::string, ErrorCode> error = error_of_or_none(std::forward<F>(f));
  if (error.first.empty()) ADD_FAILURE() << "expected an error";
  return error;
}

TEST(OpenFile, APathHoldingANulByteIsRefusedAndNoShorterPathIsUsed) {
  const test::ScratchDir folder;
  const std::string shorter = folder.file("z");
  std::ofstream(shorter) << "the file a cut path would name";
  const std::string with_nul = shorter + std::string("\0.sa", 4);
  for (const InputKind kind : {InputKind::stream, InputKind::regular}) {
    const auto [message, code] = error_of([&] { InputFile::open(with_nul, kind); });
    EXPECT_EQ(code, ErrorCode::invalid_argument);
    EXPECT_NE(message.find("z\\x00.sa': a path cannot hold a NUL byte"), std::string::npos) << message;
  }
  EXPECT_EQ(error_of([&] { MappedFile::open(with_nul); }).second, ErrorCode::invalid_argument);
  const std::string new_file = folder.file("new") + std::string("\0.sa", 4);
  EXPECT_EQ(error_of([&] { OutputFile out(new_file); }).second, ErrorCode::invalid_argument);
  EXPECT_EQ(error_of([&] { File out(new_file, O_WRONLY | O_CREAT, 0666); }).second, ErrorCode::invalid_argument);
  EXPECT_FALSE(fs::exists(folder.file("new")));
}

TEST(OpenFile, ARegularReaderRefusesAFifoADeviceAndAFolderWithoutWaiting) {
  const test::ScratchDir folder;
  const std::string fifo = folder.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // No writer ever opens the FIFO: a blocking open would never return (ctest's timeout would fail it).
  for (const std::string& path : {fifo, std::string("/dev/zero"), folder.file("")}) {
    const auto [message, code] = error_of([&] { InputFile::open(path, InputKind::regular); });
    EXPECT_EQ(code, ErrorCode::invalid_argument) << path;
    EXPECT_NE(message.find("' is not a regular file"), std::string::npos) << message;
    EXPECT_EQ(error_of([&] { MappedFile::open(path); }).second, ErrorCode::invalid_argument) << path;
  }
}

TEST(OpenFile, ARegularFileOpensWithItsSizeAndReadsAsAPlainDescriptor) {
  const test::ScratchDir folder;
  const std::string path = folder.file("data");
  std::ofstream(path) << "12345";
  InputFile file = InputFile::open(path, InputKind::regular);
  EXPECT_TRUE(file.regular());
  EXPECT_EQ(file.size(), 5u);
  EXPECT_EQ(::fcntl(file.descriptor(), F_GETFL) & O_NONBLOCK, 0);
  const int fd = file.release();
  EXPECT_EQ(file.descriptor(), -1);
  char bytes[8] = {};
  EXPECT_EQ(::read(fd, bytes, sizeof bytes), 5);
  ::close(fd);
}

TEST(OpenFile, AStreamReaderTakesAFifoOnceItsWriterComes) {
  const test::ScratchDir folder;
  const std::string fifo = folder.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] { std::ofstream(fifo) << "1 2\n"; });
  const InputFile file = InputFile::open(fifo, InputKind::stream);
  EXPECT_FALSE(file.regular());
  EXPECT_EQ(file.size(), 0u);
  char bytes[8] = {};
  EXPECT_EQ(::read(file.descriptor(), bytes, sizeof bytes), 4);
  writer.join();
}

TEST(OpenFile, ASignalWhileWaitingForAFifosWriterStopsTheOpenAsAnInterruption) {
  const InterruptibleFifo interruptible;  // the open returns EINTR
  const std::string& fifo = interruptible.path;
  std::atomic<bool> done{false};
  std::pair<std::string, ErrorCode> result;
  std::thread thread([&] {
    result = error_of([&] { InputFile::open(fifo, InputKind::stream); });
    done = true;
  });
  const pthread_t opener = thread.native_handle();
  // Signal until the open has returned (the first signal may come before the thread waits in it).
  for (int attempt = 0; attempt < 500 && !done; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ::pthread_kill(opener, SIGUSR1);
  }
  if (!done) std::ofstream(fifo) << "";  // let a stuck open return so the test fails instead of hanging
  thread.join();
  EXPECT_EQ(result.second, ErrorCode::cancelled) << result.first;
  EXPECT_NE(result.first.find("interrupted while waiting to open '"), std::string::npos) << result.first;
}

TEST(OpenFile, AMissingFileIsAnOsErrorNamingThePathQuoted) {
  const test::ScratchDir folder;
  const std::string path = folder.file("missing\x1b[2J.el");
  const auto [message, code] = error_of([&] { InputFile::open(path, InputKind::stream); });
  EXPECT_EQ(code, ErrorCode::os_error);
  EXPECT_NE(message.find("cannot open '"), std::string::npos) << message;
  EXPECT_NE(message.find("missing\\x1b[2J.el': No such file or directory"), std::string::npos) << message;
}

TEST(OpenFile, ReadsAtOffsetsLeaveTheFileOffsetAloneAndComeShortOnlyAtTheEnd) {
  const test::ScratchDir folder;
  const std::string path = folder.file("digits");
  std::ofstream(path) << "0123456789";
  const InputFile file = InputFile::open(path, InputKind::regular);
  EXPECT_EQ(file.path(), path);
  char bytes[16] = {};
  ASSERT_EQ(file.read_at(3, bytes, 4), 4u);
  EXPECT_EQ(std::string(bytes, 4), "3456");
  ASSERT_EQ(file.read_at(8, bytes, 4), 2u) << "the file ends after 2";
  EXPECT_EQ(std::string(bytes, 2), "89");
  EXPECT_EQ(file.read_at(10, bytes, 4), 0u);
  EXPECT_EQ(file.read_at(std::uint64_t{1} << 40, bytes, 4), 0u);
  // The reads at offsets moved nothing: read() starts at the beginning.
  ASSERT_EQ(file.read(bytes, sizeof bytes), 10u);
  EXPECT_EQ(std::string(bytes, 10), "0123456789");
  EXPECT_EQ(file.read(bytes, sizeof bytes), 0u);
}

TEST(OpenFile, AFailedReadIsAnOsErrorNamingThePathQuoted) {
  const test::ScratchDir folder;
  // A folder opens for reading as a stream; reading it fails (EISDIR).
  const InputFile file = InputFile::open(folder.file(""), InputKind::stream);
  char byte = 0;
  for (const auto& read : {std::function<void()>([&] { file.read(&byte, 1); }),
                           std::function<void()>([&] { file.read_at(0, &byte, 1); })}) {
    const auto [message, code] = error_of(read);
    EXPECT_EQ(code, ErrorCode::os_error);
    EXPECT_NE(message.find("cannot read '" + folder.file("") + "': Is a directory"), std::string::npos) << message;
  }
}

std::atomic<int> stop_checks{0};
std::atomic<bool> stop_when_signalled{false};

// The installed check of the test below: counts its calls, stops when told to.
bool counting_check() {
  ++stop_checks;
  return stop_when_signalled.load();
}

TEST(OpenFile, ASignalThatCutsAReadShortStopsItOnlyWhenTheCheckSaysSo) {
  const InterruptibleFifo interruptible;  // the read returns EINTR
  const std::string& fifo = interruptible.path;
  set_signal_stop_check(counting_check);
  for (const bool stop : {false, true}) {
    SCOPED_TRACE(stop ? "the check stops" : "the check retries");
    stop_checks = 0;
    stop_when_signalled = stop;
    // The writer end stays open and silent until the reader was signalled at least once.
    std::thread writer([&] {
      std::ofstream out(fifo);
      while (stop_checks == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      out << "x" << std::flush;
    });
    // Opened before any signal (the open waits for the writer, and a signal would stop it).
    const InputFile file = InputFile::open(fifo, InputKind::stream);
    std::atomic<bool> done{false};
    std::pair<std::string, ErrorCode> result{"", ErrorCode::internal};
    std::size_t got = 0;
    std::thread reader([&] {
      result = error_of_or_none([&] {
        char byte = 0;
        got = file.read(&byte, 1);
      });
      done = true;
    });
    for (int attempt = 0; attempt < 500 && !done; ++attempt) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      ::pthread_kill(reader.native_handle(), SIGUSR1);
    }
    if (!done) stop_checks = 1;  // let a stuck read end so the test fails instead of hanging
    reader.join();
    const int checks = stop_checks.load();
    if (checks == 0) stop_checks = 1;  // let the writer end
    writer.join();
    EXPECT_GE(checks, 1) << "the read was cut short by a signal";
    if (stop) {
      EXPECT_EQ(result.second, ErrorCode::cancelled) << result.first;
      EXPECT_NE(result.first.find("interrupted while waiting to read '" + fifo + "'"), std::string::npos) << result.first;
    } else {
      EXPECT_EQ(result.first, "") << "retried until the byte came";
      EXPECT_EQ(got, 1u);
    }
  }
  set_signal_stop_check(nullptr);
}

}  // namespace
}  // namespace smartarrays::os
