"""Errors as Python users expect them, carrying the native message: ValueError, TypeError,
IndexError, MemoryError, OSError; a closed array raises and never crashes."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import smartarrays as sa


def test_value_too_large_for_bits():
    with pytest.raises(ValueError, match="value 70000 at index 2 needs 17 bits, array has 16"):
        sa.array([1, 2, 70000], bits=16)
    with pytest.raises(ValueError, match="needs 33 bits, array has 32"):
        sa.array(np.array([2**32], dtype=np.uint64), bits=32)
    with pytest.raises(ValueError, match="needs 9 bits, array has 8"):
        sa.array(np.array([256], dtype=np.uint32), bits=8)


def test_large_arrays_name_the_first_value_too_wide():
    # Encoded in parallel batches, yet the error names the first value too wide, as a serial scan would.
    for dtype in (np.uint64, np.uint32):
        values = np.full(300_000, 7, dtype=dtype)
        values[260_000] = 90_000
        values[1234] = 70_000
        with pytest.raises(ValueError, match="value 70000 at index 1234 needs 17 bits, array has 16"):
            sa.array(values, bits=16)


def test_bad_bits():
    for bits in (0, -1):
        with pytest.raises(ValueError, match="bits must be 'auto' or an int 1..64"):
            sa.array([1], bits=bits)
    with pytest.raises(ValueError, match="bits 65 out of range 1..64"):
        sa.array([1], bits=65)
    with pytest.raises(ValueError, match="'fast'"):
        sa.array([1], bits="fast")
    with pytest.raises(TypeError):
        sa.array([1], bits=3.0)


def test_bad_values():
    with pytest.raises(ValueError, match="value -5 at index 1 is negative"):
        sa.array([1, -5, 3])
    with pytest.raises(ValueError, match="value 18446744073709551616 at index 1 does not fit in 64 bits"):
        sa.array([1, 2**64])
    with pytest.raises(ValueError, match="value -1 at index 0 is negative"):
        sa.array([-1, 2**63])
    with pytest.raises(TypeError, match="integers, got float at index 0"):
        sa.array([1.5, 2.0])
    with pytest.raises(TypeError, match="integers, got dtype float64"):
        sa.array(np.array([1.0]))
    with pytest.raises(TypeError, match="integers"):
        sa.array(["a"])
    with pytest.raises(ValueError, match="one-dimensional"):
        sa.array(np.zeros((2, 2), dtype=np.uint64))
    with pytest.raises(ValueError, match="one-dimensional"):
        sa.array(5)


def test_bad_placement_and_nodes():
    with pytest.raises(ValueError, match="unknown placement 'numa'.*os_default, single_node"):
        sa.array([1], placement="numa")
    with pytest.raises(ValueError, match="node 7 does not exist"):
        sa.array([1], placement="single_node", nodes=7)
    with pytest.raises(ValueError, match="node 7 does not exist"):
        sa.array([1], placement="interleaved", nodes=[0, 7])
    with pytest.raises(ValueError, match="single_node placement takes one node, got 2"):
        sa.array([1], placement="single_node", nodes=[0, 0])
    with pytest.raises(ValueError, match="not os_default"):
        sa.array([1], nodes=[0])
    with pytest.raises(ValueError, match="listed twice"):
        sa.array([1], placement="replicated", nodes=[0, 0])


def test_index_errors():
    a = sa.array(np.arange(10, dtype=np.uint64))
    for i in (10, -11, 2**40, -(2**40)):
        with pytest.raises(IndexError, match=f"index {i} out of range for length 10"):
            a[i]
    with pytest.raises(IndexError):
        a[2**70]
    with pytest.raises(IndexError, match="index 10 out of range for length 10"):
        a[[1, 10]]
    with pytest.raises(IndexError, match="index -11 out of range for length 10"):
        a[np.array([-11])]
    with pytest.raises(IndexError, match="range of 5 values at index 8 out of range for length 10"):
        a.unpack(8, np.zeros(5, dtype=np.uint64))
    with pytest.raises(IndexError):
        a.unpack(-1, np.zeros(1, dtype=np.uint64))
    with pytest.raises(IndexError, match="replica 1 out of range"):
        a.words(1)


def test_type_errors():
    a = sa.array(np.arange(10, dtype=np.uint64))
    with pytest.raises(TypeError, match="indices"):
        a[1.5]
    with pytest.raises(TypeError, match="indices"):
        a[np.array([True, False])]
    with pytest.raises(TypeError, match="indices"):
        a[np.zeros((2, 2), dtype=np.int64)]
    for out in (np.zeros(3, dtype=np.int64), np.zeros(6, dtype=np.uint64)[::2], np.zeros((2, 2), dtype=np.uint64)):
        with pytest.raises(TypeError, match="out must be"):
            a.unpack(0, out)
    read_only = np.zeros(3, dtype=np.uint64)
    read_only.flags.writeable = False
    with pytest.raises(TypeError, match="out must be"):
        a.unpack(0, read_only)
    with pytest.raises(ValueError, match="at least 1"):
        a.iter_chunks(0)
    with pytest.raises(TypeError):
        sa.SmartArray()


def test_closed_array_raises_everywhere():
    a = sa.array(np.arange(100, dtype=np.uint64), bits=64)
    chunks = a.iter_chunks(10)
    next(chunks)
    a.close()
    a.close()
    assert a.closed
    calls = [
        lambda: len(a),
        lambda: a[0],
        lambda: a[1:3],
        lambda: a.sum(),
        lambda: a.to_numpy(),
        lambda: a.unpack(0, np.zeros(1, dtype=np.uint64)),
        lambda: a.iter_chunks(),
        lambda: next(chunks),
        lambda: a.bits,
        lambda: a.placement,
        lambda: a.nbytes,
        lambda: a.pages_per_node(),
        lambda: a.words(),
        lambda: np.asarray(a),
        lambda: a.__dlpack__(),
        lambda: a.__enter__(),
    ]
    for call in calls:
        with pytest.raises(ValueError, match="closed SmartArray"):
            call()


def run_python(code: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Runs code in a fresh interpreter (limits and environment stay out of the test process)."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env)


def test_memory_error_when_the_kernel_refuses_memory():
    result = run_python(
        """
        import resource
        import numpy as np
        import smartarrays as sa
        sa.array([1, 2, 3])  # starts the worker pool before memory is limited
        values = np.ones(1 << 24, dtype=np.uint64)
        vm = next(int(l.split()[1]) * 1024 for l in open("/proc/self/status") if l.startswith("VmSize"))
        resource.setrlimit(resource.RLIMIT_AS, (vm + (32 << 20), resource.RLIM_INFINITY))
        try:
            sa.array(values, bits=64)
        except MemoryError as e:
            print("MemoryError:", e)
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("MemoryError:") and "Cannot allocate memory" in result.stdout


