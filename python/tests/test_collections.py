"""The collections from Python: group-by, hash join, Index, HashMap and HashSet against numpy and
dict references and the C ABI's semantics, adversarial keys, placements on a fake topology, errors,
and the GIL released."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable

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


def test_join_pairs_beyond_the_memory_limit_are_refused_before_any_is_made() -> None:
    ones = np.ones(1_000_000, dtype=np.uint64)
    assert sa.hash_join_count(ones, ones) == 10**12
    with pytest.raises(MemoryError, match=r"^hash join: 1000000000000 pairs need at least 29\.1 TiB \(32 bytes a pair\)"):
        sa.hash_join(ones, ones)


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


def ticks_during(work: Callable[[], object]) -> int:
    """How often another Python thread ticked (every millisecond) while work ran."""
    ticks = []
    stop = threading.Event()

    def tick() -> None:
        while not stop.is_set():
            ticks.append(1)
            stop.wait(0.001)

    thread = threading.Thread(target=tick)
    thread.start()
    try:
        work()
    finally:
        stop.set()
        thread.join()
    return len(ticks)


def test_the_gil_is_released() -> None:
    keys = np.random.default_rng(4).integers(0, 1 << 40, 2_000_000, dtype=np.uint64)
    assert ticks_during(lambda: sa.group_by(keys, keys).median()) > 1


MAP_CASES = {
    "extremes": ([0, 2**64 - 1, 5], [2**64 - 1, 0, 7]),
    "all equal": ([9] * 1000, list(range(1000))),
    "one key": ([3], [4]),
    "empty": ([], []),
    "distinct wide": (list(np.random.default_rng(5).integers(0, 2**63, 20000, dtype=np.uint64)), list(range(20000))),
}


@pytest.mark.parametrize("case", MAP_CASES)
def test_hash_map_and_set_match_a_dict(case: str) -> None:
    keys, values = (np.asarray(c, dtype=np.uint64) for c in MAP_CASES[case])
    reference = dict(zip(keys.tolist(), values.tolist()))  # the last row wins, as in HashMap
    probe = np.concatenate([keys, keys + np.uint64(1), np.array([0, 1, 2**64 - 1], dtype=np.uint64)])
    hash_map, hash_set = sa.HashMap(keys, values), sa.HashSet(keys)
    assert len(hash_map) == len(hash_set) == len(reference)
    assert hash_map.memory_bytes > 0 and hash_set.memory_bytes > 0
    want_found = np.array([k in reference for k in probe.tolist()], dtype=bool)
    missing = 2**64 - 2
    got = hash_map.get(probe, missing=missing)
    assert got.dtype == np.uint64
    np.testing.assert_array_equal(got, [reference.get(k, missing) for k in probe.tolist()])
    values_found, found = hash_map.find(probe)
    np.testing.assert_array_equal(found, want_found)
    np.testing.assert_array_equal(values_found[found], got[found])
    np.testing.assert_array_equal(hash_set.contains(probe), want_found)
    assert hash_set.count_contained(probe) == int(want_found.sum())


def test_hash_map_placements_and_errors() -> None:
    sa.set_fake_topology("nodes=2")
    try:
        keys = np.arange(5000, dtype=np.uint64) * np.uint64(3)
        for placement in ["single_node", "interleaved", "replicated", "partitioned"]:
            np.testing.assert_array_equal(sa.HashMap(keys, keys, placement).get(keys), keys)
            assert sa.HashSet(keys, placement).count_contained(keys) == 5000
    finally:
        sa.set_fake_topology("")
    with pytest.raises(ValueError, match=r"hash map: keys and values differ in length \(2 and 1\)"):
        sa.HashMap([1, 2], [1])
    with pytest.raises(ValueError, match="negative"):
        sa.HashSet([-1])
    hash_map = sa.HashMap([1], [2])
    with pytest.raises(ValueError, match=r"missing must be from 0 to 2\^64 - 1, got -1"):
        hash_map.get([1], missing=-1)
    with pytest.raises(ValueError, match="missing must be"):
        hash_map.get([1], missing=2**64)
    with pytest.raises(TypeError, match="missing must be an integer"):
        hash_map.get([1], missing=0.5)
    assert hash_map.get([1, 3], missing=2**64 - 1).tolist() == [2, 2**64 - 1]
    hash_map.close()
    with pytest.raises(ValueError, match="closed HashMap"):
        hash_map.get([1])


def test_hash_map_probes_release_the_gil() -> None:
    keys = np.random.default_rng(6).integers(0, 1 << 40, 2_000_000, dtype=np.uint64)
    hash_map = sa.HashMap(keys, keys)
    assert ticks_during(lambda: [hash_map.get(keys) for _ in range(5)]) > 1


OUT_OF_MEMORY_CHILD = """
import resource, numpy as np, smartarrays as sa
keys = np.arange(1 << 21, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
sa.HashSet(keys[:1024])  # the pool and its workers' arenas exist before the limit
size = int(next(l for l in open("/proc/self/status") if l.startswith("VmSize:")).split()[1]) * 1024
# Room for the columns (16 MiB each), not for the build's 32 MiB of partitioned rows or a sort's scratch.
resource.setrlimit(resource.RLIMIT_AS, (size + (40 << 20), resource.RLIM_INFINITY))
for make in (lambda: sa.HashMap(keys, keys), lambda: sa.HashSet(keys), lambda: sa.group_by(keys, keys).median()):
    try:
        make()
        print("no error")
    except MemoryError as e:
        print("MemoryError", e)
"""


def test_out_of_memory_is_a_memory_error() -> None:
    """In a child whose address space may grow by only 40 MiB, building on 2M wide keys raises MemoryError."""
    run = subprocess.run([sys.executable, "-c", OUT_OF_MEMORY_CHILD], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 3 and all(line.startswith("MemoryError") for line in lines), run.stdout
