// Tests OutputFile, the one way the library writes an output file: the path shows the new contents
// only after commit(); a destruction without commit, or a write that fails (a full disk, simulated
// by the file size limit), leaves the old file or none, and no staged file behind; an old file's
// permission bits stay; a symbolic link stays a link to the new contents; a FIFO is written in place,
// and a descriptor's name (/dev/fd/N) through the descriptor.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "os/output_file.hpp"
#include "smartarrays/error.hpp"
#include "support/file_size_limit.hpp"
#include "support/scratch_dir.hpp"

namespace smartarrays::os {
namespace {

namespace fs = std::filesystem;


std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void put(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

void write_text(OutputFile& out, const std::string& text) { out.write(text.data(), text.size()); }

TEST(OutputFile, ThePathShowsTheNewContentsOnlyAfterCommit) {
  const test::ScratchDir folder;
  const std::string path = folder.file("out.txt");
  put(path, "old");
  OutputFile out(path);
  write_text(out, "new contents");
  EXPECT_EQ(contents(path), "old") << "the path is untouched while the file is written";
  EXPECT_EQ(folder.names().size(), 2u) << "the staged file lies beside it";
  out.commit();
  EXPECT_EQ(contents(path), "new contents");
  EXPECT_EQ(folder.names(), std::vector<std::string>{"out.txt"});
}

TEST(OutputFile, ADestructionWithoutCommitLeavesTheOldFileOrNone) {
  const test::ScratchDir folder;
  const std::string old_path = folder.file("old.txt");
  put(old_path, "old");
  {
    OutputFile out(old_path);
    write_text(out, "half of it");
  }
  {
    OutputFile out(folder.file("new.txt"));
    write_text(out, "half of it");
  }
  EXPECT_EQ(contents(old_path), "old");
  EXPECT_EQ(folder.names(), std::vector<std::string>{"old.txt"}) << "no staged file and no new file remain";
}

TEST(OutputFile, AFullDiskFailsNamingThePathAndKeepsTheOldFile) {
  const test::ScratchDir folder;
  const std::string path = folder.file("graph.el");
  put(path, "old graph");
  const std::string big(1 << 20, 'x');
  try {
    OutputFile out(path);
    const test::FileSizeLimit full(64 << 10);
    write_text(out, big);
    out.commit();
    ADD_FAILURE() << "expected the write past the limit to fail";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::os_error);
    const std::string message = e.what();
    EXPECT_NE(message.find("cannot write '" + path + "'"), std::string::npos) << message;
    EXPECT_EQ(message.find(".partial"), std::string::npos) << "messages name the user's path: " << message;
  }
  EXPECT_EQ(contents(path), "old graph");
  EXPECT_EQ(folder.names(), std::vector<std::string>{"graph.el"});
}

TEST(OutputFile, AnOldFilesPermissionBitsStay) {
  const test::ScratchDir folder;
  const std::string path = folder.file("private.txt");
  put(path, "old");
  ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
  OutputFile out(path);
  write_text(out, "new");
  out.commit(Durability::synced);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(contents(path), "new");
}

TEST(OutputFile, ASymbolicLinkStaysALinkToTheNewContents) {
  const test::ScratchDir folder;
  const std::string target = folder.file("real.txt");
  const std::string link = folder.file("link.txt");
  put(target, "old");
  fs::create_symlink(target, link);
  OutputFile out(link);
  write_text(out, "new");
  out.commit();
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(contents(target), "new");
  EXPECT_EQ(folder.names(), (std::vector<std::string>{"link.txt", "real.txt"}));
  // A link to no file yet creates the file it names.
  const std::string dangling = folder.file("dangling.txt");
  fs::create_symlink("later.txt", dangling);
  OutputFile later(dangling);
  write_text(later, "created");
  later.commit();
  EXPECT_TRUE(fs::is_symlink(dangling));
  EXPECT_EQ(contents(folder.file("later.txt")), "created");
}

TEST(OutputFile, AFifoIsWrittenInPlace) {
  const test::ScratchDir folder;
  const std::string fifo = folder.file("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  OutputFile out(fifo);
  write_text(out, "through the pipe");
  out.commit(Durability::synced);  // a pipe holds nothing to sync
  char text[64] = {};
  EXPECT_EQ(::read(reader, text, sizeof text), 16);
  EXPECT_EQ(std::string(text), "through the pipe");
  ::close(reader);
  struct stat st {};
  ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was not replaced by a file";
  EXPECT_EQ(folder.names(), std::vector<std::string>{"pipe"});
}

TEST(OutputFile, ADescriptorsNameIsWrittenThroughTheDescriptorAtItsOffset) {
  const test::ScratchDir folder;
  const std::string path = folder.file("redirected.txt");
  put(path, "");
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "kept\n", 5), 5);
  for (const std::string& name : {"/dev/fd/" + std::to_string(fd), "/proc/self/fd/" + std::to_string(fd)}) {
    OutputFile out(name);
    write_text(out, "data\n");
    out.commit();
  }
  ::close(fd);
  EXPECT_EQ(contents(path), "kept\ndata\ndata\n") << "appended, not truncated nor replaced";
  EXPECT_EQ(folder.names(), std::vector<std::string>{"redirected.txt"});
}

TEST(OutputFile, TwoWritersOfOnePathStageApartAndTheLastCommitWins) {
  const test::ScratchDir folder;
  const std::string path = folder.file("out.txt");
  OutputFile first(path);
  OutputFile second(path);
  write_text(first, "first");
  write_text(second, "second");
  first.commit();
  EXPECT_EQ(contents(path), "first");
  second.commit();
  EXPECT_EQ(contents(path), "second");
  EXPECT_EQ(folder.names(), std::vector<std::string>{"out.txt"});
}

TEST(OutputFile, StagedNamesAKilledProcessOfTheSamePidLeftArePassedOver) {
  const test::ScratchDir folder;
  const std::string path = folder.file("out.txt");
  for (int k = 0; k < 200; ++k) put(path + ".partial-" + std::to_string(::getpid()) + "-" + std::to_string(k), "left");
  OutputFile out(path);
  write_text(out, "new");
  out.commit();
  EXPECT_EQ(contents(path), "new");
  EXPECT_EQ(folder.names().size(), 201u) << "the leftovers are not this writer's to remove";
}

TEST(OutputFile, ErrorsNameThePath) {
  const test::ScratchDir folder;
  EXPECT_THROW(OutputFile(folder.file("no-such-folder/out.txt")), Error);
  try {
    OutputFile out(folder.file("no-such-folder/out.txt"));
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::os_error);
    EXPECT_NE(std::string(e.what()).find("cannot create '" + folder.file("no-such-folder/out.txt") + "'"), std::string::npos)
        << e.what();
  }
  try {
    OutputFile out(folder.file(""));
    ADD_FAILURE() << "expected an error for a folder";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Is a directory"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace smartarrays::os