def test_flags_must_be_bools():
    # bool("no") is True: a string must not switch huge pages on; it is a mode name or an error.
    for value in ("no", "false"):
        with pytest.raises(ValueError, match=f"unknown huge_pages mode '{value}'"):
            sa.array([1], huge_pages=value)
        with pytest.raises(ValueError, match=f"unknown huge_pages mode '{value}'"):
            sa.Graph.from_edges([0], [1], huge_pages=value)
    for value in (0, 1, None):
        with pytest.raises(TypeError, match="huge_pages must be 'auto', 'on', 'off', '2M', '1G' or a bool"):
            sa.array([1], huge_pages=value)
        with pytest.raises(TypeError, match="huge_pages must be 'auto', 'on', 'off', '2M', '1G' or a bool"):
            sa.Graph.from_edges([0], [1], huge_pages=value)
    with pytest.raises(TypeError, match="dedup must be True or False"):
        sa.Graph.from_edges([0], [1], dedup="yes")
    with pytest.raises(TypeError, match="directed must be True or False"):
        sa.Graph.from_edges([0], [1], directed="no")
    assert sa.array([1], huge_pages=np.bool_(False))[0] == 1


def test_nodes_must_be_integers_in_range():
    for nodes in ([0.5], 0.5, ["0"], "0", [True], [np.float64(0)]):
        with pytest.raises(TypeError, match="nodes must be integers"):
            sa.array([1], placement="interleaved", nodes=nodes)
    for nodes in ([-1], 2**40, [np.int64(4096)]):
        with pytest.raises(ValueError, match="out of range 0..4095"):
            sa.array([1], placement="interleaved", nodes=nodes)
    assert len(sa.array([1], placement="interleaved", nodes=[np.int32(0)])) == 1


