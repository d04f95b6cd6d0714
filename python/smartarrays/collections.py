"""Smart collections over numpy columns: group-by (count, sum, min, max, exact median), hash join,
a sorted index, and a hash map and set. Each call makes the columns into smart arrays in the fewest bits (placed as
asked) and runs the C++ operators in parallel with the GIL released; results are numpy arrays."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from . import _core
from ._args import Placement, id_array, unsigned_value, word


class GroupBy:
    """Values grouped by keys (equal lengths); each aggregate returns (distinct keys ascending,
    aggregate per key) as uint64 numpy arrays."""

    def __init__(self, keys: npt.ArrayLike, values: npt.ArrayLike, placement: Placement = "os_default") -> None:
        self._keys = id_array(keys, "keys")
        self._values = id_array(values, "values")
        if len(self._keys) != len(self._values):
            raise ValueError(f"group by: keys and values differ in length ({len(self._keys)} and {len(self._values)})")
        self._placement = word(placement, "placement")

    def _run(self, aggregate: str) -> tuple[np.ndarray, np.ndarray]:
        return _core._group_by(self._keys, self._values, aggregate, self._placement)

    def count(self) -> tuple[np.ndarray, np.ndarray]:
        """Rows per key."""
        return self._run("count")

    def sum(self) -> tuple[np.ndarray, np.ndarray]:
        """Sum of each key's values, wrapping modulo 2**64."""
        return self._run("sum")

    def min(self) -> tuple[np.ndarray, np.ndarray]:
        """Smallest value per key."""
        return self._run("min")

    def max(self) -> tuple[np.ndarray, np.ndarray]:
        """Largest value per key."""
        return self._run("max")

    def median(self) -> tuple[np.ndarray, np.ndarray]:
        """Exact lower median per key: the value at (c - 1) // 2 of its c sorted values."""
        return self._run("median")


def group_by(keys: npt.ArrayLike, values: npt.ArrayLike, placement: Placement = "os_default") -> GroupBy:
    """Groups values by keys: sa.group_by(keys, values).median() -> (keys, medians)."""
    return GroupBy(keys, values, placement)


def hash_join(left: npt.ArrayLike, right: npt.ArrayLike, placement: Placement = "os_default") -> tuple[np.ndarray, np.ndarray]:
    """(left rows, right rows) of every pair with left[i] == right[j], sorted by left row then right
    row; the hash table is built on the smaller side."""
    return _core._hash_join(id_array(left, "left"), id_array(right, "right"), word(placement, "placement"))


def hash_join_count(left: npt.ArrayLike, right: npt.ArrayLike, placement: Placement = "os_default") -> int:
    """The number of pairs with left[i] == right[j]."""
    return _core._hash_join_count(id_array(left, "left"), id_array(right, "right"), word(placement, "placement"))


class Index:
    """A read-only sorted index of keys[i] -> i (sorted smart array plus a radix directory)."""

    def __init__(self, keys: npt.ArrayLike, placement: Placement = "os_default") -> None:
        self._index = _core._index(id_array(keys, "keys"), word(placement, "placement"))

    def lookup(self, probe: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """(counts, first) per probe key: counts[k] rows hold it, the first at sorted position first[k]."""
        return self._index._lookup(id_array(probe, "probe"))

    def row(self, position: int) -> int:
        """The row of the key at sorted position position."""
        return self._index.row(unsigned_value(position, "position"))

    def count_matches(self, probe: npt.ArrayLike) -> int:
        """The sum of lookup(probe)'s counts (an index nested loop join, counted)."""
        return self._index.count_matches(id_array(probe, "probe"))

    @property
    def size(self) -> int:
        """Rows indexed."""
        return self._index.size

    @property
    def memory_bytes(self) -> int:
        """Bytes of the index's smart arrays."""
        return self._index.memory_bytes

    def close(self) -> None:
        """Releases the index's memory."""
        self._index.close()


class HashMap:
    """A read-only hash map of keys[i] -> values[i] (equal lengths) on smart arrays, keys and values in
    the fewest bits; for a key given more than once, its last row's value wins (as dict(zip(...)))."""

    def __init__(self, keys: npt.ArrayLike, values: npt.ArrayLike, placement: Placement = "os_default") -> None:
        k, v = id_array(keys, "keys"), id_array(values, "values")
        if len(k) != len(v):
            raise ValueError(f"hash map: keys and values differ in length ({len(k)} and {len(v)})")
        self._map = _core._hash_map(k, v, word(placement, "placement"))

    def get(self, probe: npt.ArrayLike, missing: int = 0) -> np.ndarray:
        """Each probe key's value (uint64), or missing where the key is absent."""
        p = id_array(probe, "probe")
        out = np.empty(len(p), dtype=np.uint64)
        self._map._get(p, out, unsigned_value(missing, "missing"), None)
        return out

    def find(self, probe: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """(values, found): each probe key's value (0 where absent) and a bool mask of the keys present."""
        p = id_array(probe, "probe")
        out = np.empty(len(p), dtype=np.uint64)
        found = np.empty(len(p), dtype=np.bool_)
        self._map._get(p, out, 0, found)
        return out, found

    def __len__(self) -> int:
        return self._map.size

    @property
    def memory_bytes(self) -> int:
        """Bytes of the map's smart arrays."""
        return self._map.memory_bytes

    def close(self) -> None:
        """Releases the map's memory."""
        self._map.close()


class HashSet:
    """A read-only hash set of integer keys on smart arrays, keys in the fewest bits."""

    def __init__(self, keys: npt.ArrayLike, placement: Placement = "os_default") -> None:
        self._set = _core._hash_set(id_array(keys, "keys"), word(placement, "placement"))

    def contains(self, probe: npt.ArrayLike) -> np.ndarray:
        """A bool mask: True where the probe key is in the set."""
        p = id_array(probe, "probe")
        out = np.empty(len(p), dtype=np.bool_)
        self._set._contains(p, out)
        return out

    def count_contained(self, probe: npt.ArrayLike) -> int:
        """How many of probe's keys are in the set (a semi-join, counted)."""
        return self._set.count_contained(id_array(probe, "probe"))

    def __len__(self) -> int:
        return self._set.size

    @property
    def memory_bytes(self) -> int:
        """Bytes of the set's smart arrays."""
        return self._set.memory_bytes

    def close(self) -> None:
        """Releases the set's memory."""
        self._set.close()
