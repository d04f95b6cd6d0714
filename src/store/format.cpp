// Owns encoding and reading the store's header, directory and trailer. The reader treats the file
// as hostile: every count, size and offset is checked with overflow-safe arithmetic against the
// file before it is used, and every error names the object or block and the file offset. Also the
// rule of a graph's block slots, which graphs received in other forms (Dask frames, pickles) keep too.
#include "store/format.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <set>
#include <string_view>

#include "smartarrays/error.hpp"
#include "smartarrays/util/text.hpp"
#include "codec/crc32c.hpp"

namespace smartarrays::store::detail {
namespace {

static_assert(std::endian::native == std::endian::little, "the store format is little-endian; so is this reader");

// Matches SmartArray's limit: bit offsets of 2^58 words still fit in 64 bits.
constexpr std::uint64_t max_block_words = std::uint64_t{1} << 58;

std::uint32_t load_u32(const std::uint8_t* at) noexcept {
  std::uint32_t v;
  std::memcpy(&v, at, sizeof v);
  return v;
}

std::uint64_t load_u64(const std::uint8_t* at) noexcept {
  std::uint64_t v;
  std::memcpy(&v, at, sizeof v);
  return v;
}

void store_u32(std::uint8_t* at, std::uint32_t v) noexcept { std::memcpy(at, &v, sizeof v); }
void store_u64(std::uint8_t* at, std::uint64_t v) noexcept { std::memcpy(at, &v, sizeof v); }

std::string hex(std::uint64_t v) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  do {
    out.insert(out.begin(), digits[v & 0xf]);
    v >>= 4;
  } while (v != 0);
  return "0x" + out;
}

std::string at(std::uint64_t offset) { return " at offset " + std::to_string(offset); }

[[noreturn]] void reject(const std::string& message) { throw_error(ErrorCode::invalid_argument, "store: " + message); }

std::string_view bytes_of(const std::uint8_t* data, std::size_t n) { return {reinterpret_cast<const char*>(data), n}; }

// True when the 32 bytes at t, which sit at offset in the file, form a trailer with a valid checksum
// whose directory ends right before it.
bool is_trailer(const std::uint8_t* t, std::uint64_t offset) {
  if (std::memcmp(t, trailer_magic, sizeof trailer_magic) != 0) return false;
  if (load_u32(t + 28) != codec::crc32c(t, 28)) return false;
  std::uint64_t end = 0;
  return !__builtin_add_overflow(load_u64(t + 8), load_u64(t + 16), &end) && end == offset;
}

// Bytes read at a time when an interrupted append's tail is scanned for the last committed trailer.
constexpr std::uint64_t trailer_scan_window = std::uint64_t{1} << 20;

// Reads the block descriptors at p (directory_offset + 16), checking each against the file.
std::vector<BlockEntry> read_blocks(const std::uint8_t* data, std::uint64_t entries_offset, std::uint32_t count,
                                    std::uint64_t directory_offset) {
  std::vector<BlockEntry> blocks(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint64_t entry = entries_offset + std::uint64_t{i} * block_entry_bytes;
    const std::uint8_t* e = data + entry;
    BlockEntry& b = blocks[i];
    b.kind = load_u32(e);
    b.bits = load_u32(e + 4);
    b.length = load_u64(e + 8);
    b.offset = load_u64(e + 16);
    b.byte_length = load_u64(e + 24);
    b.crc = load_u32(e + 32);
    const std::string which = "block " + std::to_string(i) + " (descriptor" + at(entry) + ")";
    if (b.kind != block_kind_packed) reject(which + ": unknown block kind " + std::to_string(b.kind));
    if (b.bits == 0 || b.bits > 64) reject(which + ": bit width " + std::to_string(b.bits) + " out of range 1..64");
    if (load_u32(e + 36) != 0) reject(which + ": reserved field is not zero");
    std::uint64_t expected = 0;
    if (!block_byte_length(b.length, b.bits, expected)) {
      reject(which + ": " + std::to_string(b.length) + " values of " + std::to_string(b.bits) + " bits exceed the format's 2^58 words");
    }
    if (b.byte_length != expected) {
      reject(which + ": byte length " + std::to_string(b.byte_length) + " disagrees with " + std::to_string(b.length) +
             " values of " + std::to_string(b.bits) + " bits (" + std::to_string(expected) +
             " bytes: the packed words and one padding word)");
    }
    if (b.offset % block_alignment != 0 || b.offset < header_bytes) {
      reject(which + ": data offset " + std::to_string(b.offset) + " is not a positive multiple of " + std::to_string(block_alignment));
    }
    std::uint64_t end = 0;
    if (__builtin_add_overflow(b.offset, b.byte_length, &end) || end > directory_offset) {
      reject(which + ": data [" + std::to_string(b.offset) + ", +" + std::to_string(b.byte_length) +
             ") runs past the directory" + at(directory_offset));
    }
  }
  std::vector<std::uint32_t> order(count);
  for (std::uint32_t i = 0; i < count; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) { return blocks[x].offset < blocks[y].offset; });
  for (std::size_t k = 1; k < order.size(); ++k) {
    const BlockEntry& prev = blocks[order[k - 1]];
    const BlockEntry& next = blocks[order[k]];
    if (prev.offset + prev.byte_length > next.offset) {
      reject("block " + std::to_string(order[k - 1]) + " (data" + at(prev.offset) + ", " + std::to_string(prev.byte_length) +
             " bytes) overlaps block " + std::to_string(order[k]) + " (data" + at(next.offset) + ")");
    }
  }
  return blocks;
}

