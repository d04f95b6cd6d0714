"""Graphs through the package: construction from arrays, files and generators, the arrays and
memory report, degree centrality and PageRank (against networkx and an independent numpy
reference), the C++ command's results, and the errors."""

from __future__ import annotations

import subprocess
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import smartarrays as sa

VARIANTS = ["U", "V", "V+E"]


def networkx_graphs() -> dict[str, nx.Graph]:
    """networkx's bundled small graphs, plus directed ones with sinks so dangling vertices matter."""
    karate = nx.karate_club_graph()
    return {
        "karate": karate,
        "les_miserables": nx.les_miserables_graph(),
        "florentine": nx.florentine_families_graph(),
        "davis": nx.davis_southern_women_graph(),
        "karate_oriented": nx.DiGraph((min(u, v), max(u, v)) for u, v in karate.edges()),
        "growing_network": nx.gn_graph(60, seed=4),
    }


def as_arrays(g: nx.Graph) -> tuple[np.ndarray, np.ndarray, list[object]]:
    """Edge arrays over vertex ids 0..n-1 in networkx's node order, and that order."""
    order = list(g)
    index = {node: i for i, node in enumerate(order)}
    src = np.array([index[u] for u, _ in g.edges()], dtype=np.int64)
    dst = np.array([index[v] for _, v in g.edges()], dtype=np.int64)
    return src, dst, order


def smart_graph(g: nx.Graph, variant: str = "V+E") -> sa.Graph:
    """The networkx graph as a smartarrays Graph over the same vertex order."""
    src, dst, order = as_arrays(g)
    return sa.Graph.from_edges(src, dst, variant, vertices=len(order), directed=g.is_directed())


@pytest.mark.parametrize("name", list(networkx_graphs()))
@pytest.mark.parametrize("variant", VARIANTS)
def test_pagerank_with_dangling_redistribution_equals_networkx(name, variant):
    g = networkx_graphs()[name]
    ours = smart_graph(g, variant).pagerank(tol=1e-13, max_iterations=1000, dangling="uniform")
    theirs = nx.pagerank(g, alpha=0.85, weight=None, tol=1e-13, max_iter=1000)
    expected = np.array([theirs[node] for node in g])
    np.testing.assert_allclose(ours, expected, rtol=0, atol=1e-10)
    assert ours.sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("variant", VARIANTS)
def test_pagerank_in_float_scores_returns_float32_near_the_doubles(variant):
    g = sa.Graph.rmat(8, edge_factor=8, seed=3, variant=variant)
    doubles = g.pagerank(tol=1e-9)
    floats = g.pagerank(tol=1e-9, scores="f32")
    assert doubles.dtype == np.float64 and floats.dtype == np.float32
    np.testing.assert_allclose(floats, doubles, rtol=1e-4, atol=0)
    with pytest.raises(ValueError, match="score precision"):
        g.pagerank(scores="f16")


def test_an_undirected_graph_shares_its_reverse_arrays():
    g = sa.Graph.from_edges([0, 1, 2], [1, 2, 0], directed=False)
    report = g.memory()
    shared = {a.name: a.shared_with for a in report.arrays}
    assert shared == {"begin": "", "edge": "", "rbegin": "begin", "redge": "edge"}
    assert [a.bytes for a in report.arrays if a.shared_with] == [0, 0]
    assert report.total_bytes == sum(a.bytes for a in report.arrays)
    np.testing.assert_array_equal(g.array("redge").to_numpy(), g.array("edge").to_numpy())


def reference_pagerank(src: np.ndarray, dst: np.ndarray, n: int, damping: float, tol: float) -> np.ndarray:
    """The paper's rule written plainly: pull Jacobi iterations, sinks' rank leaves the system."""
    out_degree = np.bincount(src, minlength=n).astype(np.float64)
    ranks = np.full(n, 1.0 / n)
    while True:
        contributions = np.divide(ranks, out_degree, out=np.zeros(n), where=out_degree > 0)
        incoming = np.bincount(dst, weights=contributions[src], minlength=n)
        new = (1 - damping) / n + damping * incoming
        difference = np.abs(new - ranks).sum()
        ranks = new
        if difference < tol:
            return ranks


