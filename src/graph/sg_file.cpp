// Owns the .sg header parser, the one set of messages about a .sg header, the parts' positions and
// reads at byte offsets (sg_file.hpp), and read_sg_header.
#include "graph/sg_file.hpp"

#include <cstring>
#include <limits>

#include "smartarrays/error.hpp"
#include "smartarrays/runtime/interrupt.hpp"

namespace smartarrays::graph {

namespace detail {

namespace {

// The decimal digits of a 128-bit count (a byte size n and m imply can exceed 64 bits).
std::string decimal(unsigned __int128 value) {
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(value % 10)));
    value /= 10;
  } while (value != 0);
  return digits;
}

}  // namespace

SgFile::SgFile(const std::string& path) : file_(os::InputFile::open(path, os::InputKind::regular)) {
  const std::uint64_t size = file_.size();
  if (size < sg_header_bytes) {
    fail(size, "the file has " + std::to_string(size) + " bytes, fewer than its " + std::to_string(sg_header_bytes) +
                   "-byte header");
  }
  unsigned char bytes[sg_header_bytes];
  read(0, bytes, sizeof bytes);
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::memcpy(&m, bytes + 1, sizeof m);
  std::memcpy(&n, bytes + 9, sizeof n);
  if (bytes[0] > 1) fail(0, "directed flag is " + std::to_string(bytes[0]) + " (expected 0 or 1)");
  if (m < 0) fail(1, "edge count " + std::to_string(m) + " is negative");
  if (n < 0) fail(9, "vertex count " + std::to_string(n) + " is negative");
  if (n > std::int64_t{std::numeric_limits<std::int32_t>::max()} + 1) {
    fail(9, "vertex count " + std::to_string(n) + " does not fit GAP's int32 vertex ids");
  }
  header_ = {bytes[0] == 1, static_cast<std::uint64_t>(m), static_cast<std::uint64_t>(n)};
  const unsigned __int128 part = (static_cast<unsigned __int128>(n) + 1) * 8 + static_cast<unsigned __int128>(m) * 4;
  const unsigned __int128 expected = sg_header_bytes + part * (header_.directed ? 2 : 1);
  if (expected == size) return;
  const std::string shape = "n = " + std::to_string(n) + " and m = " + std::to_string(m) +
                            (header_.directed ? " (directed: out- and in-edges)" : " (undirected)");
  if (expected > size) {
    fail(size, "the file is truncated: " + shape + " need " + decimal(expected) + " bytes, it has " + std::to_string(size));
  }
  fail(static_cast<std::uint64_t>(expected),
       std::to_string(size - static_cast<std::uint64_t>(expected)) + " bytes follow the end of the graph (" + shape + ")");
}

SgPart SgFile::out() const noexcept { return {sg_header_bytes, sg_header_bytes + (header_.vertices + 1) * 8}; }

SgPart SgFile::in() const noexcept {
  const SgPart forward = out();
  if (!header_.directed) return forward;
  const std::uint64_t offsets_at = forward.ids_at + header_.edges * 4;
  return {offsets_at, offsets_at + (header_.vertices + 1) * 8};
}

std::string SgFile::where(std::uint64_t offset) const { return path() + ": byte offset " + std::to_string(offset) + ": "; }

void SgFile::fail(std::uint64_t offset, const std::string& message) const {
  throw_error(ErrorCode::invalid_argument, where(offset) + message);
}

bool SgFile::read_at(std::uint64_t offset, void* out, std::uint64_t bytes) const {
  runtime::check_interrupt();
  return file_.read_at(offset, out, bytes) == bytes;
}

void SgFile::read(std::uint64_t offset, void* out, std::uint64_t bytes) const {
  if (!read_at(offset, out, bytes)) fail(offset, "the file ends early");
}

}  // namespace detail

SgHeader read_sg_header(const std::string& path) { return detail::SgFile(path).header(); }

}  // namespace smartarrays::graph
