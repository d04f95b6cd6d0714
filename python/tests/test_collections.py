"""The collections from Python: group-by, hash join and Index against numpy references and the C
ABI's semantics, adversarial keys, placements on a fake topology, errors, and the GIL released."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import smartarrays as sa

MAX = np.iinfo(np.uint64).max


def reference(keys: np.ndarray, values: np.ndarray, aggregate: str) -> tuple[np.ndarray, np.ndarray]:
    out_keys = np.unique(keys)
    out = []
    for k in out_keys:
        v = np.sort(values[keys == k])
        out.append({"count": len(v), "sum": int(v.sum(dtype=np.uint64)), "min": v[0], "max": v[-1],
                    "median": v[(len(v) - 1) // 2]}[aggregate])
    return out_keys, np.array(out, dtype=np.uint64)


CASES = {
    "skewed": (np.random.default_rng(1).zipf(1.5, 3000) % 500, np.random.default_rng(2).integers(0, 1000, 3000)),
    "all equal": (np.full(100, 7), np.arange(100)[::-1]),
    "all distinct": (np.arange(2000)[::-1], np.arange(2000) * 3),
    "extremes": (np.array([0, MAX, 0, MAX, 5], dtype=np.uint64), np.array([1, 2, 3, MAX, 0], dtype=np.uint64)),
    "empty": (np.array([], dtype=np.uint64), np.array([], dtype=np.uint64)),
}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("aggregate", ["count", "sum", "min", "max", "median"])
def test_group_by_matches_numpy(case: str, aggregate: str) -> None:
    keys, values = (np.asarray(c, dtype=np.uint64) for c in CASES[case])
    got_keys, got = getattr(sa.group_by(keys, values), aggregate)()
    want_keys, want = reference(keys, values, aggregate)
    np.testing.assert_array_equal(got_keys, want_keys)
    np.testing.assert_array_equal(got, want)


def test_joins_and_index_match_numpy() -> None:
    rng = np.random.default_rng(3)
    build, probe = rng.integers(0, 300, 500, dtype=np.uint64), rng.integers(0, 400, 4000, dtype=np.uint64)
    counts = np.array([np.count_nonzero(build == k) for k in probe], dtype=np.uint64)
    left, right = sa.hash_join(build, probe)
    assert len(left) == counts.sum() == sa.hash_join_count(build, probe)
    np.testing.assert_array_equal(build[left], probe[right])
    index = sa.Index(build)
    got, first = index.lookup(probe)
    np.testing.assert_array_equal(got, counts)
    assert index.count_matches(probe) == counts.sum()
    hit = int(np.argmax(got))
    assert build[index.row(int(first[hit]))] == probe[hit]
    assert index.size == 500 and index.memory_bytes > 0
    index.close()
    with pytest.raises(ValueError, match="closed Index"):
        index.lookup(probe)


def test_placements_on_a_fake_topology() -> None:
    sa.set_fake_topology("nodes=2")
    try:
        keys, values = (np.asarray(c, dtype=np.uint64) for c in CASES["skewed"])
        for placement in ["interleaved", "replicated", "partitioned"]:
            np.testing.assert_array_equal(sa.group_by(keys, values, placement).median()[1], reference(keys, values, "median")[1])
            assert sa.hash_join_count(keys, values, placement) == sa.hash_join_count(keys, values)
    finally:
        sa.set_fake_topology("")


def test_errors() -> None:
    with pytest.raises(ValueError, match="differ in length"):
        sa.group_by([1, 2], [1])
    with pytest.raises(ValueError, match="negative"):
        sa.group_by([-1], [1])
    with pytest.raises(ValueError, match="unknown placement"):
        sa.hash_join([1], [1], "everywhere")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown aggregate"):
        sa.GroupBy([1], [1])._run("mode")


def test_the_gil_is_released() -> None:
    keys = np.random.default_rng(4).integers(0, 1 << 40, 2_000_000, dtype=np.uint64)
    ticks = []
    stop = threading.Event()

    def tick() -> None:
        while not stop.is_set():
            ticks.append(1)
            stop.wait(0.001)

    thread = threading.Thread(target=tick)
    thread.start()
    try:
        sa.group_by(keys, keys).median()
    finally:
        stop.set()
        thread.join()
    assert len(ticks) > 1
