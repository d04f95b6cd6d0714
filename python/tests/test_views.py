"""Zero-copy views of uncompressed arrays (buffer protocol, __array__, DLPack, packed words): they
share the array's memory, are read-only, and keep it alive after `del` and close()."""

from __future__ import annotations

import ctypes
import gc
import weakref

import numpy as np
import pytest

import smartarrays as sa

V = np.arange(1000, dtype=np.uint64) * 3


@pytest.fixture
def a64():
    """V as an uncompressed (64-bit) array."""
    return sa.array(V, bits=64)


def test_numpy_views_share_the_arrays_memory(a64):
    buffer_view = np.asarray(a64)
    dlpack_view = np.from_dlpack(a64)
    protocol_view = a64.__array__(copy=False)
    memview = np.asarray(memoryview(a64))
    for view in (buffer_view, dlpack_view, protocol_view, memview):
        np.testing.assert_array_equal(view, V)
        assert view.dtype == np.uint64
        assert not view.flags.writeable
    assert np.shares_memory(buffer_view, dlpack_view)
    assert np.shares_memory(buffer_view, protocol_view)
    assert np.shares_memory(buffer_view, memview)
    assert np.shares_memory(buffer_view, a64.words())
    assert not np.shares_memory(buffer_view, a64.to_numpy())
    assert not np.shares_memory(buffer_view, np.array(a64, copy=True))


def test_views_are_read_only(a64):
    with pytest.raises(ValueError):
        np.asarray(a64)[0] = 1
    with pytest.raises(TypeError):
        memoryview(a64)[0] = 1
    with pytest.raises(TypeError, match="not writable"):
        (ctypes.c_uint64 * 1000).from_buffer(a64)
    with pytest.raises(ValueError):
        np.from_dlpack(a64)[0] = 1
    assert a64[0] == 0


def test_buffer_describes_uint64_values(a64):
    m = memoryview(a64)
    assert (m.format, m.itemsize, m.ndim, m.shape, m.readonly) == ("Q", 8, 1, (1000,), True)
    assert m.tolist() == V.tolist()
    assert a64.__dlpack_device__() == (1, 0)


def test_views_keep_the_owner_alive_after_del():
    a = sa.array(V, bits=64)
    owner = weakref.ref(a)
    buffer_view = np.asarray(a)
    dlpack_view = np.from_dlpack(a)
    words = a.words()
    del a
    gc.collect()
    assert owner() is not None  # the buffer view references the Python object
    del buffer_view
    gc.collect()
    assert owner() is None  # ... and only the buffer view did
    np.testing.assert_array_equal(dlpack_view, V)  # the DLPack view and the words keep the memory
    np.testing.assert_array_equal(words[:1000], V)  # whole chunks: the last one is zero padded
    assert words.size == 1024 and not words[1000:].any()


def test_views_survive_close():
    a = sa.array(V, bits=64)
    view = np.asarray(a)
    dl = np.from_dlpack(a)
    a.close()
    np.testing.assert_array_equal(view, V)
    np.testing.assert_array_equal(dl, V)
    with pytest.raises(ValueError, match="closed"):
        np.from_dlpack(a)
    with pytest.raises(ValueError, match="closed"):
        memoryview(a)


def test_compressed_arrays_have_no_zero_copy_view():
    a = sa.array(V, bits=12)
    with pytest.raises(BufferError, match="12-bit"):
        memoryview(a)
    with pytest.raises(BufferError, match="12-bit"):
        a.__dlpack__()
    with pytest.raises(ValueError, match="without a copy"):
        np.array(a, copy=False)
    copy = np.asarray(a)  # falls back to __array__, a decoded copy
    np.testing.assert_array_equal(copy, V)
    assert copy.flags.writeable
    words = a.words()
    assert words.size == (1000 + 63) // 64 * 12 and not words.flags.writeable


def test_array_protocol_dtype_and_copy(a64):
    as_float = np.asarray(a64, dtype=np.float64)
    assert as_float.dtype == np.float64 and as_float[10] == 30.0
    with pytest.raises(ValueError, match="float32"):
        a64.__array__(dtype=np.float32, copy=False)
    assert np.shares_memory(a64.__array__(dtype=np.uint64), np.asarray(a64))
    copied = a64.__array__(copy=True)
    assert copied.flags.writeable and not np.shares_memory(copied, np.asarray(a64))
    small = sa.array(V, bits=12).__array__(dtype=np.uint16)
    assert small.dtype == np.uint16 and small.tolist() == V.tolist()
