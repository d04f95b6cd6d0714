// Owns the study's dataset generators (counter-based: value i is a function of seed and i, so any
// worker makes any batch) and the .npy writer.
#include "smartarrays/collections/datasets.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/runtime/interrupt.hpp"
#include "smartarrays/util/checked.hpp"
#include "smartarrays/util/mix64.hpp"
#include "smartarrays/util/names.hpp"
#include "smartarrays/util/text.hpp"
#include "os/output_file.hpp"

namespace smartarrays::collections {

namespace {

constexpr util::NameTable<Distribution, 4> distribution_names{
    "distribution",
    {{{Distribution::moving_cluster, "moving_cluster"},
      {Distribution::sequential, "sequential"},
      {Distribution::heavy_hitter, "heavy_hitter"},
      {Distribution::zipf, "zipf"}}}};

constexpr std::uint64_t moving_window = 1024;

std::uint64_t draw(std::uint64_t seed, std::uint64_t stream, std::uint64_t i) noexcept {
  return util::mix64(seed ^ util::mix64(i ^ (stream * 0x9e3779b97f4a7c15ull)));
}

// (a * b) mod m without overflow.
std::uint64_t mul_mod(std::uint64_t a, std::uint64_t b, std::uint64_t m) noexcept {
  return static_cast<std::uint64_t>(static_cast<unsigned __int128>(a) * b % m);
}

// A multiplier coprime with rows, so i -> (i * a + c) mod rows is a permutation of 0..rows-1.
std::uint64_t permutation_multiplier(std::uint64_t rows, std::uint64_t seed) noexcept {
  if (rows <= 1) return 1;
  std::uint64_t a = util::mix64(seed) % rows;
  while (std::gcd(a, rows) != 1) a = a + 1 < rows ? a + 1 : 1;
  return a;
}

std::uint64_t probe_rows(const JoinSpec& spec) {
  if (spec.probe_ratio == 0) throw_error(ErrorCode::invalid_argument, "join tables: probe ratio must be at least 1");
  return util::checked_mul(spec.build_rows, spec.probe_ratio, "join tables: probe rows");
}

ArrayOptions column_options(const ArrayOptions& options, std::uint64_t largest) {
  if (options.bits != 0) throw_error(ErrorCode::invalid_argument, "datasets pick each column's bits: options.bits must be 0");
  ArrayOptions column = options;
  column.bits = codec::min_bits(largest);
  return column;
}

}  // namespace

const char* to_string(Distribution distribution) noexcept { return distribution_names.c_name(distribution); }

Distribution parse_distribution(std::string_view name) { return distribution_names.parse(name); }

std::uint64_t record_key(const RecordsSpec& spec, std::uint64_t i) noexcept {
  const std::uint64_t g = spec.groups == 0 ? 1 : spec.groups;
  const std::uint64_t n = spec.records == 0 ? 1 : spec.records;
  const std::uint64_t r = draw(spec.seed, 1, i);
  switch (spec.distribution) {
    case Distribution::moving_cluster: {
      const std::uint64_t window = std::min(g, moving_window);
      const std::uint64_t start = static_cast<std::uint64_t>(static_cast<unsigned __int128>(i) * (g - window) / n);
      return start + r % window;
    }
    case Distribution::sequential: {
      const std::uint64_t per = n / g + (n % g != 0 ? 1 : 0);
      return std::min(i / per, g - 1);
    }
    case Distribution::heavy_hitter:
      return (r & 1) != 0 || g == 1 ? 0 : 1 + (r >> 1) % (g - 1);
    case Distribution::zipf: {
      const double u = static_cast<double>(r >> 11) * 0x1.0p-53;
      const double root = 1 + u * (std::sqrt(static_cast<double>(g) + 1) - 1);
      const auto rank = static_cast<std::uint64_t>(root * root);
      return std::min(rank == 0 ? 0 : rank - 1, g - 1);
    }
  }
  return 0;
}

std::uint64_t record_value(const RecordsSpec& spec, std::uint64_t i) noexcept {
  return draw(spec.seed, 2, i) % record_value_limit;
}

Records make_records(const RecordsSpec& spec, const ArrayOptions& options, runtime::ThreadPool& pool) {
  if (spec.groups == 0 || (spec.records > 0 && spec.groups > spec.records)) {
    throw_error(ErrorCode::invalid_argument, "records: groups must be 1.." + std::to_string(std::max<std::uint64_t>(spec.records, 1)) +
                                                 ", got " + std::to_string(spec.groups));
  }
  SmartArray keys = build::build_array(
      spec.records, column_options(options, spec.groups - 1),
      [&spec](std::uint64_t lo, std::uint64_t hi, std::uint64_t* out) {
        for (std::uint64_t i = lo; i < hi; ++i) out[i - lo] = record_key(spec, i);
      },
      pool);
  SmartArray values = build::build_array(
      spec.records, column_options(options, record_value_limit - 1),
      [&spec](std::uint64_t lo, std::uint64_t hi, std::uint64_t* out) {
        for (std::uint64_t i = lo; i < hi; ++i) out[i - lo] = record_value(spec, i);
      },
      pool);
  return {std::move(keys), std::move(values)};
}

std::uint64_t build_key(const JoinSpec& spec, std::uint64_t i) noexcept {
  const std::uint64_t rows = std::max<std::uint64_t>(spec.build_rows, 1);
  return (mul_mod(i, permutation_multiplier(rows, spec.seed), rows) + util::mix64(spec.seed ^ 7) % rows) % rows + 1;
}

std::uint64_t probe_key(const JoinSpec& spec, std::uint64_t i) noexcept {
  return draw(spec.seed, 3, i) % std::max<std::uint64_t>(spec.build_rows, 1) + 1;
}

JoinTables make_join_tables(const JoinSpec& spec, const ArrayOptions& options, runtime::ThreadPool& pool) {
  const std::uint64_t probes = probe_rows(spec);
  const std::uint64_t rows = std::max<std::uint64_t>(spec.build_rows, 1);
  const std::uint64_t multiplier = permutation_multiplier(rows, spec.seed);
  const std::uint64_t offset = util::mix64(spec.seed ^ 7) % rows;
  SmartArray build = build::build_array(
      spec.build_rows, column_options(options, spec.build_rows),
      [&](std::uint64_t lo, std::uint64_t hi, std::uint64_t* out) {
        for (std::uint64_t i = lo; i < hi; ++i) out[i - lo] = (mul_mod(i, multiplier, rows) + offset) % rows + 1;
      },
      pool);
  SmartArray probe = build::build_array(
      probes, column_options(options, spec.build_rows),
      [&spec](std::uint64_t lo, std::uint64_t hi, std::uint64_t* out) {
        for (std::uint64_t i = lo; i < hi; ++i) out[i - lo] = probe_key(spec, i);
      },
      pool);
  return {std::move(build), std::move(probe)};
}

void write_npy(const SmartArray& array, const std::string& path) {
  os::OutputFile file(path);
  std::string header = "{'descr': '<u8', 'fortran_order': False, 'shape': (" + std::to_string(array.length()) + ",), }";
  // Magic (6), version (2), header length (2), then the header padded so the data starts 64-aligned.
  header.append(63 - (10 + header.size()) % 64, ' ');
  header.push_back('\n');
  const char magic[8] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0};
  const unsigned char length[2] = {static_cast<unsigned char>(header.size() & 0xff),
                                   static_cast<unsigned char>(header.size() >> 8)};
  file.write(magic, sizeof magic);
  file.write(length, sizeof length);
  file.write(header.data(), header.size());
  std::vector<std::uint64_t> block(std::uint64_t{1} << 16);
  for (std::uint64_t start = 0; start < array.length(); start += block.size()) {
    runtime::check_interrupt();
    const std::uint64_t count = std::min<std::uint64_t>(block.size(), array.length() - start);
    array.decode(start, count, block.data());
    file.write(block.data(), count * sizeof(std::uint64_t));
  }
  file.commit();
}

}  // namespace smartarrays::collections
