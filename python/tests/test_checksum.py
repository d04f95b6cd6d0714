"""Per-replica CRC32C and the replica comparison from Python."""

import zlib

import numpy as np
import pytest

import smartarrays as sa


def crc32c_reference(data: bytes) -> int:
    """A bitwise CRC32C (Castagnoli, reflected), independent of the library's ISA-L one."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def test_is_the_crc32c_of_the_packed_words():
    assert crc32c_reference(b"123456789") == 0xE3069283
    a = sa.array(np.arange(300, dtype=np.uint64) % 50, bits=6)
    assert a.crc32c() == crc32c_reference(a.words().tobytes())
    assert a.crc32c() != zlib.crc32(a.words().tobytes())  # Castagnoli, not the zlib polynomial
    assert a.replicas_equal()


def test_every_replica_matches_and_follows_the_values(fake_topology):
    fake_topology("nodes=2")
    a = sa.array(np.arange(5000, dtype=np.uint64) % 700, bits=10, placement="replicated")
    assert a.crc32c(0) == a.crc32c(1)
    assert a.replicas_equal()
    values = np.arange(5000, dtype=np.uint64) % 700
    values[7] = 699
    b = sa.array(values, bits=10, placement="replicated")
    assert b.crc32c(1) != a.crc32c(1)
    with pytest.raises(IndexError, match="replica 2"):
        a.crc32c(2)