def test_bits_out_of_range_is_a_value_error_naming_bits():
    for bits in (2**40, 2**70, 65, 0, -1, np.int64(2**40)):
        with pytest.raises(ValueError, match=r"bits (must be 'auto' or an int 1\.\.64, got|-?\d+ out of range 1\.\.64)"):
            sa.array([1], bits=bits)


def test_tuple_index_is_not_an_index_array():
    a = sa.array(np.arange(10, dtype=np.uint64))
    with pytest.raises(IndexError, match="1-dimensional, but 2 were indexed"):
        a[1, 2]
    with pytest.raises(IndexError, match="1-dimensional, but 0 were indexed"):
        a[()]
    assert a[(3,)] == 3
    assert list(a[(slice(1, 3),)]) == [1, 2]


def test_pagerank_options_are_the_librarys():
    g = sa.Graph.from_edges([0, 1, 2], [1, 2, 0])
    cases = [
        (dict(tol=float("nan")), "pagerank: tolerance must be a finite number >= 0, got nan"),
        (dict(tol=-1.0), "pagerank: tolerance must be a finite number >= 0, got -1"),
        (dict(tol=float("inf")), "pagerank: tolerance must be a finite number >= 0, got inf"),
        (dict(damping=2), r"pagerank: damping must be a number in \(0, 1\], got 2"),
        (dict(damping=0.0), "pagerank: damping must be"),
        (dict(max_iterations=0), "pagerank: max_iterations must be at least 1, got 0"),
        (dict(max_iterations=-1), "max_iterations must be from 1 to"),
        (dict(max_iterations=2**40), "max_iterations must be from 1 to"),
    ]
    for kwargs, message in cases:
        with pytest.raises(ValueError, match=message):
            g.pagerank(**kwargs)
    for kwargs in (dict(tol="0.1"), dict(damping=None), dict(max_iterations=1.5), dict(max_iterations=True)):
        with pytest.raises(TypeError):
            g.pagerank(**kwargs)
    ranks = g.pagerank(tol=1e-320, max_iterations=3)
    assert ranks.shape == (3,)


def test_methods_that_take_a_value_name_a_bad_one():
    """fill, a[i] = v, crc32c, huge_page_bytes, words and iter_chunks check their numbers as every
    entry point does: a ValueError naming a negative or too large int, a TypeError naming anything
    else, never nanobind's bare "incompatible function arguments"."""
    a = sa.array(np.arange(10, dtype=np.uint64), bits=16)
    calls = {
        "fill: value": a.fill,
        "value": lambda v: a.__setitem__(0, v),
        "replica": a.crc32c,
        "iter_chunks: size": a.iter_chunks,
    }
    for name, call in calls.items():
        for bad in (-1, 2**64, 2**70, np.int64(-5)):
            with pytest.raises(ValueError, match=rf"^{name} must be from 0 to 2\^64 - 1, got {bad}$"):
                call(bad)
        for bad, shown in ((1.5, "float 1.5"), ("7", "str '7'"), (None, "NoneType None"), (True, "bool True")):
            with pytest.raises(TypeError, match=rf"^{name} must be an integer, got {shown}$"):
                call(bad)
    for call in (a.huge_page_bytes, a.words):
        with pytest.raises(ValueError, match=r"^replica must be from 0 to 2\^64 - 1, got -1$"):
            call(-1)
        with pytest.raises(IndexError, match="replica 2 out of range"):
            call(2)
    np.testing.assert_array_equal(np.asarray(a), np.arange(10))  # nothing was written
    a.fill(np.uint64(3))
    a[np.int64(-1)] = np.uint16(9)
    assert a[0] == 3 and a[9] == 9 and len(next(iter(a.iter_chunks(np.int32(4))))) == 4
    with pytest.raises(ValueError, match="needs 17 bits, array has 16"):
        a.fill(2**16)


