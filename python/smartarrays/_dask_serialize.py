"""Dask serialization of SmartArrays, Graphs and Stores (docs/dask.md): a small header and one frame
per array that is a read-only view of its packed words and padding word (no copy when sending);
a received array is built over its frame in place when the frame is a bytes object's, else over a
copy of it. Registered with distributed's dask_serialize / dask_deserialize, and dask's sizeof (the
packed bytes, which Dask's memory accounting and transfer counters use), when this module is
imported (smartarrays does so once distributed is loaded)."""

from __future__ import annotations

from collections.abc import Sequence

from dask.sizeof import sizeof
from distributed.protocol import dask_deserialize, dask_serialize

from . import _core
from ._args import is_integer, received_directed, received_shape, shown
from ._core import SmartArray
from .graph import Graph
from .store import Store

Header = dict[str, object]
Frames = list[memoryview]


def _bytes(frame: object) -> memoryview:
    """A received frame (bytes, bytearray, memoryview) as a memoryview of unsigned bytes over the same
    memory, which still names the frame's object: the core uses a frame of a bytes object in place
    and copies any other (its owner may write it later)."""
    return memoryview(frame).cast("B")  # type: ignore[arg-type]


def _array_parts(array: SmartArray) -> tuple[Header, Frames]:
    length, bits, words = _core._array_frame(array)
    return {"length": length, "bits": bits}, [memoryview(words)]


def _graph_parts(graph: Graph) -> tuple[Header, Frames]:
    directed, shares_reverse, parts = _core._graph_frames(graph._native)
    header = {"directed": directed, "arrays": [[length, bits] for length, bits, _ in parts]}
    return header, [memoryview(words) for _, _, words in parts]


def _field(header: object, key: str, what: str) -> object:
    """header[key] of a received message; ValueError naming what when the header has no such key."""
    if not isinstance(header, dict) or key not in header:
        raise ValueError(f"malformed {what} in a Dask message: its header has no {key!r}")
    return header[key]


def _array_from(header: Header, frames: Sequence[object]) -> SmartArray:
    what = "SmartArray"
    length, bits = received_shape(_field(header, "length", what), _field(header, "bits", what), what + " in a Dask message")
    if len(frames) != 1:
        raise ValueError(f"malformed {what} in a Dask message: 1 frame expected, {len(frames)} came")
    return _core._array_from_frame(length, bits, _bytes(frames[0]))


def _graph_from(header: Header, frames: Sequence[object]) -> Graph:
    what = "Graph in a Dask message"
    arrays = _field(header, "arrays", "Graph")
    if not isinstance(arrays, list) or not all(isinstance(a, (list, tuple)) and len(a) == 2 for a in arrays):
        raise ValueError(f"malformed {what}: expected a (length, bits) pair per array, got {shown(arrays)}")
    if len(arrays) != len(frames):
        raise ValueError(f"graph header names {len(arrays)} arrays, {len(frames)} frames came")
    parts = [(*received_shape(length, bits, what), _bytes(frame)) for (length, bits), frame in zip(arrays, frames)]
    return Graph(_core._graph_from_frames(parts, received_directed(_field(header, "directed", "Graph"), what)))


_PARTS = {"array": _array_parts, "graph": _graph_parts}
_FROM = {"array": _array_from, "graph": _graph_from}


def _store_parts(store: Store) -> tuple[Header, Frames]:
    objects: list[list[object]] = []
    frames: Frames = []
    for name, obj in store.items():
        kind = "graph" if isinstance(obj, Graph) else "array"
        header, parts = _PARTS[kind](obj)  # type: ignore[operator]
        objects.append([name, kind, len(parts), header])
        frames.extend(parts)
    return {"objects": objects}, frames


def _store_from(header: Header, frames: Sequence[object]) -> Store:
    what = "Store in a Dask message"
    objects = _field(header, "objects", "Store")
    if not isinstance(objects, list):
        raise ValueError(f"malformed {what}: objects must be a list, got {shown(objects)}")
    opened: list[tuple[str, str, object]] = []
    start = 0
    for entry in objects:
        if not (isinstance(entry, (list, tuple)) and len(entry) == 4 and isinstance(entry[0], str) and entry[1] in _FROM
                and is_integer(entry[2]) and 0 <= entry[2] <= len(frames) - start):
            raise ValueError(f"malformed {what}: expected [name, 'array' or 'graph', frame count, header], got {shown(entry)}")
        name, kind, count, sub = entry
        obj = _FROM[kind](sub, frames[start : start + count])
        opened.append((name, kind, obj._native if isinstance(obj, Graph) else obj))
        start += count
    return Store(opened, "recv")


dask_serialize.register(SmartArray)(_array_parts)
dask_deserialize.register(SmartArray)(_array_from)
dask_serialize.register(Graph)(_graph_parts)
dask_deserialize.register(Graph)(_graph_from)
dask_serialize.register(Store)(_store_parts)
dask_deserialize.register(Store)(_store_from)


@sizeof.register(SmartArray)
def _array_bytes(array: SmartArray) -> int:
    return int(array.nbytes)


@sizeof.register(Graph)
def _graph_bytes(graph: Graph) -> int:
    return int(graph.memory().total_bytes)


@sizeof.register(Store)
def _store_bytes(store: Store) -> int:
    return sum(sizeof(obj) for obj in store.values())