@pytest.mark.parametrize("variant", VARIANTS)
def test_pagerank_without_redistribution_equals_a_reference(variant):
    g = sa.Graph.rmat(8, edge_factor=8, seed=3, variant=variant)
    edge = g.array("edge").to_numpy().astype(np.int64)
    src = np.repeat(np.arange(g.vertices), np.diff(g.array("begin").to_numpy().astype(np.int64)))
    expected = reference_pagerank(src, edge, g.vertices, 0.85, 1e-12)
    np.testing.assert_allclose(g.pagerank(tol=1e-12, max_iterations=1000), expected, rtol=0, atol=1e-12)
    assert g.pagerank().sum() < 1.0  # the sinks' rank leaves the system
    half = reference_pagerank(src, edge, g.vertices, 0.5, 1e-12)
    np.testing.assert_allclose(g.pagerank(tol=1e-12, damping=0.5), half, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", list(networkx_graphs()))
def test_degree_centrality_equals_networkx(name):
    g = networkx_graphs()[name]
    degrees = smart_graph(g).degree_centrality()
    expected = np.array([d for _, d in g.degree()], dtype=np.uint64)
    if not g.is_directed():
        expected *= 2  # each undirected edge is stored in both directions: once out, once in
    np.testing.assert_array_equal(degrees, expected)
    assert degrees.dtype == np.uint64


def test_csr_arrays_and_properties():
    src, dst = [0, 0, 1, 2, 3, 4, 0], [1, 2, 2, 0, 2, 4, 1]
    g = sa.Graph.from_edges(src, dst, "U", vertices=6)
    assert (g.vertices, g.edges, g.directed, g.variant) == (6, 7, True, "U")
    assert g.array("begin").to_numpy().tolist() == [0, 3, 4, 5, 6, 7, 7]
    assert g.array("edge").to_numpy().tolist() == [1, 1, 2, 2, 0, 2, 4]
    assert g.array("rbegin").to_numpy().tolist() == [0, 1, 3, 6, 6, 7, 7]
    assert g.array("redge").to_numpy().tolist() == [2, 0, 0, 0, 1, 3, 4]
    # Out-degrees are begin's differences: no array holds them.
    assert np.diff(g.array("begin").to_numpy().astype(np.int64)).tolist() == [3, 1, 1, 1, 1, 0]
    assert g.out_degrees().tolist() == [3, 1, 1, 1, 1, 0] and g.out_degrees().dtype == np.uint64
    with pytest.raises(ValueError, match="out_degree.*no longer stored.*derived from begin"):
        g.array("out_degree")
    assert [g.array(a).bits for a in ("begin", "edge", "rbegin", "redge")] == [64, 32, 64, 32]
    assert g.degree_centrality().tolist() == [4, 3, 4, 1, 2, 0]
    deduped = sa.Graph.from_edges(src, dst, "V", dedup=True, drop_self_loops=True)
    assert (deduped.vertices, deduped.edges, deduped.variant) == (5, 5, "V")
    undirected = sa.Graph.from_edges([0, 1], [1, 2], directed=False)
    assert (undirected.edges, undirected.directed) == (4, False)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("directed", [True, False])
def test_out_degrees_count_each_vertex_edges(variant, directed):
    rng = np.random.default_rng(3)
    src, dst = rng.integers(0, 3000, 20_000), rng.integers(0, 3000, 20_000)
    g = sa.Graph.from_edges(src, dst, variant, vertices=3000, directed=directed)
    expected = np.bincount(src, minlength=3000)
    if not directed:  # both directions of each edge, a self-loop once
        expected = expected + np.bincount(dst[src != dst], minlength=3000)
    np.testing.assert_array_equal(g.out_degrees(), expected)
    assert sa.Graph.from_edges([], [], vertices=3).out_degrees().tolist() == [0, 0, 0]


def test_memory_report():
    u = sa.Graph.rmat(12, variant="U")
    ve = sa.Graph.rmat(12, variant="V+E")
    for g in (u, ve):
        report = g.memory()
        assert [a.name for a in report.arrays] == ["begin", "edge", "rbegin", "redge"]
        assert report.total_bytes == sum(a.bytes for a in report.arrays)
        assert all(a.bytes == g.array(a.name).nbytes and a.bits == g.array(a.name).bits for a in report.arrays)
    assert ve.memory().total_bytes < 0.8 * u.memory().total_bytes
    np.testing.assert_allclose(u.pagerank(tol=1e-9), ve.pagerank(tol=1e-9), rtol=0, atol=1e-15)


def test_files_load_like_the_same_edges(test_data: Path):
    el = sa.Graph.load(test_data / "graph" / "tiny.el")
    mtx = sa.Graph.load(str(test_data / "graph" / "tiny.mtx"))
    explicit = sa.Graph.load(test_data / "graph" / "tiny.el", "U", format="el")
    edges = sa.Graph.from_edges([0, 0, 1, 2, 3, 4, 0], [1, 2, 2, 0, 2, 4, 1], vertices=6)
    for g in (el, mtx, explicit):
        assert (g.vertices, g.edges) == (6, 7)
        for name in ("begin", "edge", "rbegin", "redge"):
            np.testing.assert_array_equal(g.array(name).to_numpy(), edges.array(name).to_numpy())
    symmetric = sa.Graph.load(test_data / "graph" / "triangle_symmetric.mtx")
    assert not symmetric.directed and symmetric.vertices == 4


@pytest.mark.parametrize("directed", [True, False])
def test_every_format_saved_loads_back_as_the_same_graph(tmp_path: Path, directed):
    # Repeated edges, self-loops, isolated vertices in the middle and at the end.
    g = sa.Graph.from_edges([0, 0, 2, 2, 5, 5, 7, 0], [1, 1, 2, 5, 0, 7, 7, 0], vertices=11, directed=directed)
    named = {"el": "g.txt", "mtx": "g.mtx", "sg": "g.sg", "compact": "g.sa"}
    for format, name in named.items():
        for path, given in ((tmp_path / f"by-name-{name}", None), (tmp_path / f"{format}.given", format)):
            g.save(path, format=given)
            back = sa.Graph.load(path, format=format)
            assert (back.vertices, back.edges, back.directed) == (11, g.edges, directed), path
            for array in ("begin", "edge", "rbegin", "redge"):
                np.testing.assert_array_equal(back.array(array).to_numpy(), g.array(array).to_numpy())
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [f"by-name-{n}" for n in named.values()] + [f"{f}.given" for f in named]
    ), "no staged file is left behind"