void check_array_object(const ObjectEntry& o, const std::string& which, std::uint32_t flags) {
  for (std::size_t k = 1; k < graph_blocks; ++k) {
    if (o.blocks[k] != no_block) reject(which + ": an array names one block, but slot " + std::to_string(k) + " is set");
  }
  if (flags != 0 || o.vertices != 0 || o.edges != 0 || o.variant != 0) {
    reject(which + ": an array's graph fields (flags, n, m, variant) must be zero");
  }
}

void check_graph_object(const ObjectEntry& o, const std::string& which, const std::vector<BlockEntry>& blocks) {
  if (o.variant > 2) reject(which + ": variant " + std::to_string(o.variant) + " is not 0 (U), 1 (V) or 2 (V+E)");
  if (o.vertices == ~std::uint64_t{0}) reject(which + ": vertex count " + std::to_string(o.vertices) + " leaves no room for n + 1 offsets");
  const std::uint64_t expected[graph_blocks] = {o.vertices + 1, o.edges, o.vertices + 1, o.edges, o.vertices};
  for (std::size_t k = 0; k < graph_blocks; ++k) {
    if (k == legacy_out_degree_slot && o.blocks[k] == no_block) continue;
    const BlockEntry& b = blocks[o.blocks[k]];
    if (b.length != expected[k]) {
      reject(which + ": array " + graph_slot_name(k) + " (block " + std::to_string(o.blocks[k]) + ") holds " + std::to_string(b.length) +
             " values, a graph of n = " + std::to_string(o.vertices) + ", m = " + std::to_string(o.edges) + " needs " +
             std::to_string(expected[k]));
    }
  }
}

