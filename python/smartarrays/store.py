"""The compact form (docs/compact-format.md): named SmartArrays and Graphs saved to a store file and
opened back mapped (used in place from the file's pages) or loaded into a placement, sent over a
file descriptor and received into one placed region, and pickled with protocol-5 out-of-band
buffers. Every file and stream operation runs in the core; this module only normalises arguments."""

from __future__ import annotations

import os
import pickle
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Literal, Protocol, Union

import numpy as np

from . import _core
from ._args import (
    HugePages,
    Nodes,
    Placement,
    flag,
    huge_pages_arg,
    node_list,
    path_arg,
    received_directed,
    received_shape,
    shown,
    unsigned_value,
    word,
)
from ._core import SmartArray
from .graph import Graph

StoreObject = Union[SmartArray, Graph]
"""What a store holds: arrays and graphs."""

Objects = Union[StoreObject, Mapping[str, StoreObject]]
"""One object (saved as "array" or "graph") or a mapping of names to objects."""


class _HasFileno(Protocol):
    def fileno(self) -> int: ...


FileDescriptor = Union[int, _HasFileno]
"""A file descriptor, or an object with fileno() (a socket, a file)."""


def _named(objects: Objects) -> tuple[list[str], list[object]]:
    """Names and native handles of objects; TypeError for anything but arrays and graphs."""
    if isinstance(objects, (SmartArray, Graph)):
        objects = {"array" if isinstance(objects, SmartArray) else "graph": objects}
    if not isinstance(objects, Mapping):
        raise TypeError(f"expected a SmartArray, a Graph or a mapping of names to them, got {type(objects).__name__}")
    names: list[str] = []
    handles: list[object] = []
    for name, obj in objects.items():
        if not isinstance(name, str):
            raise TypeError(f"object names must be str, got {type(name).__name__}")
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"object name {name!r} is not valid UTF-8 (a store names objects in UTF-8)") from None
        if isinstance(obj, Graph):
            handles.append(obj._native)
        elif isinstance(obj, SmartArray):
            handles.append(obj)
        else:
            raise TypeError(f"object {name!r} is a {type(obj).__name__}, not a SmartArray or a Graph")
        names.append(name)
    return names, handles


def _fd(fd: FileDescriptor) -> int:
    """The descriptor number of fd: an int (numpy's too) or what fd.fileno() returns, from 0 to
    2^31 - 1 (the C int the core takes); TypeError for a bool or a non-integer, ValueError out of range."""
    if isinstance(fd, (int, np.integer)):
        return unsigned_value(fd, "fd", 31)
    if not callable(getattr(fd, "fileno", None)):
        raise TypeError(f"fd must be a file descriptor (an int) or have fileno(), got {type(fd).__name__}")
    return unsigned_value(fd.fileno(), "fd.fileno()", 31)


class Store(Mapping[str, StoreObject]):
    """An open store: its arrays and graphs by name, in directory order. Objects taken from it stay
    valid after close() (they share its memory: the mapping, or the loaded or received copies)."""

    __slots__ = ("_objects", "_mode")

    def __init__(self, opened: list[tuple[str, str, object]], mode: str) -> None:
        """Wraps what the core opened; use smartarrays.open() or smartarrays.recv()."""
        self._objects: dict[str, StoreObject] | None = {
            name: (Graph(handle) if kind == "graph" else handle) for name, kind, handle in opened  # type: ignore[arg-type]
        }
        self._mode = mode

    def _live(self) -> dict[str, StoreObject]:
        if self._objects is None:
            raise ValueError("operation on a closed Store")
        return self._objects

    @property
    def mode(self) -> str:
        """"map" (views over the file's pages), "load" (copies), or "recv" (one received region)."""
        return self._mode

    @property
    def closed(self) -> bool:
        """True after close()."""
        return self._objects is None

    def __getitem__(self, name: str) -> StoreObject:
        """The array or graph named name; KeyError if there is none."""
        return self._live()[name]

    def __iter__(self) -> Iterator[str]:
        """The names, in directory order."""
        return iter(list(self._live()))

    def __len__(self) -> int:
        """Number of objects."""
        return len(self._live())

    def close(self) -> None:
        """Forgets the objects; their memory goes once no object taken from the store is in use."""
        self._objects = None

    def __enter__(self) -> Store:
        """Returns the store itself; ValueError once closed."""
        self._live()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        """Closes the store."""
        self.close()

    def __repr__(self) -> str:
        """Mode and names."""
        if self._objects is None:
            return "Store(closed)"
        return f"Store(mode={self._mode!r}, names={list(self._objects)!r})"


def save(path: str | bytes | os.PathLike[str], objects: Objects) -> None:
    """Writes objects as a new store at path (the file is replaced only once the new one is complete)."""
    names, handles = _named(objects)
    _core._store_write(path_arg(path), names, handles)


def append(path: str | bytes | os.PathLike[str], objects: Objects) -> None:
    """Adds objects to the store at path without rewriting it; their names must be new."""
    names, handles = _named(objects)
    _core._store_append(path_arg(path), names, handles)


def open(  # noqa: A001 - sa.open, as the issue names it
    path: str | bytes | os.PathLike[str],
    mode: Literal["map", "load"] = "map",
    placement: Placement = "os_default",
    nodes: Nodes = None,
    huge_pages: HugePages = "auto",
) -> Store:
    """Opens the store at path: mode="map" uses the file's pages in place (no copy, read-only),
    mode="load" copies every block (checksums checked) into placement."""
    if word(mode, "mode") not in ("map", "load"):
        raise ValueError(f"mode must be 'map' or 'load', got {mode!r}")
    opened = _core._store_open(path_arg(path), mode, word(placement, "placement"), node_list(nodes), huge_pages_arg(huge_pages))
    return Store(opened, mode)


