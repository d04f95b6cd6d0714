"""Round trips for every bit width against numpy: construction from every integer dtype, decode,
slices, sums, unpack into a caller's array, batch iteration."""

from __future__ import annotations

import numpy as np
import pytest

import smartarrays as sa

N = 1000 + 37  # a partial last chunk


def values_for(bits: int, n: int = N, seed: int = 0) -> np.ndarray:
    """Random values below 2^bits of varied magnitude, with 0 and the largest value included."""
    rng = np.random.default_rng(seed + bits)
    top = np.uint64(2**bits - 1)
    v = rng.integers(0, 2**64 - 1, size=n, dtype=np.uint64, endpoint=True) & top
    v >>= rng.integers(0, bits, size=n, dtype=np.uint64)
    v[::7] = top
    v[1::7] = 0
    return v


@pytest.mark.parametrize("bits", range(1, 65))
def test_round_trip(bits):
    v = values_for(bits)
    a = sa.array(v, bits=bits)
    assert (len(a), a.bits, a.placement) == (N, bits, "os_default")
    np.testing.assert_array_equal(a.to_numpy(), v)
    np.testing.assert_array_equal(np.asarray(a), v)
    np.testing.assert_array_equal(a[:], v)
    np.testing.assert_array_equal(a[5:-5:3], v[5:-5:3])
    assert a.sum() == int(v.sum(dtype=np.uint64))
    assert a.words().size == (N + 63) // 64 * bits
    assert a[N - 1] == int(v[N - 1]) and a[-N] == int(v[0])


@pytest.mark.parametrize("bits", [1, 7, 10, 32, 33, 63, 64])
def test_unpack_into_a_callers_array(bits):
    v = values_for(bits)
    a = sa.array(v, bits=bits)
    for start, count in [(0, N), (37, 500), (64, 64), (N - 3, 3), (N, 0), (1, 1)]:
        out = np.full(count, 12345, dtype=np.uint64)
        assert a.unpack(start, out) is out
        np.testing.assert_array_equal(out, v[start : start + count])


@pytest.mark.parametrize("size", [1, 64, 100, N, N + 1, 65536])
def test_iter_chunks_covers_every_value_once(size):
    v = values_for(10)
    a = sa.array(v, bits=10)
    chunks = list(a.iter_chunks(size))
    assert all(len(c) == size for c in chunks[:-1]) and 0 < len(chunks[-1]) <= size
    np.testing.assert_array_equal(np.concatenate(chunks), v)
    assert list(sa.array([], bits=3).iter_chunks()) == []


def test_wrapping_sum_of_64_bit_values():
    v = np.full(4, 2**64 - 1, dtype=np.uint64)
    assert sa.array(v).sum() == (4 * (2**64 - 1)) % 2**64


@pytest.mark.parametrize(
    "dtype", [np.bool_, np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.uint64, np.int64]
)
def test_every_integer_dtype(dtype):
    v = np.array([0, 1, 1, 0, 1] if dtype == np.bool_ else [0, 1, 5, 100, 127], dtype=dtype)
    a = sa.array(v)
    assert a.bits == max(1, int(v.max()).bit_length())
    np.testing.assert_array_equal(a.to_numpy(), v.astype(np.uint64))


def test_python_sequences_and_non_contiguous_arrays():
    assert sa.array([3, 1, 2**64 - 1]).to_numpy().tolist() == [3, 1, 2**64 - 1]
    assert sa.array(range(10), bits=4)[-1] == 9
    strided = np.arange(100, dtype=np.uint64)[::3]
    np.testing.assert_array_equal(sa.array(strided).to_numpy(), strided)
    np.testing.assert_array_equal(sa.array(np.arange(10, dtype=np.uint32)[::-1]).to_numpy(), np.arange(10)[::-1])


def test_non_native_byte_order_is_converted_not_reinterpreted():
    for dtype in (">u8", ">i8", ">u4", "<u2"):
        v = np.array([1, 2, 70000 % 2**16, 300], dtype=dtype)
        assert sa.array(v).to_numpy().tolist() == v.tolist()


def test_auto_and_explicit_bits():
    v = np.array([0, 1000, 70000], dtype=np.uint64)
    assert sa.array(v).bits == 17
    assert sa.array(v, bits=17).bits == 17
    assert sa.array(v, bits=64).bits == 64
    assert sa.array(np.zeros(5, dtype=np.uint64)).bits == 1
    assert sa.array([]).bits == 1


def test_memory_is_compressed():
    n = 1 << 20
    a10 = sa.array(np.zeros(n, dtype=np.uint16), bits=10)
    a64 = sa.array(np.zeros(n, dtype=np.uint64), bits=64)
    assert a10.nbytes * 64 <= a64.nbytes * 10 + 64 * 4096
    assert a64.nbytes >= 8 * n


def test_context_manager_closes():
    with sa.array([1, 2, 3]) as a:
        assert a.sum() == 6
        assert not a.closed
    assert a.closed
    assert repr(a) == "SmartArray(closed)"