// Reads the object entries from offset to end, checking names, kinds and block references.
std::vector<ObjectEntry> read_objects(const std::uint8_t* data, std::uint64_t offset, std::uint64_t end, std::uint32_t count,
                                      const std::vector<BlockEntry>& blocks) {
  std::vector<ObjectEntry> objects;
  std::vector<bool> claimed(blocks.size(), false);
  std::set<std::string, std::less<>> names;
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::string where = "object " + std::to_string(i) + " (entry" + at(offset) + ")";
    if (end - offset < object_entry_bytes) reject(where + ": the directory ends inside the entry");
    const std::uint8_t* e = data + offset;
    ObjectEntry o;
    o.entry_offset = offset;
    o.kind = load_u32(e);
    const std::uint32_t name_bytes = load_u32(e + 4);
    for (std::size_t k = 0; k < graph_blocks; ++k) o.blocks[k] = load_u32(e + 8 + 4 * k);
    const std::uint32_t flags = load_u32(e + 28);
    o.directed = (flags & graph_flag_directed) != 0;
    o.vertices = load_u64(e + 32);
    o.edges = load_u64(e + 40);
    o.variant = load_u32(e + 48);
    if (name_bytes == 0 || name_bytes > max_name_bytes) {
      reject(where + ": name length " + std::to_string(name_bytes) + " out of range 1.." + std::to_string(max_name_bytes));
    }
    const std::uint64_t padded = (std::uint64_t{name_bytes} + 7) / 8 * 8;
    if (end - offset - object_entry_bytes < padded) reject(where + ": the directory ends inside the name");
    o.name.assign(reinterpret_cast<const char*>(e + object_entry_bytes), name_bytes);
    const std::string which = entry_label(o);
    if (o.name.find('\0') != std::string::npos) reject(which + ": the name holds a NUL byte");
    for (std::uint64_t k = name_bytes; k < padded; ++k) {
      if (e[object_entry_bytes + k] != 0) reject(which + ": the name's padding is not zero");
    }
    if (load_u32(e + 52) != 0) reject(which + ": reserved field is not zero");
    if (o.kind != object_kind_array && o.kind != object_kind_graph) reject(where + ": unknown object kind " + std::to_string(o.kind));
    const std::size_t used = o.kind == object_kind_array ? 1 : graph_blocks;
    if (o.kind == object_kind_graph) {
      if ((flags & ~graph_flag_directed) != 0) reject(which + ": unknown graph flags " + hex(flags));
      const std::string problem = graph_slots_problem(o.directed, o.blocks);
      if (!problem.empty()) reject(which + ": " + problem);
    }
    for (std::size_t k = 0; k < used; ++k) {
      if (o.shares_reverse() && (k == 2 || k == 3)) continue;
      if (k == legacy_out_degree_slot && o.blocks[k] == no_block) continue;
      if (o.blocks[k] >= blocks.size()) {
        reject(which + ": names block " + std::to_string(o.blocks[k]) + ", but the directory has " +
               std::to_string(blocks.size()) + " blocks");
      }
      if (claimed[o.blocks[k]]) reject(which + ": block " + std::to_string(o.blocks[k]) + " already belongs to another object");
      claimed[o.blocks[k]] = true;
    }
    if (o.kind == object_kind_array) {
      check_array_object(o, which, flags);
    } else {
      check_graph_object(o, which, blocks);
    }
    if (!names.insert(o.name).second) reject(which + ": the name is used twice");
    offset += object_entry_bytes + padded;
    objects.push_back(std::move(o));
  }
  if (offset != end) reject("the directory has " + std::to_string(end - offset) + " bytes after its last object" + at(offset));
  for (std::size_t i = 0; i < claimed.size(); ++i) {
    if (!claimed[i]) reject("block " + std::to_string(i) + " belongs to no object");
  }
  return objects;
}

}  // namespace

void check_header(const std::uint8_t* data, std::uint64_t size) {
  if (size < header_bytes + trailer_bytes) {
    reject("a file of " + std::to_string(size) + " bytes is too short for a store (header " +
           std::to_string(header_bytes) + " and trailer " + std::to_string(trailer_bytes) + " bytes)");
  }
  if (std::memcmp(data, header_magic, sizeof header_magic) != 0) {
    reject("not a smartarrays store: magic " + util::quoted(bytes_of(data, 8)) + at(0) + ", expected 'SASTORE\\x00'");
  }
  const std::uint32_t order = load_u32(data + 12);
  if (order == __builtin_bswap32(byte_order_mark)) {
    reject("the store is big-endian (byte-order mark 0x04030201" + at(12) + "); this reader reads little-endian stores only");
  }
  if (order != byte_order_mark) reject("byte-order mark " + hex(order) + at(12) + " is not 0x1020304");
  const std::uint32_t version = load_u32(data + 8);
  if (version > format_version) {
    reject("format version " + std::to_string(version) + at(8) + " is newer than this reader's (" +
           std::to_string(format_version) + "); upgrade smartarrays to read it");
  }
  if (version == 0) reject("format version 0" + at(8) + " does not exist (versions start at 1)");
  const std::uint64_t flags = load_u64(data + 16);
  if (flags != 0) reject("unknown header flags " + hex(flags) + at(16) + " (this reader knows none)");
  const std::uint32_t crc = load_u32(data + 24);
  const std::uint32_t computed = codec::crc32c(data, 24);
  if (crc != computed) reject("header checksum " + hex(crc) + at(24) + " does not match the header (" + hex(computed) + ")");
  if (load_u32(data + 28) != 0) reject("reserved header field" + at(28) + " is not zero");
}

