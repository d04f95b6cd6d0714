"""smartarrays.dask on a LocalCluster of 2 worker processes: collections from Dask arrays (uneven
and empty blocks) reduce to exactly the local results, the paper's aggregation, map_blocks and
to_dask_array, the distributed group-by, distributed PageRank equal to the local one to 1e-12 on 1, 2 and 3 parts (from a
graph and from a .sg file), a bad graph file reported with the core's message, a killed worker,
and a real `dask scheduler` and `dask worker` started as separate processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("distributed")

import dask.array as da  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402

import smartarrays as sa  # noqa: E402
import smartarrays.dask as sad  # noqa: E402
from smartarrays import _core  # noqa: E402


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    """A client of a 2-worker-process LocalCluster (one thread each, no dashboard)."""
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as c:
            yield c


def _values(n: int, bits: int, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 2**bits, size=n, dtype=np.uint64)


def _sum(values: np.ndarray) -> int:
    return int(values.sum(dtype=np.uint64))


@pytest.mark.parametrize("chunks", [(1000,), (1, 0, 998, 1), (300, 0, 0, 700), (0,)])
def test_collections_reduce_like_the_local_array(client: Client, chunks: tuple[int, ...]) -> None:
    values = _values(sum(chunks), 10)
    x = da.from_array(values, chunks=(chunks,))
    col = sad.from_dask_array(x, bits="auto")
    assert col.chunks == chunks
    assert len(col) == len(values)
    assert col.sum() == sa.array(values).sum() == _sum(values)
    assert col.count(lambda v: v > 500) == int(np.count_nonzero(values > 500))
    np.testing.assert_array_equal(col.to_dask_array().compute(), values)
    np.testing.assert_array_equal(col.map_blocks(lambda v: v * 2).compute(), values * 2)
    if len(values):
        assert col.min() == int(values.min())
        assert col.max() == int(values.max())
    else:
        with pytest.raises(ValueError, match="empty SmartCollection"):
            col.min()


def test_sums_wrap_like_the_core(client: Client) -> None:
    values = np.full(10, 2**63 + 5, dtype=np.uint64)
    col = sad.from_dask_array(da.from_array(values, chunks=3), bits=64)
    assert col.sum() == sa.array(values).sum() == (10 * (2**63 + 5)) % 2**64


def test_blocks_stay_compressed_on_the_workers(client: Client) -> None:
    col = sad.from_dask_array(da.from_array(_values(5000, 10), chunks=1000), bits="auto", placement="interleaved")
    held = client.gather([client.submit(lambda b: (type(b).__name__, b.bits, b.placement), f) for f in col.blocks])
    assert held == [("SmartArray", 10, "interleaved")] * 5  # as placed on the worker
    received = client.gather(col.blocks)
    assert all(isinstance(b, sa.SmartArray) and b.bits == 10 for b in received)  # used in place where they arrived
    assert all(key[0].startswith("smartarrays-encode-") for key in (f.key for f in col.blocks))


def test_aggregation_of_two_collections(client: Client) -> None:
    a, b = _values(7000, 12, 1), _values(7000, 20, 2)
    c1 = sad.from_dask_array(da.from_array(a, chunks=2000))
    c2 = sad.from_dask_array(da.from_array(b, chunks=2000))
    assert sad.aggregate(c1, c2) == sa.aggregate(sa.array(a), sa.array(b)) == (_sum(a) + _sum(b)) % 2**64
    c3 = sad.from_dask_array(da.from_array(b, chunks=3000))
    with pytest.raises(ValueError, match="blocks differ"):
        sad.aggregate(c1, c3)


@pytest.mark.parametrize("chunks", [(1000,), (1, 0, 998, 1), (0,)])
def test_group_by_equals_the_local_one(client: Client, chunks: tuple[int, ...]) -> None:
    n = sum(chunks)
    keys = _values(n, 6, 3)
    values = np.random.default_rng(4).integers(0, 2**64, size=n, dtype=np.uint64)  # sums wrap
    if n:
        keys[0], keys[-1] = 0, 2**64 - 1
    grouped = sad.group_by(sad.from_dask_array(da.from_array(keys, chunks=chunks)),
                           sad.from_dask_array(da.from_array(values, chunks=chunks)))
    local = sa.group_by(keys, values)
    for aggregate in ("count", "sum", "min", "max"):
        got, want = getattr(grouped, aggregate)(), getattr(local, aggregate)()
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
    assert len(grouped.count()[0]) == len(np.unique(keys))
    other = sad.from_dask_array(da.from_array(np.zeros(n + 1, dtype=np.uint64), chunks=n + 1))
    with pytest.raises(ValueError, match="blocks differ"):
        sad.group_by(other, sad.from_dask_array(da.from_array(keys, chunks=chunks)))


def test_bad_arguments(client: Client) -> None:
    with pytest.raises(TypeError, match="dask.array.Array"):
        sad.from_dask_array(np.arange(3))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="1-D"):
        sad.from_dask_array(da.zeros((2, 2), dtype=np.uint64, chunks=1))
    with pytest.raises(TypeError, match="integer"):
        sad.from_dask_array(da.zeros(4, dtype=np.float64, chunks=2))
    col = sad.from_dask_array(da.from_array(np.arange(10, dtype=np.int64), chunks=5))
    with pytest.raises(TypeError, match="callable"):
        col.count(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="bits"):
        sad.from_dask_array(da.from_array(np.arange(4), chunks=2), bits="few")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="out of range"):
        sad.from_dask_array(da.from_array(np.arange(4), chunks=2), placement="single_node", nodes=10**6)
    negative = sad.from_dask_array(da.from_array(np.array([1, -1]), chunks=1))
    with pytest.raises(ValueError, match="negative"):
        negative.sum()
    # Wrong types are refused on the client, naming the argument, before any task reaches a worker.
    with pytest.raises(TypeError, match="placement must be a str"):
        sad.from_dask_array(da.from_array(np.arange(4), chunks=2), placement=3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="c2 must be a SmartCollection"):
        sad.aggregate(col, np.arange(10))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="keys must be a SmartCollection"):
        sad.group_by([1, 2], col)  # type: ignore[arg-type]
    for parts in (True, 1.5, "2"):
        with pytest.raises(TypeError, match="parts must be an int or None"):
            sad.graph_parts(_graph(), parts=parts)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="got a list holding int"):
        sad.pagerank([1, 2, 3])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="graph must be a Graph or a .sg path, got int"):
        sad.graph_parts(3)  # type: ignore[arg-type]


def _graph() -> sa.Graph:
    return sa.Graph.rmat(scale=9, edge_factor=4, seed=5)


@pytest.mark.parametrize("parts", [1, 2, 3])
@pytest.mark.parametrize("dangling", ["none", "uniform"])
def test_pagerank_equals_the_local_one(client: Client, parts: int, dangling: str) -> None:
    g = _graph()
    local = g.pagerank(tol=1e-6, dangling=dangling)
    run = sad.pagerank(g, tol=1e-6, dangling=dangling, parts=parts)
    assert run.converged
    np.testing.assert_allclose(run.ranks, local, rtol=0, atol=1e-12)


def test_parts_default_to_one_per_worker_at_most_one_per_vertex(client: Client) -> None:
    # One vertex and two workers: one part (the default once asked for two and named "parts").
    tiny = sa.Graph.from_edges([0], [0])
    np.testing.assert_allclose(sad.pagerank(tiny).ranks, tiny.pagerank(), rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="^parts must be at most 1 for a graph of 1 vertices, got 2$"):
        sad.graph_parts(tiny, parts=2)
    with pytest.raises(TypeError, match="^client must be a distributed.Client or None, got str$"):
        sad.pagerank(tiny, client="scheduler:8786")  # type: ignore[arg-type]


def test_the_same_graph_cut_again_keeps_each_runs_parts(client: Client) -> None:
    # Equal parts scattered by two calls got one content-named key: releasing the first call's
    # parts lost the second's ("lost dependencies").
    g = _graph()
    local = g.pagerank(tol=1e-6)
    for _ in range(4):
        np.testing.assert_allclose(sad.pagerank(g, tol=1e-6, parts=2).ranks, local, rtol=0, atol=1e-12)


def test_parts_cut_once_serve_many_runs(client: Client) -> None:
    g = _graph()
    held = sad.graph_parts(g, parts=2)
    first = sad.pagerank(held, tol=0.0, max_iterations=3)
    again = sad.pagerank(held, tol=0.0, max_iterations=3)
    assert first.iterations == again.iterations == 3
    assert not first.converged
    np.testing.assert_array_equal(first.ranks, again.ranks)
    np.testing.assert_allclose(first.ranks, g.pagerank(tol=0.0, max_iterations=3), rtol=0, atol=1e-12)


def test_parts_hold_their_out_offsets_whose_differences_are_the_out_degrees(client: Client, tmp_path: Path) -> None:
    directed = _graph()
    src = np.array([0, 0, 1, 2, 3, 5], dtype=np.uint64)
    undirected = sa.Graph.from_edges(src, np.array([1, 2, 2, 3, 4, 5], dtype=np.uint64), vertices=7, directed=False)
    path = tmp_path / "g.sg"
    _write_sg(directed, path)
    # Held to the end: released while the PageRank below submits the same keys, the scheduler can
    # drop them under it ("lost dependencies").
    cases = ((directed, sad.graph_parts(directed, parts=3)), (undirected, sad.graph_parts(undirected, parts=2)),
             (directed, sad.graph_parts(path, parts=3)))
    for g, held in cases:
        parts = client.gather(held)
        degrees = np.diff(g.array("begin").to_numpy().astype(np.int64))
        assert [p.count for p in parts] == [len(p.rbegin) - 1 for p in parts]
        assert all(p.begin[0] == 0 for p in parts if p.count)  # rebased to 0
        derived = np.concatenate([np.diff(p.begin.to_numpy().astype(np.int64)) for p in parts])
        np.testing.assert_array_equal(derived, degrees)
    run = sad.pagerank(undirected, tol=1e-9, parts=2)
    np.testing.assert_allclose(run.ranks, undirected.pagerank(tol=1e-9), rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="begin holds no offsets"):
        _core._pagerank_part_start(sa.array(np.array([], dtype=np.uint64), bits=1), 4)


def test_pagerank_of_a_sg_file_read_by_the_workers(client: Client, tmp_path: Path) -> None:
    g = _graph()
    path = tmp_path / "g.sg"
    _write_sg(g, path)
    run = sad.pagerank(path, tol=1e-6, parts=3)
    np.testing.assert_allclose(run.ranks, g.pagerank(tol=1e-6), rtol=0, atol=1e-12)
    assert run.iterations > 1


def _write_sg(g: sa.Graph, path: Path) -> None:
    """g as a directed GAP .sg file: flag, m, n, out-offsets, out-ids, in-offsets, in-ids."""
    parts = [np.array([1], dtype=np.uint8).tobytes(), np.array([g.edges, g.vertices], dtype=np.int64).tobytes()]
    for offsets, ids in (("begin", "edge"), ("rbegin", "redge")):
        parts.append(g.array(offsets).to_numpy().astype(np.int64).tobytes())  # type: ignore[arg-type]
        parts.append(g.array(ids).to_numpy().astype(np.int32).tobytes())  # type: ignore[arg-type]
    path.write_bytes(b"".join(parts))


def test_a_bad_graph_file_is_reported_with_the_core_message(client: Client, tmp_path: Path) -> None:
    bad = tmp_path / "bad.sg"
    # Undirected, n = 2, m = 2, an id of 7.
    bad.write_bytes(
        np.array([0], np.uint8).tobytes() + np.array([2, 2, 0, 1, 2], np.int64).tobytes() + np.array([1, 7], np.int32).tobytes()
    )
    for path in (bad, bytes(bad)):  # a bytes path is a path, not a list of parts
        with pytest.raises(ValueError, match=r"bad.sg: byte offset 45: vertex id 7 is not below n = 2"):
            sad.pagerank(path, parts=2)
    with pytest.raises(OSError, match="missing.sg"):
        sad.pagerank(tmp_path / "missing.sg")
    with pytest.raises(ValueError, match="damping"):
        sad.pagerank(_graph(), damping=1.5)
    with pytest.raises(ValueError, match="parts"):
        sad.pagerank(_graph(), parts=0)
    with pytest.raises(ValueError, match="at most 512 for a graph of 512 vertices"):
        sad.graph_parts(_graph(), parts=10**9)


def test_a_killed_worker_is_replaced_and_the_result_is_right(client: Client) -> None:
    values = _values(200_000, 10)
    col = sad.from_dask_array(da.from_array(values, chunks=25_000))
    pids = client.run(os.getpid)

    def slow(batch: np.ndarray) -> np.ndarray:
        time.sleep(0.05)
        return batch > 100

    def kill_one() -> None:
        time.sleep(0.1)
        os.kill(next(iter(pids.values())), signal.SIGKILL)

    killer = threading.Thread(target=kill_one)
    killer.start()
    counted = col.count(slow)
    killer.join()
    assert counted == int(np.count_nonzero(values > 100))
    assert col.sum() == _sum(values)
    client.wait_for_workers(2, timeout=60)


def test_a_separate_scheduler_and_worker(tmp_path: Path) -> None:
    scheduler_file = tmp_path / "scheduler.json"
    common = ["--no-dashboard"]
    scheduler = subprocess.Popen(
        [sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1", "--port", "0", "--scheduler-file", str(scheduler_file), *common],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    worker = None
    try:
        deadline = time.monotonic() + 60
        while not scheduler_file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        worker = subprocess.Popen(
            [sys.executable, "-m", "dask", "worker", "--scheduler-file", str(scheduler_file), "--nthreads", "1", *common],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        with Client(scheduler_file=str(scheduler_file), timeout=60) as c:
            c.wait_for_workers(1, timeout=60)
            values = _values(10_000, 17)
            col = sad.from_dask_array(da.from_array(values, chunks=3000), client=c)
            assert col.sum() == _sum(values)
            g = _graph()
            np.testing.assert_allclose(sad.pagerank(g, parts=2, client=c).ranks, g.pagerank(), rtol=0, atol=1e-12)
    finally:
        for process in (worker, scheduler):
            if process is not None:
                process.terminate()
                process.wait(timeout=30)
