"""Smart arrays on Dask (docs/dask.md): a SmartCollection is a 1-D Dask array turned, block by block,
into SmartArrays that the workers which computed the blocks keep in their compressed form; its
reductions run on the workers over the packed words and only the partial results travel. Every
kernel runs in the core; this module names the tasks (smartarrays-encode, smartarrays-sum, ...)
so that the dashboard says what runs, and combines partial results."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Union

import dask.array as da
import numpy as np
import numpy.typing as npt
from dask import delayed
from dask.sizeof import sizeof
from distributed import Client, Future, get_client

from . import _core
from . import _dask_serialize  # noqa: F401 - registers the zero-copy frames
from . import array as _make_array
from ._args import Nodes, Placement, bits_arg, is_integer, node_list, pagerank_args, path_arg, word
from ._core import SmartArray
from .collections import group_by as _local_group_by
from .graph import Graph

__all__ = [
    "DistributedGroupBy",
    "GraphPart",
    "PageRankRun",
    "SmartCollection",
    "aggregate",
    "from_dask_array",
    "graph_parts",
    "group_by",
    "pagerank",
]

_MASK = (1 << 64) - 1
_BATCH = 1 << 20


def _encode(block: np.ndarray, bits: int | Literal["auto", "min"], placement: Placement, nodes: Nodes) -> SmartArray:
    return _make_array(block, bits=bits, placement=placement, nodes=nodes)


def _sum(block: SmartArray) -> int:
    return block.sum()


def _fold(values: npt.NDArray[np.uint64], reduce: Callable[[npt.NDArray[np.uint64]], int]) -> int | None:
    return int(reduce(values)) if len(values) else None


def _extreme(block: SmartArray, reduce: Callable[[npt.NDArray[np.uint64]], int]) -> int | None:
    found = [_fold(batch, reduce) for batch in block.iter_chunks(_BATCH)]
    kept = [v for v in found if v is not None]
    return int(reduce(np.array(kept, dtype=np.uint64))) if kept else None


def _min(block: SmartArray) -> int | None:
    return _extreme(block, np.min)


def _max(block: SmartArray) -> int | None:
    return _extreme(block, np.max)


def _count(block: SmartArray, predicate: Callable[[npt.NDArray[np.uint64]], npt.ArrayLike]) -> int:
    return sum(int(np.count_nonzero(predicate(batch))) for batch in block.iter_chunks(_BATCH))


def _aggregate(a1: SmartArray, a2: SmartArray) -> int:
    return _core._aggregate(a1, a2)


def _wrapping_total(parts: Sequence[int]) -> int:
    return sum(parts) & _MASK


def _decode(block: SmartArray) -> npt.NDArray[np.uint64]:
    return block.to_numpy()


def _apply(block: SmartArray, func: Callable[[npt.NDArray[np.uint64]], np.ndarray]) -> np.ndarray:
    return func(block.to_numpy())


def _name(what: str) -> str:
    """A task-name prefix the dashboard shows (smartarrays-WHAT) made unique for one call."""
    return f"smartarrays-{what}-{uuid.uuid4().hex}"


class SmartCollection:
    """A 1-D collection of SmartArrays, one per block of the Dask array it came from, held (persisted)
    on the workers that computed them. Lengths are the blocks' lengths, in order."""

    __slots__ = ("_blocks", "_lengths", "_client")

    def __init__(self, blocks: list[Future], lengths: Sequence[int], client: Client) -> None:
        """Wraps persisted block futures; use from_dask_array()."""
        self._blocks = blocks
        self._lengths = tuple(int(n) for n in lengths)
        self._client = client

    @property
    def blocks(self) -> list[Future]:
        """The futures of the blocks' SmartArrays (each held by one worker)."""
        return list(self._blocks)

    @property
    def chunks(self) -> tuple[int, ...]:
        """The blocks' lengths."""
        return self._lengths

    def __len__(self) -> int:
        """Number of values over all blocks."""
        return sum(self._lengths)

    def _per_block(self, what: str, func: Callable[..., object], *args: object) -> list[Future]:
        name = _name(what)
        return [
            self._client.submit(func, block, *args, key=(name, i), pure=False) for i, block in enumerate(self._blocks)
        ]

    def _combined(self, partials: list[Future], combine: Callable[[Sequence[int]], int | None]) -> int | None:
        """The partial results gathered to the client and combined there (one round trip)."""
        return combine(self._client.gather(partials))

    def sum(self) -> int:
        """Wrapping uint64 sum of every value: each worker sums its blocks in the core, the client adds."""
        return self._combined(self._per_block("sum", _sum), _wrapping_total)  # type: ignore[return-value]

    def min(self) -> int:
        """The smallest value; ValueError for an empty collection."""
        return self._extreme("min", _min, min)

    def max(self) -> int:
        """The largest value; ValueError for an empty collection."""
        return self._extreme("max", _max, max)

    def _extreme(self, what: str, per_block: Callable[[SmartArray], int | None], pick: Callable[..., int]) -> int:
        def combine(parts: Sequence[int | None]) -> int | None:
            kept = [p for p in parts if p is not None]
            return pick(kept) if kept else None

        result = self._combined(self._per_block(what, per_block), combine)  # type: ignore[arg-type]
        if result is None:
            raise ValueError(f"{what}() of an empty SmartCollection")
        return result

    def count(self, predicate: Callable[[npt.NDArray[np.uint64]], npt.ArrayLike]) -> int:
        """Number of values for which predicate (called on decoded uint64 batches, returning booleans) holds."""
        if not callable(predicate):
            raise TypeError(f"predicate must be callable, got {type(predicate).__name__}")
        return self._combined(self._per_block("count", _count, predicate), sum)  # type: ignore[return-value]

    def map_blocks(
        self, func: Callable[[npt.NDArray[np.uint64]], np.ndarray], dtype: npt.DTypeLike = np.uint64
    ) -> da.Array:
        """A Dask array whose blocks are func(decoded block), run on the workers holding the blocks;
        func returns a 1-D array of dtype (block lengths unknown until computed)."""
        if not callable(func):
            raise TypeError(f"func must be callable, got {type(func).__name__}")
        name = _name("map-blocks")
        parts = [
            da.from_delayed(delayed(_apply)(block, func, dask_key_name=(name, i)), shape=(np.nan,), dtype=dtype)
            for i, block in enumerate(self._blocks)
        ]
        return da.concatenate(parts) if parts else da.empty((0,), dtype=dtype)

    def to_dask_array(self) -> da.Array:
        """The values as a uint64 Dask array with the same blocks, each decoded on its worker."""
        name = _name("decode")
        parts = [
            da.from_delayed(delayed(_decode)(block, dask_key_name=(name, i)), shape=(n,), dtype=np.uint64)
            for i, (block, n) in enumerate(zip(self._blocks, self._lengths))
        ]
        return da.concatenate(parts) if parts else da.empty((0,), dtype=np.uint64)

    def __repr__(self) -> str:
        """Length and blocks."""
        return f"SmartCollection(length={len(self)}, blocks={len(self._blocks)})"


