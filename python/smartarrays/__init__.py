"""smartarrays: NUMA-placed, bit-compressed arrays for in-memory analytics, numpy-native.

A thin layer over the C++ core (``smartarrays._core``): this module only normalises arguments
(array-likes to contiguous unsigned numpy arrays) and turns native tuples into dataclasses; every
smart functionality — placement, compression, decoding, sums, graphs — runs in the core.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, Union

import numpy as np
import numpy.typing as npt

from . import _core
from ._core import ChunkIterator, SmartArray, codec_isa, current_node, set_fake_topology

__version__: str = _core.__version__

__all__ = [
    "ChunkIterator",
    "Node",
    "Placement",
    "SmartArray",
    "Topology",
    "array",
    "codec_isa",
    "current_node",
    "set_fake_topology",
    "topology",
]

Placement = Literal["os_default", "single_node", "interleaved", "replicated", "partitioned"]
"""The placement names the core accepts."""

Nodes = Union[int, Iterable[int], None]
"""A node (single_node), a node set (interleaved / replicated / partitioned), or None for the default."""


def _node_list(nodes: Nodes) -> list[int]:
    """The node argument as the list the core takes."""
    if nodes is None:
        return []
    if isinstance(nodes, (int, np.integer)):
        return [int(nodes)]
    return [int(n) for n in nodes]


def _bits_arg(bits: int | Literal["auto"]) -> int:
    """The bits argument as the core's: 0 means the fewest bits that hold the data."""
    if isinstance(bits, str):
        if bits != "auto":
            raise ValueError(f"bits must be 'auto' or an int 1..64, got {bits!r}")
        return 0
    if isinstance(bits, bool) or not isinstance(bits, (int, np.integer)):
        raise TypeError(f"bits must be 'auto' or an int 1..64, got {type(bits).__name__}")
    if bits < 1:
        raise ValueError(f"bits must be 'auto' or an int 1..64, got {bits}")
    return int(bits)


def _exact_integers(values: npt.ArrayLike) -> np.ndarray:
    """A sequence numpy cannot type exactly (ints past 2^63 mixed with negatives or past 2^64) as uint64."""
    objects = np.array(values, dtype=object)
    if objects.ndim != 1:
        raise ValueError(f"values must be one-dimensional, got shape {objects.shape}")
    for i, v in enumerate(objects):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"values must be integers, got {type(v).__name__} at index {i}")
        if v < 0:
            raise ValueError(f"value {v} at index {i} is negative; smart arrays hold unsigned values")
        if v >= 2**64:
            raise ValueError(f"value {v} at index {i} does not fit in 64 bits")
    return objects.astype(np.uint64)


def _unsigned_values(values: npt.ArrayLike) -> np.ndarray:
    """values as a contiguous 1-D uint32 or uint64 array; ValueError for negative or oversized values."""
    if isinstance(values, np.ndarray):
        data = values
    else:
        try:
            data = np.asarray(values)
        except OverflowError:
            data = _exact_integers(values)
        if data.dtype.kind in "fO" and data.size:
            # numpy turns ints past 2^63 mixed with negatives into float64 and ints past 2^64 into objects.
            data = _exact_integers(values)
    if data.ndim != 1:
        raise ValueError(f"values must be one-dimensional, got shape {data.shape}")
    kind = data.dtype.kind
    if kind not in "biu" and not (kind == "f" and data.size == 0):
        raise TypeError(f"values must be integers, got dtype {data.dtype}")
    if kind == "i" and data.size and data.min() < 0:
        first = int(np.argmax(data < 0))
        raise ValueError(f"value {int(data[first])} at index {first} is negative; smart arrays hold unsigned values")
    if data.dtype == np.uint32:
        return np.ascontiguousarray(data)
    if data.dtype.itemsize == 8 and kind in "iu":
        return np.ascontiguousarray(data).view(np.uint64)
    return np.ascontiguousarray(data, dtype=np.uint64)


def array(
    values: npt.ArrayLike,
    bits: int | Literal["auto"] = "auto",
    placement: Placement = "os_default",
    nodes: Nodes = None,
    huge_pages: bool = False,
) -> SmartArray:
    """A SmartArray holding the unsigned integers of values, compressed to bits and placed on NUMA nodes."""
    data = _unsigned_values(values)
    make = _core._from_u32 if data.dtype == np.uint32 else _core._from_u64
    return make(data, _bits_arg(bits), placement, _node_list(nodes), bool(huge_pages))


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