@dataclass(frozen=True)
class VerifyReport:
    """What verify() found: counts, and one line per problem (empty when the store is sound)."""

    objects: int
    blocks: int
    bytes_checked: int
    uncommitted_bytes: int
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """True when no problem was found."""
        return not self.problems


def verify(path: str | bytes | os.PathLike[str], deep: bool = False) -> VerifyReport:
    """Checks every block's checksum of the store at path and, with deep, every graph's CSR invariants."""
    objects, blocks, checked, uncommitted, problems = _core._store_verify(path_arg(path), flag(deep, "deep"))
    return VerifyReport(objects, blocks, checked, uncommitted, tuple(problems))


def send(fd: FileDescriptor, objects: Objects) -> None:
    """Sends objects over fd (a socket, pipe or file) as one store stream, the packed words straight
    from memory, waiting while the peer is not reading (also on a non-blocking socket: a socket's
    Python timeout is not applied; Ctrl-C stops the wait); OSError when the peer has closed."""
    names, handles = _named(objects)
    _core._store_send(_fd(fd), names, handles)


def recv(
    fd: FileDescriptor,
    placement: Placement = "os_default",
    nodes: Nodes = None,
    huge_pages: HugePages = "auto",
    max_bytes: int = 0,
) -> Store:
    """Receives one store stream from fd into one region placed as asked (not "replicated") and
    returns its objects used in place; max_bytes 0 = the process memory limit. Waits while nothing
    comes, as send() does. ValueError for a malformed stream (a graph whose ids or offsets lie
    outside its arrays too), OSError when the peer closes mid-stream."""
    opened = _core._store_recv(_fd(fd), word(placement, "placement"), node_list(nodes), huge_pages_arg(huge_pages), _max_bytes(max_bytes))
    return Store(opened, "recv")


def _max_bytes(max_bytes: object) -> int:
    """max_bytes checked: an integer from 0 to 2^64 - 1 (0 = no limit but the process memory limit)."""
    return unsigned_value(max_bytes, "max_bytes")


class Receiver:
    """Receives store streams one after another, reading each into the region of the last one when
    no object of that store is in use any more and the stream fits: no new region (and no page
    faults) per stream. Placed as recv() places; calls from several threads take turns."""

    __slots__ = ("_core",)

    def __init__(
        self,
        placement: Placement = "os_default",
        nodes: Nodes = None,
        huge_pages: HugePages = "auto",
        max_bytes: int = 0,
    ) -> None:
        """A receiver for streams of at most max_bytes (0 = the process memory limit)."""
        self._core = _core._Receiver(word(placement, "placement"), node_list(nodes), huge_pages_arg(huge_pages), _max_bytes(max_bytes))

    def recv(self, fd: FileDescriptor) -> Store:
        """Receives one stream from fd as smartarrays.recv() does, into the kept region when it is free."""
        return Store(self._core.recv(_fd(fd)), "recv")

    @property
    def reserved_bytes(self) -> int:
        """Bytes of the region kept for the next stream (0 before the first)."""
        return int(self._core.reserved_bytes)

    @property
    def reuses(self) -> int:
        """How many streams were read into a reused region."""
        return int(self._core.reuses)


def _packed(array: SmartArray, protocol: int) -> tuple[int, int, object]:
    """(length, bits, words) of array: words a zero-copy PickleBuffer under protocol 5, else a bytes copy.
    Replica 0, which holds every write (also a primary-write array's writes not yet synced)."""
    words = array.words(0)
    return len(array), array.bits, pickle.PickleBuffer(words) if protocol >= 5 else words.tobytes()


def _words(buffer: object) -> np.ndarray:
    """The packed words of a pickled buffer (PickleBuffer, bytes or bytearray) as uint64, without a copy."""
    view = buffer.raw() if isinstance(buffer, pickle.PickleBuffer) else memoryview(buffer)  # type: ignore[arg-type]
    return np.frombuffer(view, dtype=np.uint64)


def _rebuild_array(length: int, bits: int, words: object) -> SmartArray:
    """Unpickles a SmartArray (os_default placement) from its packed words."""
    length, bits = received_shape(length, bits, "SmartArray pickle")
    return _core._array_from_packed(length, bits, _words(words), "os_default", [], "auto")


def _rebuild_graph(directed: bool, arrays: list[tuple[int, int, object]]) -> Graph:
    """Unpickles a Graph from its four arrays' packed words (a fifth, out_degree, from pickles made
    before out-degrees were derived from begin, is skipped)."""
    what = "Graph pickle"
    if not isinstance(arrays, (list, tuple)) or not all(isinstance(a, (list, tuple)) and len(a) == 3 for a in arrays):
        raise ValueError(f"malformed {what}: expected a (length, bits, words) triple per array, got {shown(arrays)}")
    parts = [(*received_shape(n, b, what), _words(w)) for n, b, w in arrays]
    return Graph(_core._graph_from_packed(parts, received_directed(directed, what)))


_GRAPH_ARRAYS = ("begin", "edge", "rbegin", "redge")


def _reduce_array(self: SmartArray, protocol: int) -> tuple[object, ...]:
    return _rebuild_array, _packed(self, protocol)


def _reduce_graph(self: Graph, protocol: int) -> tuple[object, ...]:
    return _rebuild_graph, (self.directed, [_packed(self.array(name), protocol) for name in _GRAPH_ARRAYS])


SmartArray.__reduce_ex__ = _reduce_array  # type: ignore[method-assign,assignment]
Graph.__reduce_ex__ = _reduce_graph  # type: ignore[method-assign,assignment]