def _client(client: object) -> Client:
    """client, or the current one (get_client) for None; TypeError for anything but a Client."""
    if client is None:
        return get_client()
    if not isinstance(client, Client):
        raise TypeError(f"client must be a distributed.Client or None, got {type(client).__name__}")
    return client


def from_dask_array(
    x: da.Array,
    bits: int | Literal["auto", "min"] = "auto",
    placement: Placement = "os_default",
    nodes: Nodes = None,
    client: Client | None = None,
) -> SmartCollection:
    """A SmartCollection of x (1-D, unsigned or non-negative integers): each block becomes a SmartArray
    of bits (auto: the fewest that hold that block) placed as asked, on the worker that computes it,
    and stays there. client: the Dask client to run on (default: the current one)."""
    if not isinstance(x, da.Array):
        raise TypeError(f"expected a dask.array.Array, got {type(x).__name__}")
    if x.ndim != 1:
        raise ValueError(f"expected a 1-D Dask array, got {x.ndim} dimensions")
    if not np.issubdtype(x.dtype, np.integer):
        raise TypeError(f"expected an integer Dask array, got dtype {x.dtype}")
    if any(np.isnan(n) for n in x.chunks[0]):
        raise ValueError("the Dask array's block lengths are unknown; call compute_chunk_sizes() first")
    bits_arg(bits)
    word(placement, "placement")
    node_list(nodes)
    client = _client(client)
    name = _name("encode")
    tasks = [
        delayed(_encode)(block, bits, placement, nodes, dask_key_name=(name, i))
        for i, block in enumerate(x.to_delayed().ravel())
    ]
    return SmartCollection(client.compute(tasks), x.chunks[0], client)