std::uint64_t committed_end(const ReadAt& read_at, std::uint64_t size) {
  std::array<std::uint8_t, trailer_bytes> last_bytes{};
  const std::uint64_t last = size - trailer_bytes;
  read_at(last, trailer_bytes, last_bytes.data());
  if (is_trailer(last_bytes.data(), last)) return size;
  // Trailers sit at multiples of 8 after the header: scan back from the last one a window at a time.
  std::vector<std::uint8_t> window;
  for (std::uint64_t high = last / 8 * 8; high > header_bytes;) {
    const std::uint64_t low = high - header_bytes > trailer_scan_window ? high - trailer_scan_window : header_bytes + 8;
    window.resize(high - low + trailer_bytes);
    read_at(low, window.size(), window.data());
    for (std::uint64_t offset = high;; offset -= 8) {
      if (offset != last && is_trailer(window.data() + (offset - low), offset)) return offset + trailer_bytes;
      if (offset == low) break;
    }
    high = low - 8;
  }
  reject("no trailer: the last " + std::to_string(trailer_bytes) + " bytes" + at(last) + " are no valid trailer (magic " +
         util::quoted(bytes_of(last_bytes.data(), 8)) + ") and no earlier committed trailer exists; the file was truncated or is not a store");
}


bool block_byte_length(std::uint64_t length, unsigned bits, std::uint64_t& bytes) noexcept {
  const std::uint64_t chunks = length / 64 + (length % 64 != 0 ? 1 : 0);
  if (bits == 0 || chunks >= max_block_words / bits) return false;
  bytes = (chunks * bits + 1) * 8;
  return true;
}

const char* graph_slot_name(std::size_t slot) noexcept {
  static constexpr const char* names[graph_blocks] = {"begin", "edge", "rbegin", "redge", "out_degree"};
  return slot < graph_blocks ? names[slot] : "?";
}

const char* object_kind_name(std::uint32_t kind) noexcept {
  return kind == object_kind_array ? "array" : kind == object_kind_graph ? "graph" : "object";
}

std::string entry_label(const ObjectEntry& object) {
  return std::string(object_kind_name(object.kind)) + " " + util::quoted(object.name) + " (entry" + at(object.entry_offset) + ")";
}

std::string graph_slots_problem(bool directed, const std::array<std::uint32_t, graph_blocks>& blocks) {
  const bool rbegin_shared = blocks[2] == blocks[0];
  const bool redge_shared = blocks[3] == blocks[1];
  if (directed ? !rbegin_shared && !redge_shared : rbegin_shared && redge_shared) return {};
  std::string named = "slots begin, edge, rbegin, redge name blocks ";
  for (std::size_t k = 0; k < graph_array_slots; ++k) {
    named += (k > 0 ? ", " : "") + (blocks[k] == no_block ? std::string("none") : std::to_string(blocks[k]));
  }
  return directed ? "a directed graph's rbegin and redge cannot be its begin and edge (" + named + ")"
                  : "an undirected graph's rbegin and redge slots must name begin's and edge's blocks (both: its one CSR), "
                    "but " + named;
}

std::array<std::uint8_t, header_bytes> encode_header() {
  std::array<std::uint8_t, header_bytes> h{};
  std::memcpy(h.data(), header_magic, sizeof header_magic);
  store_u32(h.data() + 8, format_version);
  store_u32(h.data() + 12, byte_order_mark);
  store_u64(h.data() + 16, 0);
  store_u32(h.data() + 24, codec::crc32c(h.data(), 24));
  return h;
}

