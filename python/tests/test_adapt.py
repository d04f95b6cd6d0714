"""placement="auto" and bits="auto" with access hints: the adaptive layer chooses, the array says
what it chose and why, and the values equal those of an explicitly configured array."""

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

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


def test_nodes_or_huge_pages_with_auto_placement_are_refused_naming_the_option():
    # Placement auto chooses them: before, nodes=[7] (no such node) and huge_pages="2M" were dropped without a word.
    with pytest.raises(ValueError, match=r"options.nodes \(7\) applies only to an explicit placement: placement 'auto' chooses the nodes"):
        sa.array(np.arange(1 << 10), placement="auto", nodes=[7])
    for mode, name in (("2M", "2M"), ("off", "off"), (True, "on")):
        with pytest.raises(ValueError, match=f"options.huge_pages '{name}' applies only to an explicit placement"):
            sa.array(np.arange(1 << 10), placement="auto", huge_pages=mode)
    kept = sa.array(np.arange(1000), placement="interleaved", nodes=[0], huge_pages="off", hints={"passes": 2})
    assert kept.decision is not None
    assert list(kept.nodes) == [0] and kept.huge_pages == "off"


def _printable(raw: bytes) -> str:
    """raw as the core's message sanitizer (util::printable) shows it."""
    return "".join(chr(b) if 0x20 <= b < 0x7F else f"\\x{b:02x}" for b in raw)


_CHILD = """
import numpy as np, smartarrays as sa
try:
    sa.array(np.arange(10), placement="auto")
    print("accepted")
except BaseException as e:
    print(type(e).__name__)
    print(ascii(str(e)))
"""


@pytest.mark.parametrize(
    "content, why",
    [
        (b'{"format": ' + b"[" * 100000 + b"]" * 100000 + b"}", "arrays and objects nested deeper than 64 levels"),
        (b"[" * 200000, "arrays and objects nested deeper than 64 levels"),
        (b'{"format": 1e999}', "not JSON: number overflow parsing '1e999'"),
        (b'{"format": 1' + b"0" * 100000 + b"}", "not JSON: number overflow parsing '1" + "0" * 79 + "...'"),
        (b'{"format": "\xff"}', "not JSON: parse error at line 1, column 13: syntax error while parsing value - invalid string: "
         "ill-formed UTF-8 byte; last read: '\"\\xff'"),
    ],
)
def test_a_hostile_cached_profile_is_the_damaged_profile_value_error(cli, tmp_path, content, why):
    # Before: a deep value crashed the process, 1e999 was a RuntimeError carrying the whole number,
    # and the invalid byte a UnicodeDecodeError. The cache folder's name carries raw bytes too.
    clean = tmp_path / "clean"
    topology = subprocess.run([str(cli), "topology", "--json"], env={**os.environ, "XDG_CACHE_HOME": str(clean)},
                              capture_output=True, text=True, check=True)
    name = Path(json.loads(topology.stdout)["machine_profile"]["path"]).name
    cache = os.fsencode(tmp_path) + b"/cache\x1b[2J\n\xff"
    os.makedirs(cache + b"/smartarrays")
    profile = cache + b"/smartarrays/" + os.fsencode(name)
    with open(profile, "wb") as f:
        f.write(content)
    env = {os.fsencode(k): os.fsencode(v) for k, v in os.environ.items()}
    env[b"XDG_CACHE_HOME"] = cache
    run = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    kind, text = run.stdout.splitlines()
    message = ast.literal_eval(text)
    assert kind == "ValueError"
    assert message == (f"the cached machine profile is damaged: {_printable(profile)}: {why}; "
                       "run 'smartarrays calibrate' to measure this machine again and replace it")
