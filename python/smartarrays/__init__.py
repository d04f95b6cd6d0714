"""smartarrays: NUMA-placed, bit-compressed arrays for in-memory analytics, numpy-native.

A thin layer over the C++ core (``smartarrays._core``): this module only normalises arguments
(array-likes to contiguous unsigned numpy arrays) and turns native tuples into dataclasses; every
smart functionality — placement, compression, decoding, sums, graphs — runs in the core.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from . import _core, tune
from ._args import (
    HugePages,
    Nodes,
    Placement,
    bits_arg,
    hints_args,
    huge_pages_arg,
    is_integer,
    node_list,
    smart_array,
    unsigned_values,
    word,
)
from ._core import ChunkIterator, PlacedBuffer, SmartArray, codec_isa, current_node, set_fake_topology
from .collections import GroupBy, HashMap, HashSet, Index, group_by, hash_join, hash_join_count
from .graph import ArrayMemory, Graph, GraphMemory, GraphOptions, Variant
from .store import Receiver, Store, VerifyReport, append, open, recv, save, send, verify

__version__: str = _core.__version__

__all__ = [
    "ArrayMemory",
    "ChunkIterator",
    "Graph",
    "GroupBy",
    "GraphMemory",
    "GraphOptions",
    "HashMap",
    "HashSet",
    "Index",
    "LiveArray",
    "Node",
    "Nodes",
    "Placement",
    "PlacedBuffer",
    "SmartArray",
    "Receiver",
    "Store",
    "Topology",
    "VerifyReport",
    "aggregate",
    "allocate_buffer",
    "append",
    "array",
    "codec_isa",
    "current_node",
    "group_by",
    "hash_join",
    "hash_join_count",
    "machine_facts",
    "open",
    "recv",
    "save",
    "send",
    "set_fake_topology",
    "topology",
    "tune",
    "verify",
    "Variant",
]


def array(
    values: npt.ArrayLike,
    bits: int | Literal["auto", "min"] = "auto",
    placement: Placement | Literal["auto"] = "os_default",
    nodes: Nodes = None,
    huge_pages: HugePages = "auto",
    hints: Mapping[str, object] | None = None,
    write_mode: Literal["write_through", "primary"] = "write_through",
) -> SmartArray:
    """A SmartArray holding the unsigned integers of values, compressed to bits and placed on NUMA nodes.

    placement="auto" lets the adaptive layer choose placement and huge pages from the machine profile
    and the access hints (read_only, pattern, passes, threads); with it, or with hints, bits="auto"
    is chosen too (the fewest bits or 64). Alone, bits="auto" (like "min") is the fewest bits.
    The array's decision attribute holds the decision with its explanation (None when not adaptive).
    write_mode="primary" makes a[i] = v write replica 0 only, until sync() copies the writes out."""
    data = unsigned_values(values)
    placement, write_mode = word(placement, "placement"), word(write_mode, "write_mode")
    adaptive = placement == "auto" or hints is not None
    if not adaptive:
        make = _core._from_u32 if data.dtype == np.uint32 else _core._from_u64
        result = make(data, bits_arg(bits), placement, node_list(nodes), huge_pages_arg(huge_pages), write_mode)
        result.decision = None
        return result
    read_only, pattern, passes, threads = hints_args(hints)
    auto_bits = bits == "auto"
    make_auto = _core._auto_from_u32 if data.dtype == np.uint32 else _core._auto_from_u64
    result, decision = make_auto(
        data, 0 if auto_bits else bits_arg(bits), auto_bits, placement, node_list(nodes),
        huge_pages_arg(huge_pages), read_only, pattern, passes, threads, write_mode)
    result.decision = json.loads(decision)
    return result


def allocate_buffer(
    shape: int | tuple[int, ...] | list[int],
    dtype: npt.DTypeLike = "float64",
    placement: Placement = "os_default",
    nodes: Nodes = None,
    huge_pages: HugePages = "auto",
) -> np.ndarray:
    """A zero-filled, writable numpy array whose memory the core placed (Shoal's shl__malloc).

    placement is os_default, single_node, interleaved or partitioned (a buffer has one copy, so not
    replicated), with its nodes and huge pages as for array(); large buffers get huge pages by
    default, as numpy's own. The array's base is the PlacedBuffer that owns the memory (bytes,
    huge_page_bytes, pages_per_node); it is freed with the last view. For data the program reads and
    writes itself, such as the scores of a caller-driven PageRank."""
    dims = (shape,) if is_integer(shape) else tuple(shape) if isinstance(shape, (tuple, list)) else None
    if dims is None or not all(is_integer(d) for d in dims):
        raise TypeError(f"shape must be an int or a sequence of ints, got {type(shape).__name__} {shape!r}")
    if any(d < 0 for d in dims):
        raise ValueError(f"shape {shape!r} has a negative dimension")
    item = np.dtype(dtype)
    if item.hasobject:
        raise TypeError(f"dtype {item} holds Python objects; a placed buffer holds plain values")
    count = math.prod(int(d) for d in dims)
    nbytes = count * item.itemsize
    if nbytes >= 1 << 64:
        raise MemoryError(f"a buffer of shape {shape!r} and dtype {item} needs {nbytes} bytes, more than 2^64")
    owner = _core._allocate_buffer(nbytes, word(placement, "placement"), node_list(nodes), huge_pages_arg(huge_pages))
    return np.ndarray(dims, dtype=item, buffer=owner)


class LiveArray:
    """An array that can change placement and bit width while other threads read it (live re-layout).

    Version 0 is the given SmartArray, shared, not copied. pin() returns the current version as a
    read-only SmartArray that stays valid and unchanged whatever relayouts follow; relayout() builds
    the values in a new layout in the core (GIL released) while readers go on, then switches to it
    atomically. A version's memory is freed once no pinned SmartArray uses it."""

    def __init__(self, array: SmartArray) -> None:
        self._core = _core._LiveArray(smart_array(array, "LiveArray: array"))

    def __len__(self) -> int:
        return len(self._core)

    @property
    def version(self) -> int:
        """The current version's number: 0, then one more per relayout."""
        return self._core.version

    def pin(self) -> SmartArray:
        """The current version, read-only and unchanged for as long as it is held."""
        return self._core.pin()

    def relayout(
        self,
        bits: int | Literal["auto", "min"] = "min",
        placement: Placement = "os_default",
        nodes: Nodes = None,
        huge_pages: HugePages = "auto",
    ) -> int:
        """Re-lays the array out in placement with bits ("min"/"auto": the fewest that hold the values)
        while readers go on; returns the new version's number. ValueError for a value too wide or a bad
        option (the current version is then unchanged)."""
        return self._core._relayout(bits_arg(bits), word(placement, "placement"), node_list(nodes), huge_pages_arg(huge_pages))


def aggregate(a1: SmartArray, a2: SmartArray) -> int:
    """The paper's aggregation (section 5.1): the wrapping uint64 sum over i of a1[i] + a2[i], in
    parallel in the core; ValueError when the lengths differ."""
    return _core._aggregate(smart_array(a1, "aggregate: a1"), smart_array(a2, "aggregate: a2"))


@dataclass(frozen=True)
class Node:
    """One logical NUMA node: its usable CPUs and memory."""

    id: int
    os_node: int
    cpus: tuple[int, ...]
    memory_total: int
    memory_free: int


@dataclass(frozen=True)
class Topology:
    """The NUMA topology the library uses: nodes, SLIT distances (10 = local), and whether it is fake."""

    nodes: tuple[Node, ...]
    distances: tuple[tuple[int, ...], ...]
    fake: bool
    spec: str

    @property
    def node_count(self) -> int:
        """Number of logical nodes."""
        return len(self.nodes)


def topology() -> Topology:
    """The process topology: sysfs intersected with the affinity mask, or the fake one in force."""
    nodes, distances, fake, spec = _core._topology()
    return Topology(
        nodes=tuple(Node(i, os_node, tuple(cpus), total, free) for i, os_node, cpus, total, free in nodes),
        distances=tuple(tuple(row) for row in distances),
        fake=fake,
        spec=spec,
    )


def machine_facts() -> dict[str, object]:
    """The machine facts results depend on (CPU, nodes, memory, huge pages, NUMA balancing, load, kernel,
    codec ISA, library version), schema smartarrays.machine/1: the same object every tool reports."""
    facts: dict[str, object] = json.loads(_core._machine_facts_json())
    return facts


if "distributed" in sys.modules:  # a Dask worker or client: move arrays as views of their packed words
    from . import _dask_serialize  # noqa: F401