def test_graph_generators_name_a_bad_number():
    """Graph.rmat, Graph.uniform and from_edges(vertices=) check their numbers' types and the core
    parameters' ranges as every entry point does (never nanobind's "incompatible function
    arguments"); the core then checks what the numbers mean, with the command's words."""
    calls = [
        ("scale", lambda v: sa.Graph.rmat(v), 32),
        ("edge_factor", lambda v: sa.Graph.rmat(4, edge_factor=v), 64),
        ("seed", lambda v: sa.Graph.rmat(4, seed=v), 64),
        ("vertices", lambda v: sa.Graph.uniform(v), 64),
        ("seed", lambda v: sa.Graph.uniform(8, seed=v), 64),
        ("vertices", lambda v: sa.Graph.from_edges([0], [1], vertices=v), 64),  # None: the default
    ]
    for name, call, bits in calls:
        for bad in (-1, 2**bits, np.int64(-3)):
            with pytest.raises(ValueError, match=rf"^{name} must be from 0 to 2\^{bits} - 1, got {bad}$"):
                call(bad)
        for bad, shown in ((1.5, "float 1.5"), ("7", "str '7'"), (True, "bool True")):
            with pytest.raises(TypeError, match=rf"^{name} must be an integer, got {shown}$"):
                call(bad)
    for bad in ("16", None, True):
        with pytest.raises(TypeError, match="^average_degree must be a real number, got "):
            sa.Graph.uniform(8, bad)
    with pytest.raises(ValueError, match="R-MAT scale 0 is outside 1..40"):
        sa.Graph.rmat(0)
    with pytest.raises(ValueError, match="R-MAT scale 41 is outside 1..40"):
        sa.Graph.rmat(np.int32(41))
    with pytest.raises(ValueError, match="^R-MAT edge factor must be >= 1, got 0$"):
        sa.Graph.rmat(4, edge_factor=0)
    with pytest.raises(ValueError, match="^average degree nan is not >= 0$"):
        sa.Graph.uniform(8, float("nan"))
    with pytest.raises(ValueError, match="^average degree -1e-300 is not >= 0$"):
        sa.Graph.uniform(8, -1e-300)
    assert sa.Graph.rmat(np.uint8(3), edge_factor=np.int64(2), seed=2**64 - 1).edges == 16
    assert sa.Graph.uniform(np.int16(8), np.float32(2.0)).edges == 16
    # Beyond the memory limit: refused before any edge is made (the edge list was filled first).
    with pytest.raises(MemoryError, match="^uniform graph: a graph of 68719476736 vertices and 549755813888 edges needs at least "):
        sa.Graph.uniform(2**36, 8)
    with pytest.raises(MemoryError, match="^R-MAT graph: a graph of 68719476736 vertices and 549755813888 edges needs at least "):
        sa.Graph.rmat(36, edge_factor=8)


def test_assignment_and_copies_name_a_bad_index_or_source():
    a = sa.array(np.arange(10, dtype=np.uint64))
    for key in (10, -11, 2**40):
        with pytest.raises(IndexError, match=f"index {key} out of range for length 10"):
            a[key] = 1
    with pytest.raises(IndexError):
        a[2**70] = 1
    for key in (slice(0, 2), 1.5, "0", [1, 2]):
        with pytest.raises(TypeError, match="SmartArray indices must be integers .* got "):
            a[key] = 1
    with pytest.raises(IndexError):
        a.unpack(2**70, np.zeros(1, dtype=np.uint64))
    with pytest.raises(TypeError):
        a.unpack(1.5, np.zeros(1, dtype=np.uint64))
    for source, shown in ((np.arange(10), "ndarray"), (None, "NoneType"), (list(range(10)), "list")):
        with pytest.raises(TypeError, match=f"^copy_from: source must be a SmartArray, got {shown}$"):
            a.copy_from(source)
    with pytest.raises(TypeError, match="^aggregate: a2 must be a SmartArray, got ndarray$"):
        sa.aggregate(a, np.arange(10))
    with pytest.raises(TypeError, match="^LiveArray: array must be a SmartArray, got list$"):
        sa.LiveArray([1, 2])
    np.testing.assert_array_equal(np.asarray(a), np.arange(10))


