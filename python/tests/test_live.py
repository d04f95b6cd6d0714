"""Live re-layout through the package: relayout to every placement and width keeps every value, a
pinned snapshot keeps its version, errors leave the current version, and reader threads see only
right values while another thread re-lays the array out (the core runs without the GIL)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import smartarrays as sa

V = (np.arange(50_000, dtype=np.uint64) * 7919) % 3001  # 12 bits


@pytest.mark.parametrize("nodes", [2, 4])
def test_every_placement_and_width_keeps_every_value(fake_topology, nodes):
    fake_topology(f"nodes={nodes}")
    live = sa.LiveArray(sa.array(V))
    first = live.pin()
    version = 0
    for placement in ("os_default", "single_node", "interleaved", "replicated", "partitioned"):
        for bits in ("min", 13, 64):
            version += 1
            assert live.relayout(bits=bits, placement=placement) == version
            now = live.pin()
            assert now.placement == placement and now.bits == (12 if bits == "min" else bits)
            assert now.replicas == (nodes if placement == "replicated" else 1)
            np.testing.assert_array_equal(np.asarray(now), V)
    assert live.version == version and len(live) == len(V)
    assert first.bits == 12 and first.placement == "os_default"  # version 0, still pinned
    np.testing.assert_array_equal(np.asarray(first), V)


def test_the_source_array_stays_usable_and_errors_change_nothing():
    source = sa.array(V)
    live = sa.LiveArray(source)
    with pytest.raises(ValueError, match="needs 12 bits"):
        live.relayout(bits=11)
    with pytest.raises(ValueError, match="placement"):
        live.relayout(placement="everywhere")
    with pytest.raises(ValueError):
        live.relayout(bits=65)
    with pytest.raises(TypeError):
        sa.LiveArray(V)
    assert live.version == 0 and live.pin().bits == 12
    np.testing.assert_array_equal(np.asarray(source), V)


def test_version_zero_and_snapshots_cannot_be_written():
    source = sa.array(V)
    live = sa.LiveArray(source)
    pinned = live.pin()
    for array in (source, pinned):
        with pytest.raises(ValueError, match="read-only"):
            array.fill(1)
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 1
    np.testing.assert_array_equal(np.asarray(pinned), V)


def test_readers_see_right_values_during_relayouts(fake_topology):
    fake_topology("nodes=2")
    live = sa.LiveArray(sa.array(V))
    done = threading.Event()
    wrong = []
    reads = [0, 0]
    started = threading.Barrier(3)

    def reader(k: int) -> None:
        while not done.is_set():
            values = np.asarray(live.pin())
            if not np.array_equal(values, V):
                wrong.append(k)
            reads[k] += 1
            if reads[k] == 1:
                started.wait()

    threads = [threading.Thread(target=reader, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    started.wait()  # both readers are reading before the first relayout
    for round_ in range(12):
        live.relayout(bits=(0, 64, 17)[round_ % 3] or "min",
                      placement=("partitioned", "replicated", "interleaved", "os_default")[round_ % 4])
    done.set()
    for t in threads:
        t.join()
    assert wrong == [] and min(reads) > 0 and live.version == 12
