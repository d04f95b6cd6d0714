// Owns the byte layout of store files (docs/compact-format.md): the header, block descriptors,
// directory and trailer as constants and structs, their little-endian encoding, and the reader
// that checks every size and offset of an untrusted file before anything uses it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace smartarrays::store::detail {

/// Version 2 writes no out_degree block (graph slot 4 is no_block); version 1 files, whose slot 4
/// names an out_degree block of n values, are read with that block checked and skipped.
inline constexpr std::uint32_t format_version = 2;
inline constexpr std::uint32_t byte_order_mark = 0x01020304;
inline constexpr std::size_t header_bytes = 32;
inline constexpr std::size_t trailer_bytes = 32;
inline constexpr std::size_t directory_head_bytes = 16;
inline constexpr std::size_t block_entry_bytes = 40;
inline constexpr std::size_t object_entry_bytes = 56;
inline constexpr std::uint64_t block_alignment = 4096;
inline constexpr std::uint64_t huge_block_alignment = std::uint64_t{2} << 20;
inline constexpr std::uint32_t block_kind_packed = 1;
inline constexpr std::uint32_t object_kind_array = 1;
inline constexpr std::uint32_t object_kind_graph = 2;
inline constexpr std::uint32_t no_block = 0xFFFFFFFF;
inline constexpr std::uint32_t graph_flag_directed = 1;
inline constexpr std::size_t max_name_bytes = 1024;
/// Block slots of an object entry: a graph's four arrays in GraphArray order, then slot 4, which
/// only version 1 files set (their out_degree block, now derived from begin and never read).
inline constexpr std::size_t graph_blocks = 5;
inline constexpr std::size_t graph_array_slots = 4;
inline constexpr std::size_t legacy_out_degree_slot = 4;

inline constexpr char header_magic[8] = {'S', 'A', 'S', 'T', 'O', 'R', 'E', '\0'};
inline constexpr char directory_magic[8] = {'S', 'A', 'D', 'I', 'R', 'E', 'C', 'T'};
inline constexpr char trailer_magic[8] = {'S', 'A', 'T', 'R', 'A', 'I', 'L', 'R'};

/// One block: a packed array's words and its padding word.
struct BlockEntry {
  std::uint32_t kind = block_kind_packed;
  std::uint32_t bits = 0;
  std::uint64_t length = 0;       ///< values
  std::uint64_t offset = 0;       ///< file offset of the first word
  std::uint64_t byte_length = 0;  ///< 8 * (packed words + 1)
  std::uint32_t crc = 0;          ///< CRC32C of the byte_length bytes
};

/// One named object: an array (blocks[0]) or a graph (blocks[0..4) in GraphArray order, blocks[4]
/// a version 1 file's unused out_degree block or no_block).
struct ObjectEntry {
  std::uint32_t kind = object_kind_array;
  std::string name;
  std::array<std::uint32_t, graph_blocks> blocks{no_block, no_block, no_block, no_block, no_block};
  bool directed = false;
  std::uint64_t vertices = 0;
  std::uint64_t edges = 0;
  std::uint32_t variant = 0;
  std::uint64_t entry_offset = 0;  ///< file offset of the entry (for messages; set by the reader)

  /// True for an undirected graph whose rbegin and redge slots name begin's and edge's blocks (one CSR).
  bool shares_reverse() const noexcept {
    return kind == object_kind_graph && blocks[2] == blocks[0] && blocks[3] == blocks[1];
  }
};

/// The committed state of a store: its directory, where it lies, and where the file's committed part ends.
struct Catalogue {
  std::vector<BlockEntry> blocks;
  std::vector<ObjectEntry> objects;
  std::uint64_t directory_offset = 0;
  std::uint64_t committed_bytes = 0;  ///< end of the trailer in force; later bytes are an interrupted append
};

/// Bytes of a block of length values of bits (packed words plus the padding word); false when the
/// size overflows the format's limit of 2^58 words.
bool block_byte_length(std::uint64_t length, unsigned bits, std::uint64_t& bytes) noexcept;

/// "begin", "edge", "rbegin", "redge" for a graph's slots 0..3, "out_degree" for slot 4.
const char* graph_slot_name(std::size_t slot) noexcept;

/// The 32-byte header of a store of format_version.
std::array<std::uint8_t, header_bytes> encode_header();
/// The directory bytes of catalogue (blocks and objects; offsets are not read).
std::vector<std::uint8_t> encode_directory(const Catalogue& catalogue);
/// The trailer of a directory at directory_offset.
std::array<std::uint8_t, trailer_bytes> encode_trailer(std::uint64_t directory_offset, const std::vector<std::uint8_t>& directory);

/// Checks the 32-byte header at data of a file of size bytes (refusing a file too short for a
/// header and a trailer); throws Error(invalid_argument) "store: ..." naming the field and offset.
void check_header(const std::uint8_t* data, std::uint64_t size);

/// Copies the n bytes at offset of the store being read to out (bytes past its end read as zeros).
using ReadAt = std::function<void(std::uint64_t offset, std::size_t n, std::uint8_t* out)>;

/// The end of the trailer in force of a store of size bytes (at least a header and a trailer), read
/// through read_at: size when the last 32 bytes are a valid trailer, else the end of the last valid
/// one before them (an interrupted append). Throws Error(invalid_argument) when there is none.
std::uint64_t committed_end(const ReadAt& read_at, std::uint64_t size);

/// Reads the header, the trailer in force and the directory of the size bytes at data, checking
/// every field (the blocks' contents are not read); throws Error(invalid_argument) naming the
/// object or block and the file offset of the first problem.
Catalogue read_catalogue(const std::uint8_t* data, std::size_t size);

/// "array" or "graph".
const char* object_kind_name(std::uint32_t kind) noexcept;
/// "graph 'NAME' (entry at offset N)": an object as messages name it.
std::string entry_label(const ObjectEntry& object);

/// The rule of a graph's four array slots (begin, edge, rbegin, redge): a directed graph's name
/// four blocks; an undirected graph is one CSR, its rbegin and redge slots naming begin's and
/// edge's blocks (both, never one, never separate). "" when blocks keep it, else what breaks it,
/// naming the slots and their blocks.
std::string graph_slots_problem(bool directed, const std::array<std::uint32_t, graph_blocks>& blocks);

}  // namespace smartarrays::store::detail