def test_save_errors_keep_the_old_file(tmp_path: Path):
    g = sa.Graph.from_edges([0], [1])
    old = tmp_path / "old.el"
    old.write_text("keep me\n")
    with pytest.raises(ValueError, match="unknown graph format 'dot'"):
        g.save(old, format="dot")
    with pytest.raises(ValueError, match="unknown graph format ''"):
        g.save(old, format="")  # as the C ABI and Java: None, not "", takes the format from the name
    with pytest.raises(ValueError, match="extension"):
        g.save(tmp_path / "g.xyz")
    with pytest.raises(OSError, match="missing"):
        g.save(tmp_path / "missing" / "g.el")
    with pytest.raises(TypeError, match="path"):
        g.save(3)
    assert old.read_text() == "keep me\n"
    g.close()
    with pytest.raises(ValueError, match="closed"):
        g.save(old)
    assert old.read_text() == "keep me\n"


def test_generators_are_deterministic():
    a, b = sa.Graph.rmat(10, seed=5), sa.Graph.rmat(10, seed=5)
    assert (a.vertices, a.edges) == (1024, 16 * 1024)
    np.testing.assert_array_equal(a.array("edge").to_numpy(), b.array("edge").to_numpy())
    u = sa.Graph.uniform(1000, average_degree=4, seed=2)
    assert (u.vertices, u.edges) == (1000, 4000)


def test_placements_on_a_fake_topology(fake_topology):
    fake_topology("nodes=2")
    g = sa.Graph.rmat(9, placement="replicated")
    assert g.array("redge").replicas == 2
    plain = sa.Graph.rmat(9)
    np.testing.assert_allclose(g.pagerank(tol=1e-10), plain.pagerank(tol=1e-10), rtol=0, atol=1e-15)
    np.testing.assert_array_equal(g.degree_centrality(), plain.degree_centrality())


def test_factories_share_their_keywords(test_data: Path):
    factories = {
        "from_edges": lambda **kw: sa.Graph.from_edges([0, 0, 1, 2, 3, 4, 0], [1, 2, 2, 0, 2, 4, 1], "U", **kw),
        "load": lambda **kw: sa.Graph.load(test_data / "graph" / "tiny.el", "U", **kw),
        "rmat": lambda **kw: sa.Graph.rmat(6, 4, 1, "U", **kw),
        "uniform": lambda **kw: sa.Graph.uniform(64, 4.0, 1, "U", **kw),
    }
    for name, make in factories.items():
        plain = make()
        g = make(dedup=True, drop_self_loops=True, placement="interleaved", nodes=[0], huge_pages=True)
        assert {a.placement for a in g.memory().arrays} == {"interleaved"}, name
        assert {a.placement for a in plain.memory().arrays} == {"os_default"}, name
        assert g.edges <= plain.edges and g.variant == "U", name
        with pytest.raises(TypeError, match=rf"Graph.{name}\(\) got an unexpected keyword argument 'dedupe'"):
            make(dedupe=True)
    assert sa.Graph.load(test_data / "graph" / "tiny.el", dedup=True, drop_self_loops=True).edges == 5


