"""copy_from, fill and primary-write arrays with sync from Python, and their errors."""

import numpy as np
import pytest

import smartarrays as sa


def test_copy_from_re_encodes_into_every_replica(fake_topology):
    fake_topology("nodes=2")
    values = (np.arange(5003, dtype=np.uint64) * 7919) % 8000
    src = sa.array(values, bits=13)
    dst = sa.array(np.zeros(values.size, dtype=np.uint64), bits=40, placement="replicated")
    dst.copy_from(src)
    assert np.array_equal(dst[:], values)
    assert dst.replicas_equal()
    dst.fill(2**40 - 1)
    assert np.array_equal(dst[:], np.full(values.size, 2**40 - 1, dtype=np.uint64))


def test_errors_are_value_errors():
    src = sa.array(np.array([1, 2, 900], dtype=np.uint64), bits=10)
    narrow = sa.array(np.zeros(3, dtype=np.uint64), bits=9)
    with pytest.raises(ValueError, match="value 900 at index 2"):
        narrow.copy_from(src)
    with pytest.raises(ValueError, match="lengths differ"):
        sa.array(np.zeros(2, dtype=np.uint64), bits=10).copy_from(src)
    with pytest.raises(ValueError, match="needs 10 bits"):
        narrow.fill(512)
    with pytest.raises(TypeError):
        narrow.copy_from(None)
    with pytest.raises(ValueError, match="write mode"):
        sa.array(np.zeros(3, dtype=np.uint64), write_mode="lazy")
    narrow.close()
    with pytest.raises(ValueError, match="closed"):
        narrow.fill(1)


def test_primary_writes_reach_other_replicas_on_sync(fake_topology):
    fake_topology("nodes=2")
    a = sa.array(np.zeros(1000, dtype=np.uint64), bits=12, placement="replicated", write_mode="primary")
    assert a.write_mode == "primary"
    a[-1] = 4095
    assert not a.replicas_equal()
    a.sync()
    assert a.replicas_equal()
    assert a[999] == 4095
    with pytest.raises(ValueError, match="needs 13 bits"):
        a[0] = 4096
    with pytest.raises(IndexError):
        a[1000] = 1
    b = sa.array(np.zeros(10, dtype=np.uint64), bits=12, placement="replicated")
    assert b.write_mode == "write_through"
    b[3] = 7
    assert b.replicas_equal()
    b.sync()