def test_word_arguments_of_another_type_name_themselves(tmp_path):
    """Arguments the core looks up by name (placement, variant, format, ...) are a TypeError naming
    the argument when they are not a str, never nanobind's "incompatible function arguments"."""
    path = tmp_path / "a.sa"
    sa.save(path, sa.array([1, 2]))
    g = sa.Graph.rmat(3)
    calls = {
        "placement": [
            lambda v: sa.array([1], placement=v),
            lambda v: sa.allocate_buffer(3, placement=v),
            lambda v: sa.LiveArray(sa.array([1])).relayout(placement=v),
            lambda v: sa.Graph.rmat(3, placement=v),
            lambda v: sa.group_by([1], [1], placement=v),
            lambda v: sa.hash_join([1], [1], placement=v),
            lambda v: sa.hash_join_count([1], [1], placement=v),
            lambda v: sa.Index([1], placement=v),
            lambda v: sa.HashMap([1], [1], placement=v),
            lambda v: sa.HashSet([1], placement=v),
            lambda v: sa.open(path, mode="load", placement=v),
            lambda v: sa.Receiver(placement=v),
        ],
        "write_mode": [lambda v: sa.array([1], write_mode=v)],
        "variant": [lambda v: sa.Graph.rmat(3, variant=v)],
        "format": [lambda v: sa.Graph.load(path, format=v)],
        "dangling": [lambda v: g.pagerank(dangling=v)],
        "scores": [lambda v: g.pagerank(scores=v)],
    }
    for name, functions in calls.items():
        for call in functions:
            for bad, shown in ((3, "int 3"), (b"os_default", "bytes b'os_default'"), (None, "NoneType None")):
                if name == "format" and bad is None:
                    continue  # None: the format from the file's name
                with pytest.raises(TypeError, match=rf"^{name} must be a str, got {shown}$"):
                    call(bad)
    with pytest.raises(TypeError, match=r"^fd must be a file descriptor \(an int\) or have fileno\(\), got str$"):
        sa.recv("3")


def test_arguments_the_binding_once_refused_with_its_signature_dump_are_named():
    # Each of these gave nanobind's "incompatible function arguments" dump, a bare error that named no
    # argument, or (allocator="", cpus=[1.5]) silently meant something else.
    from smartarrays import tune

    a = sa.array([1, 2, 3])
    for key in (None, np.newaxis):
        with pytest.raises(IndexError, match=r"None \(numpy.newaxis\) adds a dimension"):
            a[key]
    with pytest.raises(TypeError, match="^spec must be a str, got NoneType None$"):
        sa.set_fake_topology(None)  # type: ignore[arg-type]
    index = sa.Index([5, 3])
    assert index.row(np.int64(0)) == 1
    with pytest.raises(ValueError, match="^position must be from 0 to 2"):
        index.row(-1)
    for bad in (1.5, None, "0"):
        with pytest.raises(TypeError, match="^position must be an integer"):
            index.row(bad)  # type: ignore[arg-type]
    # Collection columns are named in their errors, and what is no array is a TypeError.
    with pytest.raises(TypeError, match="^keys: values must be an array of integers, got NoneType$"):
        sa.group_by(None, None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="^keys: values must be an array of integers, got generator$"):
        sa.Index(k for k in range(3))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="^left: values must be integers"):
        sa.hash_join(["a"], [1])
    with pytest.raises(ValueError, match="^probe: value -1 at index 0 is negative"):
        sa.HashSet([1]).contains([-1])
    with pytest.raises(TypeError, match="^values must be an array of integers, got dict$"):
        sa.array({1: 2})  # type: ignore[arg-type]
    # The tuning calls' knobs.
    with pytest.raises(TypeError, match="^allocator must be a str, got int 3$"):
        tune.run("true", allocator=3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="allocator: unknown allocator ''"):
        tune.run("true", allocator="")
    with pytest.raises(TypeError, match="^policy must be a str, got int 3$"):
        tune.run("true", policy=3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="^cpus must be a CPU list str or CPU numbers, got float 1.5$"):
        tune.run("true", cpus=[1.5])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="^thp: expected True/False or 'on'/'off', got int 1$"):
        tune.run("true", thp=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^command: argument 1 is not valid UTF-8 \(b'\\xff'\)"):
        tune.run([b"/bin/echo", b"\xff"])
    assert tune.run("true", threads=np.int64(2)).exit_code == 0
    # A numpy integer is a number of passes as a Python int is.
    assert len(sa.array(np.arange(10), hints={"passes": np.int64(2)})) == 10