def test_arrays_outlive_a_closed_graph():
    with sa.Graph.from_edges([0, 1], [1, 0]) as g:
        edge = g.array("edge")
    assert g.closed and repr(g) == "Graph(closed)"
    assert edge.to_numpy().tolist() == [1, 0]
    for call in (lambda: g.vertices, g.degree_centrality, g.pagerank, g.memory, lambda: g.array("edge"), g.__enter__):
        with pytest.raises(ValueError, match="closed Graph"):
            call()


def test_graph_errors(tmp_path: Path):
    with pytest.raises(OSError, match="cannot open .*missing.el"):
        sa.Graph.load(tmp_path / "missing.el")
    bad = tmp_path / "bad.el"
    bad.write_text("0 1\n1 x\n")
    with pytest.raises(ValueError, match="bad.el:2"):
        sa.Graph.load(bad)
    with pytest.raises(ValueError, match="extension"):
        sa.Graph.load(tmp_path / "graph.xyz")
    with pytest.raises(ValueError, match="unknown graph format ''"):
        sa.Graph.load(bad, format="")
    with pytest.raises(ValueError, match="unknown variant 'W'"):
        sa.Graph.from_edges([0], [1], "W")
    with pytest.raises(ValueError, match="src has 2 ids but dst has 1"):
        sa.Graph.from_edges([0, 1], [1])
    with pytest.raises(ValueError, match="dst: value -1 at index 0 is negative"):
        sa.Graph.from_edges([0], [-1])
    with pytest.raises(ValueError, match=r"edge 0 \(0 -> 5\) has a vertex id not below the vertex count 3"):
        sa.Graph.from_edges([0], [5], vertices=3)
    with pytest.raises(ValueError, match="at least 1"):
        sa.Graph.from_edges([0], [0], vertices=0)
    with pytest.raises(ValueError, match="unknown placement"):
        sa.Graph.rmat(4, placement="anywhere")
    g = sa.Graph.from_edges([0], [1])
    with pytest.raises(ValueError, match="dangling"):
        g.pagerank(dangling="networkx")
    with pytest.raises(ValueError, match="redges"):
        g.array("redges")
    with pytest.raises(ValueError):
        g.pagerank(damping=1.5)


def run_cli(cli: Path, *args: str) -> None:
    """Runs the smartarrays command quietly; fails the test if it fails."""
    result = subprocess.run([str(cli), *args, "--quiet"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.fixture(scope="module")
def rmat_file(cli: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An R-MAT graph written by the command, so both sides read the same file."""
    path = tmp_path_factory.mktemp("graphs") / "rmat10.el"
    run_cli(cli, "graph", "generate", "--scale", "10", "--seed", "7", "--output", str(path))
    return path


@pytest.mark.parametrize("variant", VARIANTS)
def test_degree_centrality_equals_the_commands(cli: Path, rmat_file: Path, test_data: Path, tmp_path: Path, variant):
    for graph_file in (rmat_file, test_data / "graph" / "tiny.mtx"):
        out = tmp_path / "degrees.txt"
        run_cli(cli, "graph", "degree", str(graph_file), "--variant", variant, "--output", str(out))
        expected = np.loadtxt(out, dtype=np.uint64, ndmin=1)
        np.testing.assert_array_equal(sa.Graph.load(graph_file, variant).degree_centrality(), expected)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("dangling", ["none", "uniform"])
def test_pagerank_equals_the_commands(cli: Path, rmat_file: Path, tmp_path: Path, variant, dangling):
    out = tmp_path / "ranks.txt"
    run_cli(
        cli, "graph", "pagerank", str(rmat_file), "--variant", variant, "--dangling", dangling,
        "--tolerance", "1e-6", "--output", str(out),
    )
    expected = np.loadtxt(out, dtype=np.float64)
    ours = sa.Graph.load(rmat_file, variant).pagerank(tol=1e-6, dangling=dangling)
    np.testing.assert_allclose(ours, expected, rtol=1e-12, atol=0)
