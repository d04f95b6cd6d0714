// Tests MappedFile::release_pages: the pages wholly inside the range leave the process's resident
// memory (the mapping's Rss in /proc/self/smaps), the contents read back unchanged, and ranges
// past the end or of an empty file are no-ops.
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include "smartarrays/os/mapped_file.hpp"

namespace smartarrays::os {
namespace {

// The resident bytes of the mapping that starts at data, from /proc/self/smaps.
std::uint64_t mapping_rss(const void* data) {
  char start[32];
  std::snprintf(start, sizeof start, "%lx-", reinterpret_cast<unsigned long>(data));
  std::ifstream smaps("/proc/self/smaps");
  bool found = false;
  for (std::string line; std::getline(smaps, line);) {
    if (line.rfind(start, 0) == 0) found = true;
    if (found && line.rfind("Rss:", 0) == 0) return std::stoull(line.substr(4)) * 1024;
  }
  return 0;
}

// The sum of the bytes of file, touching every page.
std::uint64_t sum_of(const MappedFile& file) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < file.size(); ++i) sum += file.data()[i];
  return sum;
}

TEST(MappedFile, ReleasePagesDropsTheWholePagesInsideTheRangeAndKeepsTheContents) {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::string path = ::testing::TempDir() + "mapped_file_test_" + std::to_string(::getpid());
  {
    std::ofstream out(path, std::ios::binary);
    for (std::size_t i = 0; i < 64 * page; ++i) out.put(static_cast<char>(i * 7 + i / page));
  }
  const MappedFile file = MappedFile::open(path);
  const std::uint64_t sum = sum_of(file);
  ASSERT_EQ(mapping_rss(file.data()), 64 * page);
  // Half a page in, 32 pages long: pages 1..31 lie wholly inside, pages 0 and 32 do not.
  file.release_pages(page / 2, 32 * page);
  EXPECT_EQ(mapping_rss(file.data()), 33 * page);
  file.release_pages(64 * page - 1, 1);  // inside the last page only: nothing whole
  EXPECT_EQ(mapping_rss(file.data()), 33 * page);
  file.release_pages(70 * page, page);  // past the end
  file.release_pages(~std::size_t{0}, ~std::size_t{0});
  file.release_pages(63 * page, ~std::size_t{0});  // to the end, however long
  EXPECT_EQ(mapping_rss(file.data()), 32 * page);
  EXPECT_EQ(sum_of(file), sum);  // read back from the file
  EXPECT_EQ(mapping_rss(file.data()), 64 * page);
  MappedFile().release_pages(0, page);  // an empty mapping holds nothing
  std::remove(path.c_str());
}

}  // namespace
}  // namespace smartarrays::os