def _collection(value: object, name: str) -> SmartCollection:
    """value, which must be a SmartCollection; TypeError naming name and what it got otherwise."""
    if not isinstance(value, SmartCollection):
        raise TypeError(f"{name} must be a SmartCollection (from_dask_array), got {type(value).__name__}")
    return value


def aggregate(c1: SmartCollection, c2: SmartCollection) -> int:
    """The paper's aggregation (section 5.1) over two collections of the same blocks: the wrapping
    uint64 sum of c1[i] + c2[i], each block pair summed in the core on a worker; ValueError when
    the block lengths differ."""
    _collection(c1, "c1")
    _collection(c2, "c2")
    if c1.chunks != c2.chunks:
        raise ValueError(f"the collections' blocks differ: {c1.chunks} and {c2.chunks}")
    name = _name("aggregate")
    partials = [
        c1._client.submit(_aggregate, a, b, key=(name, i), pure=False)
        for i, (a, b) in enumerate(zip(c1._blocks, c2._blocks))
    ]
    return c1._combined(partials, _wrapping_total)  # type: ignore[return-value]


def _group_block(keys: SmartArray, values: SmartArray, aggregate: str) -> tuple[np.ndarray, np.ndarray]:
    """(distinct keys, aggregate per key) of one block pair, grouped in the core on its worker."""
    return getattr(_local_group_by(_decode(keys), _decode(values)), aggregate)()  # type: ignore[no-any-return]


def _merge_groups(merge: str, *partials: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The blocks' partial groups combined by grouping them again in the core: partial counts and
    sums add up (merge "sum"), minima and maxima take their own extreme."""
    keys = np.concatenate([k for k, _ in partials]) if partials else np.empty(0, dtype=np.uint64)
    values = np.concatenate([v for _, v in partials]) if partials else np.empty(0, dtype=np.uint64)
    return getattr(_local_group_by(keys, values), merge)()  # type: ignore[no-any-return]


class DistributedGroupBy:
    """Values grouped by keys over two collections of the same blocks: each worker groups its block
    pairs in the core and only the partial groups travel, combined on a worker. The distributive
    aggregates only (count, sum, min, max); each returns (distinct keys ascending, aggregate per
    key) as uint64 numpy arrays, exactly as sa.group_by over the whole data."""

    __slots__ = ("_keys", "_values")

    def __init__(self, keys: SmartCollection, values: SmartCollection) -> None:
        """Pairs keys[i] with values[i]; ValueError when the collections' blocks differ."""
        _collection(keys, "keys")
        _collection(values, "values")
        if keys.chunks != values.chunks:
            raise ValueError(f"group by: the collections' blocks differ: {keys.chunks} and {values.chunks}")
        self._keys = keys
        self._values = values

    def _run(self, aggregate: str, merge: str) -> tuple[np.ndarray, np.ndarray]:
        client = self._keys._client
        name = _name(f"groupby-{aggregate}")
        partials = [
            client.submit(_group_block, k, v, aggregate, key=(name, i), pure=False)
            for i, (k, v) in enumerate(zip(self._keys._blocks, self._values._blocks))
        ]
        combined = client.submit(_merge_groups, merge, *partials, key=_name(f"groupby-{aggregate}-combine"), pure=False)
        return client.gather(combined)  # type: ignore[no-any-return]

    def count(self) -> tuple[np.ndarray, np.ndarray]:
        """Rows per key."""
        return self._run("count", "sum")

    def sum(self) -> tuple[np.ndarray, np.ndarray]:
        """Sum of each key's values, wrapping modulo 2**64."""
        return self._run("sum", "sum")

    def min(self) -> tuple[np.ndarray, np.ndarray]:
        """Smallest value per key."""
        return self._run("min", "min")

    def max(self) -> tuple[np.ndarray, np.ndarray]:
        """Largest value per key."""
        return self._run("max", "max")


def group_by(keys: SmartCollection, values: SmartCollection) -> DistributedGroupBy:
    """Groups values by keys across the workers: sad.group_by(keys, values).count() -> (keys, counts)."""
    return DistributedGroupBy(keys, values)


@dataclass(frozen=True)
class GraphPart:
    """Vertices [first, first + count) of a graph of `vertices` vertices, for pulling: the part's
    reverse CSR (rbegin from 0, redge of whole-graph ids) and its out-offsets (begin from 0, whose
    differences are the out-degrees), compressed."""

    vertices: int
    first: int
    rbegin: SmartArray
    redge: SmartArray
    begin: SmartArray

    @property
    def count(self) -> int:
        """The part's number of vertices."""
        return len(self.begin) - 1


@sizeof.register(GraphPart)
def _part_bytes(part: GraphPart) -> int:
    return int(part.rbegin.nbytes + part.redge.nbytes + part.begin.nbytes)


@dataclass(frozen=True)
class PageRankRun:
    """What pagerank() returns: the ranks (float64, one per vertex) and how the iterations ended."""

    ranks: npt.NDArray[np.float64]
    iterations: int
    difference: float
    converged: bool


GraphInput = Union[Graph, str, bytes, "os.PathLike[str]", Sequence[Future]]
"""A graph in memory, the path of a .sg file (each worker reads only its part), or the parts
graph_parts() returned (cut once, used by many runs)."""

# A part's state between iterations: (ranks, contributions, difference, dangling rank).
_State = tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], float, float]


