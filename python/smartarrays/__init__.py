"""smartarrays: NUMA-placed, bit-compressed arrays for in-memory analytics, numpy-native.

A thin layer over the C++ core (``smartarrays._core``): this module only normalises arguments
(array-likes to contiguous unsigned numpy arrays) and turns native tuples into dataclasses; every
smart functionality — placement, compression, decoding, sums, graphs — runs in the core.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from . import _core
from ._args import Nodes, Placement, bits_arg, flag, node_list, unsigned_values
from ._core import ChunkIterator, SmartArray, codec_isa, current_node, set_fake_topology
from .graph import ArrayMemory, Graph, GraphMemory, GraphOptions, Variant
from .store import Store, VerifyReport, append, open, recv, save, send, verify

__version__: str = _core.__version__

__all__ = [
    "ArrayMemory",
    "ChunkIterator",
    "Graph",
    "GraphMemory",
    "GraphOptions",
    "Node",
    "Nodes",
    "Placement",
    "SmartArray",
    "Store",
    "Topology",
    "VerifyReport",
    "append",
    "array",
    "codec_isa",
    "current_node",
    "machine_facts",
    "open",
    "recv",
    "save",
    "send",
    "set_fake_topology",
    "topology",
    "verify",
    "Variant",
]


def array(
    values: npt.ArrayLike,
    bits: int | Literal["auto"] = "auto",
    placement: Placement = "os_default",
    nodes: Nodes = None,
    huge_pages: bool = False,
) -> SmartArray:
    """A SmartArray holding the unsigned integers of values, compressed to bits and placed on NUMA nodes."""
    data = unsigned_values(values)
    make = _core._from_u32 if data.dtype == np.uint32 else _core._from_u64
    return make(data, bits_arg(bits), placement, node_list(nodes), flag(huge_pages, "huge_pages"))


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
