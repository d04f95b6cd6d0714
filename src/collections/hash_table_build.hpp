// Owns what a hash table keeps per key (TableSpec) and the build entry that HashTable, HashMap and
// HashSet share: one partitioned parallel build, differing only in the slot's field and payload.
#pragma once

#include "smartarrays/collections/hash_table.hpp"

namespace smartarrays::collections::detail {

/// What a table keeps per key: its count and grouped rows (a multimap), its count only, its presence
/// (a set: a 1-bit field), or its value (a map: values[i] belongs to keys[i], a key's last row wins).
struct TableSpec {
  bool with_rows = false;
  bool presence = false;
  const SmartArray* values = nullptr;  ///< a map's values (same length as the keys), else null
  const char* what = "hash table";     ///< the name errors start with
};

/// Builds the table of keys as spec says, in parallel on pool, every array placed as options says
/// (bits must be 0). Throws Error(invalid_argument) for bits or mismatched lengths, else like allocate.
HashTable build_table(const SmartArray& keys, const TableSpec& spec, const ArrayOptions& options, runtime::ThreadPool& pool);

}  // namespace smartarrays::collections::detail
