"""Huge pages from Python: the modes of huge_pages=, what an array reports, and the hugetlb pools."""

import numpy as np
import pytest

import smartarrays as sa

MiB = 1 << 20


def thp_available() -> bool:
    return sa.machine_facts()["thp_enabled"] != "never"


def pool(page_bytes: int) -> dict:
    for p in sa.machine_facts()["hugetlb_pools"]:
        if p["page_bytes"] == page_bytes:
            return p
    return {"page_bytes": page_bytes, "total_pages": 0, "free_pages": 0}


def test_default_is_auto_and_large_arrays_get_huge_pages():
    a = sa.array(np.arange(MiB, dtype=np.uint64), bits=64)  # 8 MiB
    assert a.huge_pages == "auto"
    assert 0 <= a.huge_page_bytes() <= a.nbytes
    if thp_available():
        assert a.huge_page_bytes() > 0
    assert a.huge_page_bytes() % (2 * MiB) == 0


@pytest.mark.parametrize("given, reported", [("on", "on"), ("OFF", "off"), ("auto", "auto"), (True, "on"), (False, "off")])
def test_modes_keep_values(given, reported):
    values = np.arange(200_000, dtype=np.uint64) * 3
    a = sa.array(values, huge_pages=given)
    assert a.huge_pages == reported
    assert np.array_equal(a[:], values)
    if reported == "off":
        assert a.huge_page_bytes() == 0


def test_bad_replica_is_an_index_error():
    a = sa.array([1, 2, 3])
    with pytest.raises(IndexError, match="replica 1"):
        a.huge_page_bytes(1)


def test_graph_and_store_take_the_modes(tmp_path):
    g = sa.Graph.from_edges([0, 1], [1, 2], huge_pages="off")
    assert g.edges == 2
    sa.save(tmp_path / "s.sa", {"a": sa.array([5, 6])})
    with sa.open(tmp_path / "s.sa", mode="load", huge_pages="on") as store:
        assert store["a"].huge_pages == "on"
        assert store["a"][1] == 6


def test_hugetlb_pools_are_reported():
    for p in sa.machine_facts()["hugetlb_pools"]:
        assert p["page_bytes"] > 0
        assert 0 <= p["free_pages"] <= p["total_pages"]


def test_an_empty_hugetlb_pool_is_a_clear_error():
    if pool(2 * MiB)["free_pages"] > 0:
        a = sa.array([1, 2, 3], huge_pages="2M")
        assert a.huge_page_bytes() == 2 * MiB
        return
    with pytest.raises((MemoryError, NotImplementedError), match="hugetlb pages"):
        sa.array([1, 2, 3], huge_pages="2M")
