"""placement="auto" and bits="auto" with access hints: the adaptive layer chooses, the array says
what it chose and why, and the values equal those of an explicitly configured array."""

import numpy as np
import pytest

import smartarrays as sa


def test_auto_array_equals_the_explicit_one_value_for_value():
    values = (np.arange(200_000, dtype=np.uint64) * 7919) % 5000
    a = sa.array(values, placement="auto", bits="auto", hints={"read_only": True, "pattern": "sequential", "passes": 10})
    assert a.bits in (13, 64)
    assert a.placement in ("os_default", "single_node", "interleaved", "replicated")
    assert a.huge_pages in ("on", "off")
    decision = a.decision
    assert decision["choice"]["bits"] == a.bits
    assert decision["choice"]["placement"] == a.placement
    assert decision["explanation"] and all("rule" in r and "text" in r for r in decision["explanation"])
    assert all("predicted_s" in c for c in decision["candidates"])
    assert decision["threads"] >= 1 and decision["pinning"] in ("sparse", "dense")
    b = sa.array(values, placement=a.placement, bits=a.bits, huge_pages=a.huge_pages)
    assert np.array_equal(a[:], b[:])
    assert np.array_equal(a[:], values)


def test_uint32_values_and_auto_placement_with_explicit_bits():
    values = np.array([1, 2, 3, 4_000_000_000], dtype=np.uint32)
    a = sa.array(values, placement="auto", bits=40)
    assert a.bits == 40
    assert a.placement != "auto"
    assert np.array_equal(a[:], values.astype(np.uint64))


def test_without_auto_nothing_changes():
    a = sa.array(np.arange(1000) % 1000)
    assert a.bits == 10 and a.decision is None
    assert sa.array(np.arange(1000), bits="min").bits == 10


def test_hints_alone_make_bits_auto_adaptive():
    a = sa.array(np.arange(100_000) % 1000, hints={"pattern": "random", "passes": 3})
    assert a.decision is not None
    assert a.bits in (10, 64)
    assert a.placement == "os_default"


@pytest.mark.parametrize(
    "hints, error, match",
    [
        ({"speed": 1}, ValueError, "unknown hint 'speed'"),
        ({"passes": 0}, ValueError, r"hints\['passes'\] must be a finite number > 0"),
        ({"passes": "many"}, TypeError, r"hints\['passes'\] must be a real number, got str"),
        ({"threads": -1}, ValueError, r"hints\['threads'\] must be 0..4096"),
        ({"threads": 1.5}, TypeError, r"hints\['threads'\] must be an int"),
        ({"read_only": "yes"}, TypeError, "read_only"),
        ({"pattern": "zigzag"}, ValueError, "unknown access pattern 'zigzag'"),
        ({"pattern": 3}, TypeError, r"hints\['pattern'\] must be a str"),
        ([("passes", 1)], TypeError, "hints must be a dict"),
    ],
)
def test_bad_hints_are_rejected(hints, error, match):
    with pytest.raises(error, match=match):
        sa.array(np.arange(10), placement="auto", hints=hints)


def test_bad_placement_still_names_the_choices():
    with pytest.raises(ValueError, match="unknown placement 'numa'"):
        sa.array(np.arange(10), placement="numa", hints={})