std::vector<std::uint8_t> encode_directory(const Catalogue& catalogue) {
  std::size_t bytes = directory_head_bytes + catalogue.blocks.size() * block_entry_bytes;
  for (const ObjectEntry& o : catalogue.objects) bytes += object_entry_bytes + (o.name.size() + 7) / 8 * 8;
  std::vector<std::uint8_t> d(bytes, 0);
  std::memcpy(d.data(), directory_magic, sizeof directory_magic);
  store_u32(d.data() + 8, static_cast<std::uint32_t>(catalogue.blocks.size()));
  store_u32(d.data() + 12, static_cast<std::uint32_t>(catalogue.objects.size()));
  std::uint8_t* p = d.data() + directory_head_bytes;
  for (const BlockEntry& b : catalogue.blocks) {
    store_u32(p, b.kind);
    store_u32(p + 4, b.bits);
    store_u64(p + 8, b.length);
    store_u64(p + 16, b.offset);
    store_u64(p + 24, b.byte_length);
    store_u32(p + 32, b.crc);
    p += block_entry_bytes;
  }
  for (const ObjectEntry& o : catalogue.objects) {
    store_u32(p, o.kind);
    store_u32(p + 4, static_cast<std::uint32_t>(o.name.size()));
    for (std::size_t k = 0; k < graph_blocks; ++k) store_u32(p + 8 + 4 * k, o.blocks[k]);
    store_u32(p + 28, o.kind == object_kind_graph && o.directed ? graph_flag_directed : 0);
    store_u64(p + 32, o.vertices);
    store_u64(p + 40, o.edges);
    store_u32(p + 48, o.variant);
    std::memcpy(p + object_entry_bytes, o.name.data(), o.name.size());
    p += object_entry_bytes + (o.name.size() + 7) / 8 * 8;
  }
  return d;
}

std::array<std::uint8_t, trailer_bytes> encode_trailer(std::uint64_t directory_offset, const std::vector<std::uint8_t>& directory) {
  std::array<std::uint8_t, trailer_bytes> t{};
  std::memcpy(t.data(), trailer_magic, sizeof trailer_magic);
  store_u64(t.data() + 8, directory_offset);
  store_u64(t.data() + 16, directory.size());
  store_u32(t.data() + 24, codec::crc32c(directory.data(), directory.size()));
  store_u32(t.data() + 28, codec::crc32c(t.data(), 28));
  return t;
}

Catalogue read_catalogue(const std::uint8_t* data, std::size_t size) {
  check_header(data, size);
  const std::uint64_t trailer = committed_end([data](std::uint64_t offset, std::size_t n, std::uint8_t* out) {
    std::memcpy(out, data + offset, n);
  }, size) - trailer_bytes;
  Catalogue c;
  c.committed_bytes = trailer + trailer_bytes;
  c.directory_offset = load_u64(data + trailer + 8);
  const std::uint64_t directory_bytes = load_u64(data + trailer + 16);
  // is_trailer checked that the directory ends at the trailer, so it lies inside the file.
  if (c.directory_offset < header_bytes || directory_bytes < directory_head_bytes) {
    reject("trailer" + at(trailer) + ": directory" + at(c.directory_offset) + " of " + std::to_string(directory_bytes) +
           " bytes overlaps the header or is too short");
  }
  if (c.directory_offset % 8 != 0) reject("trailer" + at(trailer) + ": directory offset " + std::to_string(c.directory_offset) + " is not a multiple of 8");
  const std::uint8_t* d = data + c.directory_offset;
  const std::uint32_t crc = codec::crc32c(d, directory_bytes);
  if (crc != load_u32(data + trailer + 24)) {
    reject("directory" + at(c.directory_offset) + ": checksum " + hex(crc) + " does not match the trailer's " +
           hex(load_u32(data + trailer + 24)));
  }
  if (std::memcmp(d, directory_magic, sizeof directory_magic) != 0) {
    reject("directory" + at(c.directory_offset) + ": magic " + util::quoted(bytes_of(d, 8)) + ", expected 'SADIRECT'");
  }
  const std::uint32_t block_count = load_u32(d + 8);
  const std::uint32_t object_count = load_u32(d + 12);
  const std::uint64_t entries = directory_head_bytes + std::uint64_t{block_count} * block_entry_bytes;
  if (entries > directory_bytes) {
    reject("directory" + at(c.directory_offset) + ": " + std::to_string(block_count) + " block descriptors do not fit in its " +
           std::to_string(directory_bytes) + " bytes");
  }
  if (std::uint64_t{object_count} * object_entry_bytes > directory_bytes - entries) {
    reject("directory" + at(c.directory_offset) + ": " + std::to_string(object_count) + " objects do not fit in its " +
           std::to_string(directory_bytes) + " bytes");
  }
  c.blocks = read_blocks(data, c.directory_offset + directory_head_bytes, block_count, c.directory_offset);
  c.objects = read_objects(data, c.directory_offset + entries, c.directory_offset + directory_bytes, object_count, c.blocks);
  return c;
}

}  // namespace smartarrays::store::detail
