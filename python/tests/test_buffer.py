"""Placed buffers: zero-filled, writable numpy arrays over memory the core placed, on every one-copy
placement of a fake topology, with their page report, lifetime and every refusal."""

import gc

import numpy as np
import pytest

import smartarrays as sa


@pytest.fixture
def two_nodes():
    sa.set_fake_topology("nodes=2")
    yield
    sa.set_fake_topology("")


@pytest.mark.parametrize(
    "placement, nodes",
    [("os_default", None), ("single_node", 1), ("interleaved", None), ("partitioned", [0, 1])],
)
def test_every_one_copy_placement_is_zeroed_writable_and_on_its_pages(two_nodes, placement, nodes):
    a = sa.allocate_buffer((3, 1000), "float64", placement=placement, nodes=nodes)
    assert a.shape == (3, 1000) and a.dtype == np.float64
    assert a.flags.writeable and a.flags.c_contiguous
    assert a.ctypes.data % 4096 == 0
    assert not a.any()
    a[:] = np.arange(3000, dtype=np.float64).reshape(3, 1000)
    assert a[2, 999] == 2999.0
    owner = a.base
    assert isinstance(owner, sa.PlacedBuffer)
    assert owner.bytes == 24000
    pages = owner.pages_per_node
    assert sum(pages) == 6 and pages[0] == 6
    assert owner.huge_page_bytes == 0


def test_large_buffers_ask_for_huge_pages_and_live_as_long_as_a_view():
    a = sa.allocate_buffer(1 << 20, np.uint64)
    assert 0 <= a.base.huge_page_bytes <= 8 << 20
    tail = a[-4:]
    tail[:] = 7
    del a
    gc.collect()
    assert tail.tolist() == [7, 7, 7, 7]
    assert sa.allocate_buffer(5, "uint8", huge_pages=False).base.huge_page_bytes == 0
    assert sa.allocate_buffer([2, 3], np.int32).shape == (2, 3)


def test_refuses_what_it_cannot_honour():
    with pytest.raises(ValueError, match="at least 1 byte"):
        sa.allocate_buffer(0)
    with pytest.raises(ValueError, match="replicated"):
        sa.allocate_buffer(10, placement="replicated")
    with pytest.raises(ValueError, match="placement"):
        sa.allocate_buffer(10, placement="everywhere")
    with pytest.raises(ValueError, match="negative"):
        sa.allocate_buffer((2, -1))
    with pytest.raises(TypeError, match="shape"):
        sa.allocate_buffer(2.5)
    with pytest.raises(TypeError, match="shape"):
        sa.allocate_buffer((2, "3"))
    with pytest.raises(TypeError, match="shape"):
        sa.allocate_buffer(True)
    with pytest.raises(TypeError, match="objects"):
        sa.allocate_buffer(4, object)
    with pytest.raises(MemoryError, match="2\\^64"):
        sa.allocate_buffer((1 << 62, 8), "float64")
    with pytest.raises(MemoryError):
        sa.allocate_buffer(1 << 60, "uint8")
    with pytest.raises(TypeError, match="nodes"):
        sa.allocate_buffer(4, placement="interleaved", nodes=[0.5])