def _graph_part(graph: Graph, first: int, count: int) -> GraphPart:
    return GraphPart(*_core._graph_pull_part(graph._native, first, count))


def _file_part(path: bytes, first: int, count: int) -> GraphPart:
    return GraphPart(*_core._sg_pull_part(path, first, count))


def _start(part: GraphPart) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], int, int]:
    """The first state of a part: ranks 1/n, contributions, no difference, and its dangling-vertex count."""
    ranks, contributions, dangling_vertices = _core._pagerank_part_start(part.begin, part.vertices)
    return ranks, contributions, 0, dangling_vertices


def _step(part: GraphPart, shares: list[np.ndarray], state: _State, dangling: float, damping: float, rule: str) -> _State:
    """The part's next state from every part's contributions (in vertex order) and its own state."""
    contributions = np.concatenate(shares) if len(shares) > 1 else shares[0]
    return _core._pagerank_part_step(part.rbegin, part.redge, part.begin, contributions, state[0], dangling, damping, rule)


def _shares(state: _State) -> np.ndarray:
    return state[1]


def _totals(state: _State) -> tuple[float, float]:
    return state[2], state[3]


def _ranks(state: _State) -> np.ndarray:
    return state[0]


def _ranges(vertices: int, parts: int) -> list[tuple[int, int]]:
    """parts consecutive vertex ranges (first, count) covering 0..vertices, as even as can be."""
    bounds = [vertices * k // parts for k in range(parts + 1)]
    return [(bounds[k], bounds[k + 1] - bounds[k]) for k in range(parts)]


def graph_parts(graph: GraphInput, parts: int | None = None, client: Client | None = None) -> list[Future]:
    """graph cut into parts (default: one per worker, at most one per vertex) of consecutive vertices,
    each a GraphPart held by a worker: a Graph is cut on the client and each part sent to one worker;
    a .sg file is read by the workers, each reading only its part's byte ranges (a bad file raises
    the core's message)."""
    client = _client(client)
    workers = list(client.scheduler_info()["workers"])
    if parts is not None:
        if not is_integer(parts):
            raise TypeError(f"parts must be an int or None, got {type(parts).__name__} {parts!r}")
        if parts < 1:
            raise ValueError(f"parts must be an integer >= 1, got {parts!r}")
    name = _name("graph-part")
    if not isinstance(graph, (Graph, str, bytes, os.PathLike)):
        raise TypeError(f"graph must be a Graph or a .sg path, got {type(graph).__name__}")
    path = b"" if isinstance(graph, Graph) else path_arg(graph, "graph")
    vertices = graph.vertices if isinstance(graph, Graph) else _core._sg_header(path)[2]
    most = max(vertices, 1)
    count = min(max(len(workers), 1), most) if parts is None else int(parts)
    if count > most:
        raise ValueError(f"parts must be at most {most} for a graph of {vertices} vertices, got {count}")
    if isinstance(graph, Graph):
        ranges = _ranges(graph.vertices, count)
        # hash=False: a key of its own per scatter. Dask would name equal parts (the same graph cut
        # twice) by their content, and releasing one call's parts then lost the other call's.
        return [
            client.scatter(_graph_part(graph, first, n), workers=[workers[k % len(workers)]] if workers else None, hash=False)
            for k, (first, n) in enumerate(ranges)
        ]
    return [
        client.submit(_file_part, path, first, n, key=(name, k)) for k, (first, n) in enumerate(_ranges(vertices, count))
    ]


def pagerank(
    graph: GraphInput,
    tol: float = 1e-3,
    damping: float = 0.85,
    max_iterations: int = 100,
    dangling: Literal["none", "uniform"] = "none",
    parts: int | None = None,
    client: Client | None = None,
) -> PageRankRun:
    """PageRank over graph cut into vertex ranges on the workers (graph_parts): every iteration each
    worker pulls its part's ranks from the whole contributions vector, the client gathers the parts'
    contributions and broadcasts them. The same iterations and stopping rule as Graph.pagerank (f64),
    so the ranks agree with it to rounding."""
    tol, damping, max_iterations = pagerank_args(tol, damping, max_iterations)
    dangling = word(dangling, "dangling")
    _core._pagerank_check(tol, damping, max_iterations, dangling)
    client = _client(client)
    held = list(graph) if isinstance(graph, Sequence) and not isinstance(graph, (str, bytes)) else graph_parts(graph, parts, client)
    for part in held:
        if not isinstance(part, Future):
            raise TypeError(f"graph must be a Graph, a .sg path or the parts graph_parts() returned, got a list holding {type(part).__name__}")
    name = _name("pagerank")
    # Per iteration the workers fetch each other's contributions (worker to worker, Dask's
    # dependencies) and the client gathers only two numbers per part: the difference and the
    # dangling rank, which decide whether to go on.
    states = [client.submit(_start, part, key=(name + "-start", k)) for k, part in enumerate(held)]
    starts = client.gather([client.submit(_totals, s, key=(name + "-start-totals", k)) for k, s in enumerate(states)])
    sizes = client.gather([client.submit(lambda p: p.count, p, key=(name + "-size", k)) for k, p in enumerate(held)])
    vertices = sum(sizes)
    rank_left = sum(t[1] for t in starts) * (1.0 / vertices) if dangling == "uniform" and vertices else 0.0
    iterations, difference = 0, 0.0
    for iteration in range(1, max_iterations + 1 if vertices else 1):
        step = f"{name}-iteration-{iteration}"
        shares = [client.submit(_shares, s, key=(step + "-shares", k)) for k, s in enumerate(states)]
        states = [
            client.submit(_step, part, shares, s, rank_left, damping, dangling, key=(step, k))
            for k, (part, s) in enumerate(zip(held, states))
        ]
        totals = client.gather([client.submit(_totals, s, key=(step + "-totals", k)) for k, s in enumerate(states)])
        iterations, difference = iteration, sum(t[0] for t in totals)
        rank_left = sum(t[1] for t in totals)
        if difference < tol:
            break
    ranks = client.gather([client.submit(_ranks, s, key=(name + "-ranks", k)) for k, s in enumerate(states)])
    result = np.concatenate(ranks) if ranks else np.empty(0)
    return PageRankRun(result, iterations, difference, difference < tol or not vertices)
