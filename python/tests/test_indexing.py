"""Indexing like numpy: checked ints (negative from the end, numpy integers), slices of every
shape decoded to ndarrays, and integer-array gathers."""

from __future__ import annotations

import numpy as np
import pytest

import smartarrays as sa

V = (np.arange(300, dtype=np.uint64) * 2654435761) % 1000


@pytest.fixture(params=[10, 64], ids=["10-bit", "64-bit"])
def a(request):
    """V as a compressed and as an uncompressed array."""
    return sa.array(V, bits=request.param)


def test_int_indices(a):
    for i in [0, 1, 63, 64, 299, -1, -64, -300]:
        assert a[i] == int(V[i])
        assert isinstance(a[i], int)
    assert a[np.int32(5)] == int(V[5])
    assert a[np.uint64(7)] == int(V[7])
    assert a[np.array(9)] == int(V[9])


@pytest.mark.parametrize(
    "key",
    [
        slice(None),
        slice(10, 20),
        slice(-20, None),
        slice(None, -250),
        slice(63, 129),
        slice(5, 290, 7),
        slice(None, None, -1),
        slice(250, 10, -3),
        slice(-1, -300, -64),
        slice(100, 50),
        slice(400, 500),
        slice(-1000, 1000),
        slice(0, 0),
    ],
)
def test_slices_match_numpy(a, key):
    got = a[key]
    assert isinstance(got, np.ndarray) and got.dtype == np.uint64
    np.testing.assert_array_equal(got, V[key])


def test_integer_array_indices(a):
    idx = np.array([0, 299, -1, 150, 150, 64], dtype=np.int64)
    np.testing.assert_array_equal(a[idx], V[idx])
    np.testing.assert_array_equal(a[[3, -3]], V[[3, -3]])
    np.testing.assert_array_equal(a[np.array([1, 2], dtype=np.uint64)], V[[1, 2]])
    np.testing.assert_array_equal(a[np.array([4, 5], dtype=np.uint8)], V[[4, 5]])
    assert a[[]].size == 0


def test_python_iteration_and_membership(a):
    assert list(a)[:70] == V[:70].tolist()
    assert int(V[123]) in a


def test_slices_of_empty_arrays():
    e = sa.array(np.array([], dtype=np.uint64), bits=5)
    assert len(e) == 0 and e[:].size == 0 and e.sum() == 0 and e.to_numpy().size == 0
