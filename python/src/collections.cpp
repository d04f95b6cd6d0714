// Owns the binding of the smart collections: group-by and hash join over numpy key and value
// columns (made into smart arrays in the fewest bits, in parallel, with the GIL released and
// Ctrl-C honoured), the Index class over the sorted index, and the HashMap and HashSet classes
// (batch probes writing into numpy arrays the Python side allocates, without the GIL).
#include <optional>
#include <span>
#include <string_view>
#include <utility>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string_view.h>

#include "binding.hpp"
#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/collections/group_by.hpp"
#include "smartarrays/collections/hash_join.hpp"
#include "smartarrays/collections/hash_map.hpp"
#include "smartarrays/collections/sorted_index.hpp"

namespace smartarrays::python {

namespace {

using namespace nb::literals;

inline constexpr char index_name[] = "Index";
using IndexHandle = Handle<collections::SortedIndex, index_name>;
inline constexpr char hash_map_name[] = "HashMap";
using HashMapHandle = Handle<collections::HashMap, hash_map_name>;
inline constexpr char hash_set_name[] = "HashSet";
using HashSetHandle = Handle<collections::HashSet, hash_set_name>;
/// A writable, contiguous 1-D output array the Python side allocated.
using U64Out = nb::ndarray<std::uint64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using BoolOut = nb::ndarray<bool, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

SmartArray column(const U64In& values, const ArrayOptions& options) {
  return build::build_array_from_values(std::span<const std::uint64_t>(values.data(), values.shape(0)), options);
}

std::pair<U64Array, U64Array> to_numpy(const SmartArray& a, const SmartArray& b) {
  return {decode_to_numpy(a, 0, a.length()), decode_to_numpy(b, 0, b.length())};
}

std::pair<U64Array, U64Array> group_by(const U64In& keys, const U64In& values, std::string_view aggregate,
                                       std::string_view placement) {
  const collections::Aggregate which = collections::parse_aggregate(aggregate);
  const ArrayOptions options = make_options(0, placement, {}, "auto");
  const collections::GroupResult r = interruptible([&] {
    const SmartArray k = column(keys, options), v = column(values, options);
    return collections::GroupBy(k, v, runtime::default_pool(), options).run(which);
  });
  return to_numpy(r.keys, r.values);
}

std::pair<U64Array, U64Array> hash_join(const U64In& left, const U64In& right, std::string_view placement) {
  const ArrayOptions options = make_options(0, placement, {}, "auto");
  const collections::JoinPairs pairs = interruptible([&] {
    return collections::hash_join_pairs(column(left, options), column(right, options), options);
  });
  return to_numpy(pairs.left_rows, pairs.right_rows);
}

std::uint64_t hash_join_count(const U64In& left, const U64In& right, std::string_view placement) {
  const ArrayOptions options = make_options(0, placement, {}, "auto");
  return interruptible([&] { return collections::hash_join_count(column(left, options), column(right, options), options); });
}

IndexHandle make_index(const U64In& keys, std::string_view placement) {
  const ArrayOptions options = make_options(0, placement, {}, "auto");
  return interruptible([&] { return IndexHandle(collections::SortedIndex::build(column(keys, options), options)); });
}

// counts[k] and first[k] of every probe key, looked up in parallel without the GIL.
std::pair<U64Array, U64Array> lookup(const IndexHandle& self, const U64In& probe) {
  const IndexHandle::Shared index = self.get();
  const std::uint64_t n = probe.shape(0);
  U64Array counts = new_numpy_array(n), first = new_numpy_array(n);
  std::uint64_t* c = counts.data();
  std::uint64_t* f = first.data();
  const std::uint64_t* p = probe.data();
  interruptible([&] {
    runtime::parallel_for(0, n, [&](std::uint64_t lo, std::uint64_t hi) {
      for (std::uint64_t i = lo; i < hi; ++i) {
        const collections::Match m = index->find(p[i]);
        c[i] = m.count;
        f[i] = m.begin;
      }
    });
    return 0;
  });
  return {std::move(counts), std::move(first)};
}

HashMapHandle make_hash_map(const U64In& keys, const U64In& values, std::string_view placement) {
  const ArrayOptions options = make_options(0, placement, {}, "auto");
  return interruptible([&] {
    return HashMapHandle(collections::HashMap::build(column(keys, options), column(values, options), options));
  });
}

HashSetHandle make_hash_set(const U64In& keys, std::string_view placement) {
  const ArrayOptions options = make_options(0, placement, {}, "auto");
  return interruptible([&] { return HashSetHandle(collections::HashSet::build(column(keys, options), options)); });
}

// The bytes of a bool mask (numpy bools are one byte, 0 or 1).
std::span<std::uint8_t> mask_bytes(BoolOut& mask) { return {reinterpret_cast<std::uint8_t*>(mask.data()), mask.shape(0)}; }

void hash_map_get(const HashMapHandle& self, const U64In& probe, U64Out out, std::uint64_t missing, std::optional<BoolOut> found) {
  const HashMapHandle::Shared map = self.get();
  const std::span<const std::uint64_t> keys(probe.data(), probe.shape(0));
  const std::span<std::uint64_t> values(out.data(), out.shape(0));
  const std::span<std::uint8_t> mask = found ? mask_bytes(*found) : std::span<std::uint8_t>{};
  interruptible([&] {
    map->get(keys, values, missing, mask);
    return 0;
  });
}

void hash_set_contains(const HashSetHandle& self, const U64In& probe, BoolOut out) {
  const HashSetHandle::Shared set = self.get();
  const std::span<std::uint8_t> mask = mask_bytes(out);
  interruptible([&] {
    set->contains({probe.data(), probe.shape(0)}, mask);
    return 0;
  });
}

}  // namespace

void bind_collections(nb::module_& m) {
  m.def("_group_by", &group_by, "keys"_a.noconvert(), "values"_a.noconvert(), "aggregate"_a, "placement"_a,
        "(distinct keys ascending, aggregate per key) of values grouped by keys.");
  m.def("_hash_join", &hash_join, "left"_a.noconvert(), "right"_a.noconvert(), "placement"_a,
        "(left rows, right rows) of the pairs with equal keys, sorted by left row then right row.");
  m.def("_hash_join_count", &hash_join_count, "left"_a.noconvert(), "right"_a.noconvert(), "placement"_a,
        "The number of pairs with equal keys.");
  m.def("_index", &make_index, "keys"_a.noconvert(), "placement"_a, "A sorted index of keys[i] -> i.");
  nb::class_<IndexHandle> cls(m, "Index", "A read-only sorted index of integer keys -> rows (make with smartarrays.Index).");
  cls.def("_lookup", &lookup, "probe"_a.noconvert(), "(counts, first sorted positions) of each probe key.")
      .def(
          "row", [](const IndexHandle& self, std::uint64_t i) { return self.get()->rows().get(i); }, "i"_a,
          "The row of the key at sorted position i; IndexError past the end.")
      .def(
          "count_matches",
          [](const IndexHandle& self, const U64In& probe) {
            const IndexHandle::Shared index = self.get();
            return interruptible([&] { return index->count_matches(column(probe, {})); });
          },
          "probe"_a.noconvert(), "The sum of the match counts of probe's keys (an index join, counted).")
      .def_prop_ro("size", [](const IndexHandle& self) { return self.get()->size(); }, "Rows indexed.")
      .def_prop_ro("memory_bytes", [](const IndexHandle& self) { return self.get()->memory_bytes(); },
                   "Bytes of the index's smart arrays.");
  bind_closeable(cls, "Index", "Releases the index's memory.");

  m.def("_hash_map", &make_hash_map, "keys"_a.noconvert(), "values"_a.noconvert(), "placement"_a,
        "A hash map of keys[i] -> values[i] (a key's last row wins).");
  nb::class_<HashMapHandle> map_cls(m, "HashMap", "A read-only hash map of integer keys -> values (make with smartarrays.HashMap).");
  map_cls
      .def("_get", &hash_map_get, "probe"_a.noconvert(), "out"_a.noconvert(), "missing"_a, "found"_a.noconvert().none(),
           "Writes each probe key's value (missing when absent) into out, and 1/0 into found when given.")
      .def_prop_ro("size", [](const HashMapHandle& self) { return self.get()->size(); }, "Distinct keys.")
      .def_prop_ro("memory_bytes", [](const HashMapHandle& self) { return self.get()->memory_bytes(); },
                   "Bytes of the map's smart arrays.");
  bind_closeable(map_cls, "HashMap", "Releases the map's memory.");

  m.def("_hash_set", &make_hash_set, "keys"_a.noconvert(), "placement"_a, "A hash set of keys.");
  nb::class_<HashSetHandle> set_cls(m, "HashSet", "A read-only hash set of integer keys (make with smartarrays.HashSet).");
  set_cls
      .def("_contains", &hash_set_contains, "probe"_a.noconvert(), "out"_a.noconvert(), "Writes 1/0 per probe key into out.")
      .def(
          "count_contained",
          [](const HashSetHandle& self, const U64In& probe) {
            const HashSetHandle::Shared set = self.get();
            return interruptible([&] { return set->count_contained(column(probe, {})); });
          },
          "probe"_a.noconvert(), "How many of probe's keys are in the set.")
      .def_prop_ro("size", [](const HashSetHandle& self) { return self.get()->size(); }, "Distinct keys.")
      .def_prop_ro("memory_bytes", [](const HashSetHandle& self) { return self.get()->memory_bytes(); },
                   "Bytes of the set's smart arrays.");
  bind_closeable(set_cls, "HashSet", "Releases the set's memory.");
}

}  // namespace smartarrays::python
