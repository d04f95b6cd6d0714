"""Smart collections over numpy columns: group-by (count, sum, min, max, exact median), hash join
and a sorted index. Each call makes the columns into smart arrays in the fewest bits (placed as
asked) and runs the C++ operators in parallel with the GIL released; results are numpy arrays."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from . import _core
from ._args import Placement, unsigned_values


def _u64(values: npt.ArrayLike) -> np.ndarray:
    return unsigned_values(values).astype(np.uint64, copy=False)


class GroupBy:
    """Values grouped by keys (equal lengths); each aggregate returns (distinct keys ascending,
    aggregate per key) as uint64 numpy arrays."""

    def __init__(self, keys: npt.ArrayLike, values: npt.ArrayLike, placement: Placement = "os_default") -> None:
        self._keys = _u64(keys)
        self._values = _u64(values)
        if len(self._keys) != len(self._values):
            raise ValueError(f"group by: keys and values differ in length ({len(self._keys)} and {len(self._values)})")
        self._placement = placement

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
    return _core._hash_join(_u64(left), _u64(right), placement)


def hash_join_count(left: npt.ArrayLike, right: npt.ArrayLike, placement: Placement = "os_default") -> int:
    """The number of pairs with left[i] == right[j]."""
    return _core._hash_join_count(_u64(left), _u64(right), placement)


class Index:
    """A read-only sorted index of keys[i] -> i (sorted smart array plus a radix directory)."""

    def __init__(self, keys: npt.ArrayLike, placement: Placement = "os_default") -> None:
        self._index = _core._index(_u64(keys), placement)

    def lookup(self, probe: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """(counts, first) per probe key: counts[k] rows hold it, the first at sorted position first[k]."""
        return self._index._lookup(_u64(probe))

    def row(self, position: int) -> int:
        """The row of the key at sorted position position."""
        return self._index.row(position)

    def count_matches(self, probe: npt.ArrayLike) -> int:
        """The sum of lookup(probe)'s counts (an index nested loop join, counted)."""
        return self._index.count_matches(_u64(probe))

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
