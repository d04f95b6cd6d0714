"""Dask serialization of SmartArrays, Graphs and Stores without a cluster: every width and placement
round-trips through distributed's serialize/deserialize and its wire format; the frames sent are
views of the packed words (no copy), arrays received over aligned frames of bytes objects use them
in place and copy any other frame (writing it afterwards changes nothing and crashes nothing), and
hostile frames are refused."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("distributed")

from distributed.protocol import deserialize, dumps, loads, serialize, to_serialize  # noqa: E402

import smartarrays as sa  # noqa: E402
import smartarrays.dask  # noqa: E402,F401 - registers the serialization (smartarrays was imported before distributed)
from smartarrays import _core  # noqa: E402

PLACEMENTS = ["os_default", "single_node", "interleaved", "replicated", "partitioned"]


def _values(n: int, bits: int) -> np.ndarray:
    rng = np.random.default_rng(bits)
    top = 2**bits if bits < 64 else 2**64
    return rng.integers(0, top, size=n, dtype=np.uint64, endpoint=False)


def _address(buffer: object) -> int:
    return np.frombuffer(memoryview(buffer).cast("B"), dtype=np.uint8).ctypes.data  # type: ignore[arg-type]


@pytest.mark.parametrize("bits", range(1, 65))
def test_every_width_round_trips_with_frames_that_are_views(bits: int) -> None:
    values = _values(1000, bits)
    a = sa.array(values, bits=bits)
    header, frames = serialize(a, serializers=["dask"])
    assert header["serializer"] == "dask"
    assert len(frames) == 1
    assert _address(frames[0]) == a.words().ctypes.data  # a view: nothing was copied to send
    assert memoryview(frames[0]).readonly
    assert memoryview(frames[0]).nbytes == (a.words().size + 1) * 8  # the stream and its padding word
    b = deserialize(header, frames)
    assert isinstance(b, sa.SmartArray)
    assert b.bits == bits
    np.testing.assert_array_equal(b.to_numpy(), values)
    assert b.sum() == a.sum()


@pytest.mark.parametrize("placement", PLACEMENTS)
def test_every_placement_round_trips(placement: str) -> None:
    values = _values(70_000, 13)
    a = sa.array(values, bits=13, placement=placement)  # type: ignore[arg-type]
    header, frames = serialize(a, serializers=["dask"])
    assert _address(frames[0]) == a.words().ctypes.data
    b = deserialize(header, frames)
    np.testing.assert_array_equal(b.to_numpy(), values)
    assert b.placement == "os_default"  # used in place, where the frame arrived


def test_a_frame_of_a_bytes_object_is_used_in_place_any_other_is_copied() -> None:
    a = sa.array(_values(5000, 17), bits=17)
    _, frames = serialize(a, serializers=["dask"])
    received = bytes(memoryview(frames[0]).cast("B"))
    assert _address(received) % 8 == 0
    for frame in (received, memoryview(received), memoryview(received).cast("B")):  # nothing can write a bytes object
        b = _core._array_from_frame(len(a), 17, frame)
        assert b.words().ctypes.data == _address(received)
        np.testing.assert_array_equal(b.to_numpy(), a.to_numpy())
    for writable in (bytearray(received), np.frombuffer(bytearray(received), dtype=np.uint8), memoryview(bytearray(received))):
        b = _core._array_from_frame(len(a), 17, writable)
        assert b.words().ctypes.data != _address(writable)
        np.testing.assert_array_equal(b.to_numpy(), a.to_numpy())
    with pytest.raises(TypeError, match="^a frame must be a contiguous buffer of bytes, got str$"):
        _core._array_from_frame(len(a), 17, "words")  # type: ignore[arg-type]


def _writable(frame: object, kind: str) -> object:
    """A received frame copied into a buffer its receiver can write: what distributed's TCP comm reads into."""
    data = bytearray(memoryview(frame).cast("B"))  # type: ignore[arg-type]
    return {"bytearray": data, "numpy": np.frombuffer(data, dtype=np.uint8), "memoryview": memoryview(data)}[kind]


@pytest.mark.parametrize("kind", ["bytearray", "numpy", "memoryview"])
def test_writing_a_frame_after_deserializing_changes_nothing(kind: str) -> None:
    # Before, an array received over a writable frame was a view of it: writing the frame afterwards
    # changed its values (and a graph's, whose PageRank then read outside its arrays: the child below).
    a = sa.array(_values(10_000, 13), bits=13)
    g = sa.Graph.rmat(6, variant="V+E")
    received = {}
    for name, obj in (("array", a), ("graph", g)):
        header, frames = serialize(obj, serializers=["dask"])
        writable = [_writable(frame, kind) for frame in frames]
        received[name] = deserialize(header, writable)
        for frame in writable:
            np.frombuffer(frame, dtype=np.uint8)[:] = 0x55  # type: ignore[call-overload]
    np.testing.assert_array_equal(received["array"].to_numpy(), a.to_numpy())
    for name in ("begin", "edge", "rbegin", "redge"):
        np.testing.assert_array_equal(received["graph"].array(name).to_numpy(), g.array(name).to_numpy())


