"""Graphs in CSR form as bundles of smart arrays (paper §5.2), with degree centrality and PageRank
running in the core. This module only normalises arguments and wraps the native graph."""

from __future__ import annotations

import os
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Literal, TypedDict

import numpy as np
import numpy.typing as npt

from . import _core
from ._args import (
    HugePages,
    Nodes,
    Placement,
    flag,
    huge_pages_arg,
    id_array,
    node_list,
    pagerank_args,
    path_arg,
    real_number,
    unsigned_value,
    word,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

Variant = Literal["U", "V", "V+E"]
"""Compression variants: U (64-bit offsets, 32-bit ids), V (offsets in their minimum bits), V+E
(ids in their minimum bits too)."""

GraphArrayName = Literal["begin", "edge", "rbegin", "redge"]
"""The arrays of a graph (out-degrees are begin's differences, not an array)."""


class GraphOptions(TypedDict, total=False):
    """The keywords every Graph factory takes besides its own, each optional."""

    dedup: bool
    """Keep one copy of repeated edges (default False)."""
    drop_self_loops: bool
    """Drop edges v -> v (default False)."""
    placement: Placement
    """Where every array's pages go (default "os_default")."""
    nodes: Nodes
    """The node of single_node, or the node set of the other placements (default: every node)."""
    huge_pages: HugePages
    """Huge pages: "auto" (default: transparent huge pages from 4 MiB), "on", "off", "2M" or "1G" (hugetlb)."""


def _build(factory: str, variant: Variant, options: GraphOptions) -> _core._GraphBuild:
    """The core's build arguments from a factory's variant and keywords; TypeError names an unknown keyword."""
    unknown = sorted(options.keys() - GraphOptions.__optional_keys__)
    if unknown:
        raise TypeError(f"Graph.{factory}() got an unexpected keyword argument {unknown[0]!r}")
    return _core._GraphBuild(
        word(variant, "variant"),
        flag(options.get("dedup", False), "dedup"),
        flag(options.get("drop_self_loops", False), "drop_self_loops"),
        word(options.get("placement", "os_default"), "placement"),
        node_list(options.get("nodes")),
        huge_pages_arg(options.get("huge_pages", "auto")),
    )


@dataclass(frozen=True)
class ArrayMemory:
    """Memory of one array of a graph."""

    name: str
    length: int
    bits: int
    placement: str
    replicas: int
    bytes: int
    shared_with: str = ""
    """The array whose memory this one is ("begin" for an undirected graph's rbegin), else ""."""


@dataclass(frozen=True)
class GraphMemory:
    """Memory of a graph's arrays, one line per array, and their total in bytes."""

    arrays: tuple[ArrayMemory, ...]
    total_bytes: int


class Graph:
    """A directed graph as a bundle of smart arrays: begin/edge (forward CSR) and rbegin/redge (reverse
    CSR; an undirected graph's are its forward ones), each bit-compressed per the variant and placed
    on NUMA nodes. Out-degrees are begin[v+1] - begin[v], derived rather than stored."""

    __slots__ = ("_native",)

    def __init__(self, native: _core._Graph) -> None:
        """Wraps a native graph; make graphs with from_edges(), load(), rmat() or uniform()."""
        self._native = native

    @classmethod
    def from_edges(
        cls,
        src: npt.ArrayLike,
        dst: npt.ArrayLike,
        variant: Variant = "V+E",
        *,
        vertices: int | None = None,
        directed: bool = True,
        **options: Unpack[GraphOptions],
    ) -> Graph:
        """The graph of edges src[i] -> dst[i] over vertices 0..vertices-1 (default: the largest id + 1)."""
        count = 0 if vertices is None else unsigned_value(vertices, "vertices")
        if vertices is not None and count < 1:
            raise ValueError(f"vertices must be at least 1, got {vertices}")
        build = _build("from_edges", variant, options)
        return cls(_core._graph_from_edges(id_array(src, "src"), id_array(dst, "dst"), count, flag(directed, "directed"), build))

    @classmethod
    def load(
        cls,
        path: str | bytes | os.PathLike[str],
        variant: Variant = "V+E",
        *,
        format: Literal["el", "mtx", "sg"] | None = None,
        **options: Unpack[GraphOptions],
    ) -> Graph:
        """A graph read from an edge list (.el/.txt), Matrix Market (.mtx) or GAP (.sg) file."""
        return cls(_core._graph_load(path_arg(path), None if format is None else word(format, "format"), _build("load", variant, options)))

    @classmethod
    def rmat(
        cls, scale: int, edge_factor: int = 16, seed: int = 1, variant: Variant = "V+E", **options: Unpack[GraphOptions]
    ) -> Graph:
        """An R-MAT graph (Graph500 parameters) of 2^scale vertices and edge_factor (>= 1) * 2^scale edges."""
        return cls(
            _core._graph_rmat(
                unsigned_value(scale, "scale", 32),
                unsigned_value(edge_factor, "edge_factor"),
                unsigned_value(seed, "seed"),
                _build("rmat", variant, options),
            )
        )

    @classmethod
    def uniform(
        cls,
        vertices: int,
        average_degree: float = 16.0,
        seed: int = 1,
        variant: Variant = "V+E",
        **options: Unpack[GraphOptions],
    ) -> Graph:
        """A uniform random graph with vertices * average_degree edges."""
        return cls(
            _core._graph_uniform(
                unsigned_value(vertices, "vertices"),
                real_number(average_degree, "average_degree"),
                unsigned_value(seed, "seed"),
                _build("uniform", variant, options),
            )
        )

    @property
    def vertices(self) -> int:
        """Number of vertices."""
        return self._native.vertices

    @property
    def edges(self) -> int:
        """Number of stored directed edges (an undirected edge counts twice, a self-loop once)."""
        return self._native.edges

    @property
    def directed(self) -> bool:
        """False when built from undirected edges (stored in both directions)."""
        return self._native.directed

    @property
    def variant(self) -> str:
        """The compression variant of the arrays' widths: U, V or V+E."""
        return self._native.variant

    @property
    def closed(self) -> bool:
        """True after close()."""
        return self._native.closed

    def degree_centrality(self) -> npt.NDArray[np.uint64]:
        """Out-degree plus in-degree of every vertex."""
        return self._native.degree_centrality()

    def out_degrees(self) -> npt.NDArray[np.uint64]:
        """The out-degree of every vertex, begin[v+1] - begin[v] (derived: no array holds them)."""
        return self._native.out_degrees()

    def pagerank(
        self,
        tol: float = 1e-3,
        damping: float = 0.85,
        max_iterations: int = 100,
        dangling: Literal["none", "uniform"] = "none",
        scores: Literal["f64", "f32"] = "f64",
    ) -> npt.NDArray[np.floating]:
        """PageRank of every vertex; dangling="uniform" spreads sinks' rank over all vertices like networkx;
        scores="f32" keeps ranks and contributions in floats (half the bytes, as GAP's reference) and
        returns float32 ranks, else float64."""
        return self._native.pagerank(
            *pagerank_args(tol, damping, max_iterations), word(dangling, "dangling"), word(scores, "scores")
        )

    def save(
        self, path: str | bytes | os.PathLike[str], *, format: Literal["el", "mtx", "sg", "compact"] | None = None
    ) -> None:
        """Writes the graph to path as an edge list (.el/.txt), Matrix Market (.mtx), GAP (.sg) or compact
        store (.sa) file, the format named or taken from the name; load() reads it back as the same graph.
        The file is written whole or not at all: on an error or Ctrl-C the old file is kept."""
        self._native.save(path_arg(path), None if format is None else word(format, "format"))

    def memory(self) -> GraphMemory:
        """Bytes, bits, placement and replicas of each array, and the total."""
        lines, total = self._native.memory()
        return GraphMemory(arrays=tuple(ArrayMemory(*line) for line in lines), total_bytes=total)

    def array(self, name: GraphArrayName) -> _core.SmartArray:
        """One of the graph's arrays as a SmartArray (it keeps the graph's memory alive)."""
        return self._native.array(word(name, "name"))

    def close(self) -> None:
        """Releases the graph's memory once no array taken from it is in use; idempotent."""
        self._native.close()

    def __enter__(self) -> Graph:
        """Returns the graph itself; ValueError once closed."""
        self._native.__enter__()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        """Closes the graph."""
        self._native.__exit__(kind, error, trace)

    def __repr__(self) -> str:
        """Vertices, edges and variant."""
        if self.closed:
            return "Graph(closed)"
        return f"Graph(vertices={self.vertices}, edges={self.edges}, variant={self.variant!r})"
