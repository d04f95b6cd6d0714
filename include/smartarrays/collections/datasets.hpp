// Owns the datasets of the NUMA analytics study (numa-analytics-strategies §4.2): aggregation
// records (group key, value) in the distributions moving cluster, sequential, heavy hitter and
// Zipf (exponent 0.5), and the 1:16 join tables of W3/W4, each generated in parallel into smart
// arrays and deterministic from a seed (value i depends only on seed and i), plus a .npy writer
// so that other tools (DuckDB, numpy) read the same data.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/export.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::collections {

/// How the group keys of aggregation records are drawn (keys lie in [0, groups)).
enum class Distribution : int {
  moving_cluster = 0,  ///< uniform in a window of min(groups, 1024) keys sliding from 0 to groups over the records
  sequential = 1,      ///< groups segments of records / groups records each, segment k all key k (keys ascend)
  heavy_hitter = 2,    ///< half the records key 0, the rest uniform over [1, groups)
  zipf = 3,            ///< Zipf with exponent 0.5 over ranks 0..groups-1 (key = rank, continuous inverse CDF)
};

/// "moving_cluster", "sequential", "heavy_hitter" or "zipf".
SMARTARRAYS_API const char* to_string(Distribution distribution) noexcept;
/// The distribution spelled name; throws Error(invalid_argument) listing the valid names.
SMARTARRAYS_API Distribution parse_distribution(std::string_view name);

/// Values of aggregation records are uniform in [0, record_value_limit): 20 bits.
inline constexpr std::uint64_t record_value_limit = 1000000;

/// What aggregation records to make.
struct RecordsSpec {
  std::uint64_t records = 0;                         ///< number of records N
  std::uint64_t groups = 1;                          ///< group-by cardinality G (1..N, or 1 when N is 0)
  Distribution distribution = Distribution::moving_cluster;  ///< how keys are drawn
  std::uint64_t seed = 1;                            ///< the data seed
};

/// Key i of the records of spec (in [0, spec.groups)).
SMARTARRAYS_API std::uint64_t record_key(const RecordsSpec& spec, std::uint64_t i) noexcept;
/// Value i of the records of spec (in [0, record_value_limit)).
SMARTARRAYS_API std::uint64_t record_value(const RecordsSpec& spec, std::uint64_t i) noexcept;

/// Aggregation records as two columns.
struct Records {
  SmartArray keys;    ///< group keys, the fewest bits that hold groups - 1
  SmartArray values;  ///< values, the fewest bits that hold record_value_limit - 1
};

/// Builds the records of spec in parallel on pool, placed as options says (options.bits must be 0:
/// each column gets its fewest bits). Throws Error(invalid_argument) for groups 0 or groups > records
/// (records > 0), and Error like SmartArray::allocate.
SMARTARRAYS_API Records make_records(const RecordsSpec& spec, const ArrayOptions& options,
                                     runtime::ThreadPool& pool = runtime::default_pool());

/// What join tables to make (W3/W4, after Balkesen et al.): the build table R holds keys 1..R in a
/// seeded order, each once; the probe table S holds 16 x R foreign keys uniform over 1..R.
struct JoinSpec {
  std::uint64_t build_rows = 0;  ///< |R|
  std::uint64_t probe_ratio = 16;  ///< |S| / |R| (>= 1)
  std::uint64_t seed = 1;          ///< the data seed
};

/// Key i of R (a permutation of 1..|R|).
SMARTARRAYS_API std::uint64_t build_key(const JoinSpec& spec, std::uint64_t i) noexcept;
/// Foreign key i of S (uniform over 1..|R|).
SMARTARRAYS_API std::uint64_t probe_key(const JoinSpec& spec, std::uint64_t i) noexcept;

/// The two join key columns.
struct JoinTables {
  SmartArray build;  ///< R's keys
  SmartArray probe;  ///< S's foreign keys
};

/// Builds the tables of spec in parallel on pool, placed as options says (options.bits must be 0).
/// Throws Error(invalid_argument) for probe_ratio 0 or a size that overflows.
SMARTARRAYS_API JoinTables make_join_tables(const JoinSpec& spec, const ArrayOptions& options,
                                            runtime::ThreadPool& pool = runtime::default_pool());

/// Writes array to path as a NumPy .npy file of little-endian uint64 ("<u8", version 1.0), decoding
/// in blocks; throws Error(os_error) naming path when it cannot be written.
SMARTARRAYS_API void write_npy(const SmartArray& array, const std::string& path);

}  // namespace smartarrays::collections
