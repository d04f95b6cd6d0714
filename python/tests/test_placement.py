"""Placements and topology through the package: every placement holds the same values, pages are
where the core reports them, and fake topologies exercise multi-node logic on any machine."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import smartarrays as sa

V = np.arange(100_000, dtype=np.uint64) % 5000
PAGE = os.sysconf("SC_PAGE_SIZE")


def test_topology_snapshot():
    topo = sa.topology()
    assert topo.node_count >= 1 and not topo.fake and topo.spec == ""
    assert [n.id for n in topo.nodes] == list(range(topo.node_count))
    assert sum(len(n.cpus) for n in topo.nodes) == len(os.sched_getaffinity(0))
    assert len(topo.distances) == topo.node_count
    for i, row in enumerate(topo.distances):
        assert len(row) == topo.node_count and row[i] == 10
    assert 0 <= sa.current_node() < topo.node_count
    assert sa.codec_isa() in ("scalar", "avx2")


def test_machine_facts_are_the_c_abis(fake_topology):
    facts = sa.machine_facts()
    assert facts["format"] == "smartarrays.machine/1"
    assert facts["nodes"] == sa.topology().node_count and facts["fake_topology"] is False
    assert facts["codec_isa"] == sa.codec_isa() and facts["library_version"] == sa.__version__
    assert len(facts["load_average"]) == 3 and facts["usable_cpus"] == len(os.sched_getaffinity(0))
    fake_topology("nodes=2")
    faked = sa.machine_facts()
    assert faked["nodes"] == 2 and faked["fake_topology"] is True and faked["topology_spec"] == "nodes=2"


@pytest.mark.parametrize("placement", ["os_default", "single_node", "interleaved", "replicated", "partitioned"])
def test_every_placement_holds_the_values(placement):
    a = sa.array(V, bits=13, placement=placement)
    assert a.placement == placement
    np.testing.assert_array_equal(a.to_numpy(), V)
    assert a.sum() == int(V.sum())
    pages = a.pages_per_node()
    assert len(pages) == a.replicas
    expected_pages = -(-(a.words().nbytes + 8) // PAGE)  # the stream plus one padding word, in pages
    assert all(sum(replica) == expected_pages for replica in pages)
    assert a.nbytes == a.replicas * expected_pages * PAGE


def test_single_node_pages_sit_on_the_node():
    node = sa.topology().nodes[0]
    a = sa.array(V, placement="single_node", nodes=node.id)
    assert a.nodes == [node.id]
    assert a.pages_per_node()[0][node.os_node] == sum(a.pages_per_node()[0])


def test_fake_topology_gives_one_replica_per_node(fake_topology):
    fake_topology("nodes=3")
    topo = sa.topology()
    assert topo.fake and topo.spec == "nodes=3" and topo.node_count == 3
    a = sa.array(V, bits=13, placement="replicated")
    assert (a.replicas, a.nodes) == (3, [0, 1, 2])
    for r in range(3):
        np.testing.assert_array_equal(a.words(r), a.words(0))
        assert not np.shares_memory(a.words(r), a.words((r + 1) % 3))
    np.testing.assert_array_equal(a.to_numpy(), V)
    b = sa.array(V, placement="interleaved", nodes=[2, 0])
    assert (b.replicas, b.nodes) == (1, [2, 0])
    c = sa.array(V, placement="replicated", nodes=(1, 2))
    assert (c.replicas, c.nodes, c.sum()) == (2, [1, 2], int(V.sum()))
    sa.set_fake_topology("")
    assert not sa.topology().fake


def test_topology_from_the_environment():
    env = dict(os.environ, SMARTARRAYS_TOPOLOGY="nodes=2")
    code = "import smartarrays as sa; t = sa.topology(); print(t.fake, t.node_count, sa.array([1], placement='replicated').replicas)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "2", "2"]


def test_bad_fake_topology_spec():
    with pytest.raises(ValueError, match="topology spec 'nodes=x'"):
        sa.set_fake_topology("nodes=x")
    assert not sa.topology().fake


def test_huge_pages_option_keeps_values():
    a = sa.array(V, huge_pages=True)
    np.testing.assert_array_equal(a.to_numpy(), V)