_WRITES_FRAMES_THEN_RUNS_PAGERANK = textwrap.dedent("""
    import numpy as np
    from distributed.protocol import deserialize, serialize
    import smartarrays as sa
    import smartarrays.dask

    g = sa.Graph.rmat(10, variant="U")
    header, frames = serialize(g, serializers=["dask"])
    received = [bytearray(memoryview(frame).cast("B")) for frame in frames]
    h = deserialize(header, received)
    for frame in received[1::2]:  # edge and redge: ids far past the vertex count, the offsets left sound
        frame[:] = bytes([0xFF]) * len(frame)
    assert np.array_equal(h.pagerank(), g.pagerank())
    print("same ranks")
""")


def test_a_frame_written_after_deserializing_cannot_crash_the_process() -> None:
    # Before, the received graph's ids were the frames' bytes, checked once when received: written
    # afterwards, they sent pagerank() outside its rank arrays and the interpreter died with SIGSEGV.
    run = subprocess.run([sys.executable, "-c", _WRITES_FRAMES_THEN_RUNS_PAGERANK], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, f"exit {run.returncode}: {run.stderr}"
    assert run.stdout == "same ranks\n"


def test_a_misaligned_frame_is_copied() -> None:
    a = sa.array(_values(300, 9), bits=9)
    raw = bytes(memoryview(a.words()).cast("B")) + bytes(8)
    shifted = np.frombuffer(bytes(1) + raw, dtype=np.uint8)[1:]
    b = _core._array_from_frame(300, 9, shifted)
    np.testing.assert_array_equal(b.to_numpy(), a.to_numpy())


def test_through_the_wire_format() -> None:
    a = sa.array(_values(100_000, 10), bits=10)
    frames = dumps({"x": to_serialize(a)})
    got = loads(frames)["x"]
    np.testing.assert_array_equal(got.to_numpy(), a.to_numpy())


def test_empty_and_one_value_arrays() -> None:
    for values in ([], [5]):
        a = sa.array(np.array(values, dtype=np.uint64))
        b = deserialize(*serialize(a, serializers=["dask"]))
        assert b.to_numpy().tolist() == values


@pytest.mark.parametrize("directed", [True, False])
def test_graphs_round_trip(directed: bool) -> None:
    src = np.array([0, 1, 2, 2, 3], dtype=np.uint64)
    dst = np.array([1, 2, 0, 3, 1], dtype=np.uint64)
    g = sa.Graph.from_edges(src, dst, vertices=4, directed=directed, variant="V+E")
    header, frames = serialize(g, serializers=["dask"])
    assert len(frames) == (4 if directed else 2)  # an undirected graph's one CSR goes once; no out_degree
    assert _address(frames[1]) == g.array("edge").words().ctypes.data
    h = deserialize(header, frames)
    assert isinstance(h, sa.Graph)
    assert h.directed == directed
    for name in ("begin", "edge", "rbegin", "redge"):
        np.testing.assert_array_equal(h.array(name).to_numpy(), g.array(name).to_numpy())
    np.testing.assert_allclose(h.pagerank(), g.pagerank(), rtol=0, atol=1e-15)


def test_stores_round_trip(tmp_path: Path) -> None:
    a = sa.array(_values(1234, 21), bits=21)
    g = sa.Graph.from_edges(np.array([0, 1], dtype=np.uint64), np.array([1, 0], dtype=np.uint64), vertices=2)
    sa.save(tmp_path / "s.sa", {"a": a, "g": g})
    with sa.open(tmp_path / "s.sa") as store:
        header, frames = serialize(store, serializers=["dask"])
        assert _address(frames[0]) == store["a"].words().ctypes.data  # mapped pages, sent in place
        got = deserialize(header, frames)
    assert isinstance(got, sa.Store)
    assert list(got) == ["a", "g"]
    np.testing.assert_array_equal(got["a"].to_numpy(), a.to_numpy())
    assert got["g"].edges == g.edges


def test_hostile_frames_are_refused() -> None:
    a = sa.array(_values(100, 7), bits=7)
    header, frames = serialize(a, serializers=["dask"])
    raw = bytearray(memoryview(frames[0]).cast("B"))
    with pytest.raises(ValueError, match="expected"):
        _core._array_from_frame(100, 7, np.frombuffer(raw[:-8], dtype=np.uint8))
    with pytest.raises(ValueError, match="bits must be 1..64"):
        _core._array_from_frame(100, 65, np.frombuffer(raw, dtype=np.uint8))
    with pytest.raises((ValueError, MemoryError)):
        _core._array_from_frame(2**64 - 1, 64, np.frombuffer(raw, dtype=np.uint8))
    padded = bytearray(raw)
    padded[-1] = 1
    with pytest.raises(ValueError, match="padding word"):
        _core._array_from_frame(100, 7, np.frombuffer(padded, dtype=np.uint8))
    past = bytearray(raw)
    past[len(raw) - 9] = 0xFF  # the last stream word holds slots 100..127 of the chunk
    with pytest.raises(ValueError, match="past the length"):
        _core._array_from_frame(100, 7, np.frombuffer(past, dtype=np.uint8))
    with pytest.raises(ValueError, match=r"^Graph in a Dask message: a graph is four arrays \(begin, edge, rbegin, redge\), or two"):
        _core._graph_from_frames([(1, 1, np.frombuffer(bytes(16), dtype=np.uint8))], True)


def test_an_undirected_graph_of_four_separate_frames_is_refused() -> None:
    # An undirected graph is one CSR and travels as two frames (begin, edge). Before, a header saying
    # undirected over a directed graph's four frames was taken as a graph whose reverse was its own:
    # written as .sg it gave a file the .sg reader refuses, as .el other edges than it held.
    g = sa.Graph.from_edges([0, 1, 2, 2], [1, 2, 0, 3], vertices=4, directed=True)
    header, frames = serialize(g, serializers=["dask"])
    assert len(frames) == 4
    with pytest.raises(ValueError, match=r"^Graph in a Dask message: an undirected graph's rbegin and redge slots must name begin's "
                                         r"and edge's blocks \(both: its one CSR\), but slots begin, edge, rbegin, redge name blocks 0, 1, 2, 3$"):
        deserialize({**header, "sub-header": {**header["sub-header"], "directed": False}}, frames)
    arrays = header["sub-header"]["arrays"]
    with pytest.raises(ValueError, match=r"^Graph in a Dask message: a directed graph's rbegin and redge cannot be its begin and edge"):
        deserialize({**header, "sub-header": {"directed": True, "arrays": arrays[:2]}}, frames[:2])


def test_malformed_headers_are_value_errors_naming_what_is_wrong() -> None:
    # A header from the wire with missing keys, wrong types or frame counts that do not add up gave
    # KeyError, IndexError or the binding's signature dump.
    from smartarrays._dask_serialize import _array_from, _graph_from, _store_from

    frame = np.zeros(16, dtype=np.uint8)
    with pytest.raises(ValueError, match="^malformed SmartArray in a Dask message: its header has no 'bits'$"):
        _array_from({"length": 1}, [frame])
    with pytest.raises(ValueError, match="^malformed SmartArray in a Dask message: an array's length and bits must be ints >= 0, got -1 and 7$"):
        _array_from({"length": -1, "bits": 7}, [frame])
    with pytest.raises(ValueError, match="^malformed SmartArray in a Dask message: 1 frame expected, 0 came$"):
        _array_from({"length": 1, "bits": 7}, [])
    with pytest.raises(ValueError, match="^malformed Graph in a Dask message: its header has no 'arrays'$"):
        _graph_from({}, [])
    with pytest.raises(ValueError, match="^malformed Graph in a Dask message: expected a .length, bits. pair per array"):
        _graph_from({"arrays": [1, 2], "directed": True}, [frame, frame])
    with pytest.raises(ValueError, match="directed must be a bool, got 'yes'"):
        _graph_from({"arrays": [[1, 1], [0, 1]], "directed": "yes"}, [frame, frame])
    with pytest.raises(ValueError, match="^malformed Store in a Dask message: expected \\[name, 'array' or 'graph', frame count, header\\]"):
        _store_from({"objects": [["a", "table", 1, {}]]}, [frame])
    with pytest.raises(ValueError, match="frame count"):
        _store_from({"objects": [["a", "array", 2, {"length": 1, "bits": 7}]]}, [frame])


def test_dask_counts_the_packed_bytes() -> None:
    from dask.sizeof import sizeof

    a = sa.array(_values(100_000, 10), bits=10)
    assert sizeof(a) == a.nbytes < 100_000 * 10 // 8 + 8192
    g = sa.Graph.rmat(scale=6, edge_factor=4)
    assert sizeof(g) == g.memory().total_bytes
