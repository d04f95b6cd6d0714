"""Hostile input through the package: vertex counts near 2**64 and files that declare more
than they hold (or other than they hold) give Python errors naming the problem, never a crash; a
save that fills the disk keeps the old file; Ctrl-C (SIGINT) interrupts a graph load, PageRank, a
graph save to a FIFO and a store stream whose peer stopped reading or sending, with KeyboardInterrupt; a worker thread that
cannot start is named by its index."""

from __future__ import annotations

import errno
import os
import pickle
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import smartarrays as sa
import smartarrays.tune as tune
from smartarrays.store import _rebuild_array, _rebuild_graph


def test_vertex_count_of_2_pow_64_minus_1_is_a_memory_error():
    with pytest.raises(MemoryError, match=r"18446744073709551615 \+ 1 does not fit in 64 bits"):
        sa.Graph.from_edges([0], [1], vertices=2**64 - 1)
    with pytest.raises(MemoryError, match="the memory limit is"):
        sa.Graph.from_edges([0], [1], vertices=2**56)
    with pytest.raises(MemoryError, match="the largest id"):
        sa.Graph.from_edges([2**64 - 1], [0])


def test_hostile_files_name_the_file_and_line(tmp_path: Path):
    ids = tmp_path / "ids.el"
    ids.write_text("0 18446744073709551614\n")
    with pytest.raises(MemoryError, match="ids.el:1:"):
        sa.Graph.load(ids)
    nodes = tmp_path / "nodes.el"
    nodes.write_text("# Nodes: 1000000000\n0 1\n")
    with pytest.raises(ValueError, match="nodes.el:1: 1000000000 vertices declared"):
        sa.Graph.load(nodes)
    size = tmp_path / "size.mtx"
    size.write_text("%%MatrixMarket matrix coordinate pattern general\n18446744073709551615 18446744073709551615 1\n1 1\n")
    with pytest.raises(MemoryError, match="size.mtx:2:"):
        sa.Graph.load(size)
    with pytest.raises(ValueError, match="longer than 1048576 bytes"):
        sa.Graph.load("/dev/zero", format="el")



def test_an_edge_list_cut_short_of_its_declared_edges_is_a_value_error(tmp_path: Path):
    cut = tmp_path / "cut.el"
    cut.write_text("# Directed graph\n# Nodes: 4 Edges: 3\n0 1\n1 2\n")
    with pytest.raises(ValueError, match=r"cut.el:2: the header declares 3 edges, but the file holds 2 edge lines \(was it cut short\?\)"):
        sa.Graph.load(cut)


SAVE_ON_A_FULL_DISK = """
import resource, signal, sys
import smartarrays as sa
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 16, resource.RLIM_INFINITY))
try:
    sa.save(sys.argv[1], sa.array(range(1 << 16)))
except OSError as e:
    print(type(e).__name__, e, flush=True)
"""


def test_a_save_that_fills_the_disk_keeps_the_old_store(tmp_path: Path):
    # A full disk, as the file size limit of a child process makes one.
    path = tmp_path / "kept.sa"
    sa.save(path, sa.array([1, 2, 3]))
    before = path.read_bytes()
    child = subprocess.run([sys.executable, "-c", SAVE_ON_A_FULL_DISK, str(path)], capture_output=True, text=True, timeout=120)
    assert child.returncode == 0, child.stderr
    assert child.stdout.startswith("OSError cannot write '" + str(path) + "'"), child.stdout
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.sa"], "no staged file remains"


CHILD = """
import sys
import smartarrays as sa
try:
    sa.Graph.load(sys.argv[1], format="el")
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(0)
print("loaded", flush=True)
"""


def open_writer(fifo: Path, child: subprocess.Popen[str]) -> int:
    """The FIFO's write end, opened once the child has opened it for reading (inside Graph.load)."""
    while child.poll() is None:
        try:
            return os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as e:
            if e.errno != errno.ENXIO:
                raise
            time.sleep(0.01)
    pytest.fail(f"the child exited before opening {fifo}: {child.communicate()}")


def test_ctrl_c_interrupts_a_graph_load(tmp_path: Path):
    # The child reads an edge list from a FIFO that never ends: without the interrupt check it would
    # read until the writer gives up (60 s), then print "loaded".
    fifo = tmp_path / "endless.el"
    os.mkfifo(fifo)
    # SIGINT back to its default in the child: Python raises KeyboardInterrupt only when it did not
    # start with SIGINT ignored, as a job started in the background by a non-interactive shell does.
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(fifo)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    writer = open_writer(fifo, child)
    try:
        os.set_blocking(writer, True)
        os.write(writer, b"0 1\n")
        child.send_signal(signal.SIGINT)
        deadline = time.monotonic() + 60
        while child.poll() is None and time.monotonic() < deadline:
            try:
                os.write(writer, b"1 2\n")
            except BrokenPipeError:
                break
            time.sleep(0.01)
    finally:
        os.close(writer)
    out, err = child.communicate(timeout=60)
    assert out.strip() == "interrupted", err


PAGERANK_CHILD = """
import sys, time
import smartarrays as sa
g = sa.Graph.rmat(14)
print("ready", flush=True)
start = time.monotonic()
try:
    g.pagerank(tol=0.0, max_iterations=10**9)
except KeyboardInterrupt:
    print(f"interrupted after {time.monotonic() - start:.3f} s", flush=True)
    sys.exit(0)
print("finished", flush=True)
"""


def interrupt_when_ready(code: str, *args: str, within: float, what: str) -> tuple[str, str]:
    """Runs code in a child Python (SIGINT at its default), sends SIGINT 0.5 s after it prints
    "ready", and returns its stdout and stderr; fails the test when it is still running within
    seconds later."""
    child = subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready", child.stderr.read() if child.stderr else ""
        time.sleep(0.5)
        child.send_signal(signal.SIGINT)
        return child.communicate(timeout=within)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{what} went on {within:g} s after SIGINT")
    finally:
        child.kill()


def test_ctrl_c_interrupts_pagerank():
    # tol=0 never converges, so the child's PageRank runs 10^9 iterations (hours); KeyboardInterrupt
    # after it returned would also print "interrupted", so the time the call took is what is checked.
    out, err = interrupt_when_ready(PAGERANK_CHILD, within=60, what="PageRank")
    assert out.startswith("interrupted after "), (out, err)
    assert float(out.split()[2]) < 30, out


FIFO_CHILD = """
import os, sys, time
import smartarrays as sa
g = sa.Graph.rmat(12)
reader = os.open(sys.argv[2], os.O_RDONLY | os.O_NONBLOCK)  # a reader that never reads
print("ready", flush=True)
start = time.monotonic()
try:
    g.save(sys.argv[2], format=sys.argv[1])
except KeyboardInterrupt:
    print(f"interrupted after {time.monotonic() - start:.3f} s", flush=True)
    sys.exit(0)
print("finished", flush=True)
"""


@pytest.mark.parametrize("format", ["el", "mtx", "sg"])
def test_ctrl_c_interrupts_a_graph_save_to_a_fifo_whose_reader_stopped(format: str, tmp_path: Path):
    # The save fills the pipe and waits in write(2): the signal cuts the write short, and the write
    # then asks the interrupt check instead of waiting again (before, it waited for the reader forever).
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    out, err = interrupt_when_ready(FIFO_CHILD, format, str(fifo), within=30, what=f"a .{format} save to a FIFO")
    assert out.startswith("interrupted after "), (out, err)


STREAM_CHILD = """
import socket, sys, time
import numpy as np
import smartarrays as sa
left, right = socket.socketpair()
a = sa.array(np.arange(1 << 22, dtype=np.uint64))  # 32 MiB: far more than the socket buffers
if sys.argv[1] == "recv":
    left.sendall(b"SASTREAM" + (1 << 20).to_bytes(8, "little") + bytes(1000))  # then nothing more
print("ready", flush=True)
start = time.monotonic()
try:
    sa.send(left, a) if sys.argv[1] == "send" else sa.recv(right)
except KeyboardInterrupt:
    print(f"interrupted after {time.monotonic() - start:.3f} s", flush=True)
    sys.exit(0)
print("finished", flush=True)
"""


@pytest.mark.parametrize("call", ["send", "recv"])
def test_ctrl_c_interrupts_a_stream_whose_peer_stopped(call: str):
    # Nobody reads the socket the child sends to (or sends on the one it receives from). Before, the
    # interrupt was looked at only when a system call failed with EINTR: a SIGINT that cut a writev
    # short went unnoticed and the next writev waited for the peer forever.
    out, err = interrupt_when_ready(STREAM_CHILD, call, within=20, what=f"sa.{call} waiting for its peer")
    assert out.startswith("interrupted after "), (out, err)
    assert float(out.split()[2]) < 5, out


WORKER_CHILD = """
import resource
import smartarrays as sa
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, resource.RLIM_INFINITY))
try:
    sa.Graph.rmat(10)
except OSError as e:
    print(e, flush=True)
"""


def test_a_worker_thread_that_cannot_start_is_named_by_its_index():
    # 4096 workers' stacks do not fit in 1 GiB of address space: thread creation fails part way, and
    # the message names that worker (it once always said 0).
    env = dict(os.environ, SMARTARRAYS_THREADS="4096")
    child = subprocess.run([sys.executable, "-c", WORKER_CHILD], capture_output=True, text=True, timeout=120, env=env)
    assert child.returncode == 0, child.stderr
    match = re.fullmatch(r"cannot start worker thread (\d+) of 4096: .+", child.stdout.strip())
    assert match, child.stdout
    assert 0 < int(match.group(1)) < 4096


def test_a_path_holding_a_nul_byte_is_refused_not_cut(tmp_path: Path):
    # The system would open the path before the NUL: "z\0.sa" would write "z", and "good.sa\0x.el"
    # would read good.sa as an edge list.
    sa.save(tmp_path / "good.sa", sa.array([7]))
    for call in (lambda: sa.save(str(tmp_path / "z") + "\0.sa", sa.array([1, 2, 3])),
                 lambda: sa.append(str(tmp_path / "z") + "\0.sa", {"b": sa.array([1])}),
                 lambda: sa.open(str(tmp_path / "good.sa") + "\0anything"),
                 lambda: sa.verify(str(tmp_path / "good.sa") + "\0anything"),
                 lambda: sa.Graph.load(str(tmp_path / "good.sa") + "\0x.el")):
        with pytest.raises(ValueError, match=r"\\x00.*': a path cannot hold a NUL byte"):
            call()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.sa"]


def test_a_fifo_in_place_of_a_store_is_refused_at_once(tmp_path: Path):
    # No writer ever opens it: an open that waited for one would hang here.
    fifo = tmp_path / "f.sa"
    os.mkfifo(fifo)
    for call in (lambda: sa.open(fifo), lambda: sa.open(fifo, mode="load"), lambda: sa.verify(fifo)):
        with pytest.raises(ValueError, match="' is not a regular file"):
            call()


FIFO_WAIT_CHILD = """
import sys
import smartarrays as sa
print("ready", flush=True)
try:
    sa.Graph.load(sys.argv[1], format="el")
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(0)
except Exception as e:
    print(type(e).__name__, e, flush=True)
    sys.exit(0)
print("loaded", flush=True)
"""


def test_ctrl_c_interrupts_a_graph_load_waiting_for_its_fifos_writer(tmp_path: Path):
    # Opening a FIFO waits for a writer that never comes; SIGINT makes the open return EINTR, which
    # must reach Python as KeyboardInterrupt (it once came out as an OSError).
    fifo = tmp_path / "nobody.el"
    os.mkfifo(fifo)
    out, err = interrupt_when_ready(FIFO_WAIT_CHILD, str(fifo), within=60, what="the load waiting for its writer")
    assert out.strip() == "interrupted", (out, err)


def test_raw_bytes_of_a_path_are_escaped_in_messages(tmp_path: Path):
    # Before, the graph reader's messages carried the path's escape sequence and newline raw.
    bad = tmp_path / "x\x1b[31mred\n.el"
    bad.write_text("0 q\n")
    with pytest.raises(ValueError) as parsed:
        sa.Graph.load(bad)
    with pytest.raises(OSError) as missing:
        sa.Graph.load(tmp_path / "missing\x1b[2J.el")
    assert "x\\x1b[31mred\\x0a.el" in str(parsed.value)
    assert "missing\\x1b[2J.el" in str(missing.value)
    for message in (str(parsed.value), str(missing.value)):
        assert all(" " <= c <= "~" for c in message), message


def test_bytes_and_non_utf8_paths_name_the_file_on_disk(tmp_path: Path):
    # Before, bytes paths and str names that are not UTF-8 (os.fsdecode's surrogate escapes) raised
    # nanobind's TypeError with a dump of the binding's signatures.
    name = os.fsdecode(b"caf\xe9.sa")  # Latin-1, not UTF-8: 'caf\udce9.sa'
    path = tmp_path / name
    sa.save(path, {"a": sa.array([1, 2, 3])})
    assert os.listdir(os.fsencode(tmp_path)) == [b"caf\xe9.sa"]
    sa.append(os.fsencode(path), {"g": sa.Graph.from_edges([0, 1], [1, 0])})
    with sa.open(os.fsencode(path)) as store:
        assert store["a"].to_numpy().tolist() == [1, 2, 3]
    assert sa.verify(path, deep=True).ok
    edges = tmp_path / os.fsdecode(b"\xff.el")
    edges.write_bytes(b"0 1\n1 2\n")
    assert sa.Graph.load(os.fsencode(edges)).edges == 2
    assert sa.Graph.load(edges).edges == 2
    with pytest.raises(OSError, match=r"missing\\xff\.sa"):
        sa.open(os.fsencode(tmp_path) + b"/missing\xff.sa")
    for call in (lambda: sa.open(3), lambda: sa.save(None, sa.array([1])), lambda: sa.Graph.load(["x.el"])):
        with pytest.raises(TypeError, match=r"^path must be a path \(str, bytes or os.PathLike\), got "):
            call()


def test_instances_no_constructor_filled_share_no_memory():
    # PlacedBuffer.__new__ alone exported a buffer of uninitialised memory; numpy read it (SIGSEGV).
    for cls in (sa.PlacedBuffer, sa.SmartArray):
        with pytest.raises(TypeError, match="has no memory to share"):
            memoryview(cls.__new__(cls))


def test_a_big_endian_index_array_gathers_like_numpy():
    a = sa.array(np.arange(10, dtype=np.uint64))
    for dtype in (">u8", ">i8", "<u4", ">u2"):
        assert a[np.array([1, 9], dtype=dtype)].tolist() == [1, 9], dtype


def test_wrong_types_and_names_get_their_own_message_not_a_signature_dump(tmp_path: Path):
    a = sa.array(np.arange(10, dtype=np.uint64))
    g = sa.Graph.from_edges([0, 1], [1, 0])
    for bad in (None, 0, 1.5):
        with pytest.raises(TypeError, match="^name must be a str, got "):
            g.array(bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="^out must be a writable, C-contiguous, 1-D numpy uint64 array$"):
        a.unpack(0, None)  # type: ignore[arg-type]
    name = os.fsdecode(b"\xff")  # what os.listdir gives for a name that is not UTF-8
    with pytest.raises(ValueError, match="is not valid UTF-8"):
        sa.save(tmp_path / "x.sa", {name: a})
    with open(tmp_path / "x.bin", "wb") as out, pytest.raises(ValueError, match="is not valid UTF-8"):
        sa.send(out, {name: a})


def test_a_tampered_pickle_is_a_value_error():
    words = pickle.PickleBuffer(np.zeros(2, dtype=np.uint64))
    with pytest.raises(ValueError, match="^malformed SmartArray pickle: an array's length and bits must be ints >= 0, got -1 and 7$"):
        _rebuild_array(-1, 7, words)
    with pytest.raises(ValueError, match="got 3 and None"):
        _rebuild_array(3, None, words)  # type: ignore[arg-type]
    arrays = [(1, 1, words), (0, 1, words), (1, 1, words), (0, 1, words)]
    with pytest.raises(ValueError, match="^malformed Graph pickle: directed must be a bool, got None$"):
        _rebuild_graph(None, arrays)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="^malformed Graph pickle: expected a .length, bits, words. triple per array"):
        _rebuild_graph(True, [(1, 1)])  # type: ignore[list-item]


def test_a_pickle_whose_length_or_bits_do_not_fit_the_core_is_a_value_error_naming_the_field():
    # Before, bits of 2^32 or more and a length of 2^64 or more reached the binding, whose TypeError
    # listed its overloads instead of naming what was wrong.
    words = pickle.PickleBuffer(np.zeros(2, dtype=np.uint64))
    with pytest.raises(ValueError, match=r"^malformed SmartArray pickle: an array's bits must be below 2\^32, got 4294967296$"):
        _rebuild_array(10, 2**32, words)
    with pytest.raises(ValueError, match=r"^malformed SmartArray pickle: an array's length must be below 2\^64, got 18446744073709551616$"):
        _rebuild_array(2**64, 7, words)
    with pytest.raises(ValueError, match=r"^malformed Graph pickle: an array's bits must be below 2\^32, got 4294967360$"):
        _rebuild_graph(True, [(1, 1, words), (0, 1, words), (1, 2**32 + 64, words), (0, 1, words)])
    with pytest.raises(ValueError, match="bits must be 1..64, got 4294967295"):  # fits: the core says what it means
        _rebuild_array(10, 2**32 - 1, words)


def test_an_undirected_graph_pickle_whose_reverse_is_not_its_one_csr_is_a_value_error():
    # An undirected graph is one CSR: its pickle holds begin and edge twice. Before, four arrays that
    # differed were taken as a graph whose reverse was its own (and the .sg and .el writers then wrote
    # the forward CSR alone); rbegin and redge that repeat begin and edge give the shared CSR again.
    from smartarrays.store import _packed

    g = sa.Graph.from_edges([0, 1, 2, 2], [1, 2, 0, 3], vertices=4, directed=True)
    arrays = [_packed(g.array(name), 4) for name in ("begin", "edge", "rbegin", "redge")]
    with pytest.raises(ValueError, match=r"^Graph pickle: an undirected graph's rbegin and redge slots must name begin's and edge's "
                                         r"blocks \(both: its one CSR\), but slots begin, edge, rbegin, redge name blocks 0, 1, 2, 3$"):
        _rebuild_graph(False, arrays)
    u = sa.Graph.from_edges([0, 1, 2], [1, 2, 0], directed=False)
    back = pickle.loads(pickle.dumps(u, protocol=4))
    assert [a.shared_with for a in back.memory().arrays] == [a.shared_with for a in u.memory().arrays]
    np.testing.assert_array_equal(back.pagerank(), u.pagerank())


def test_numbers_beyond_a_float_are_value_errors():
    g = sa.Graph.from_edges([0, 1], [1, 0])
    calls = {
        "hints['passes']": lambda: sa.array([1, 2], hints={"passes": 2**1100}),
        "average_degree": lambda: sa.Graph.uniform(10, average_degree=2**1100),
        "tol": lambda: g.pagerank(tol=2**1100),
        "timeout": lambda: tune.run("true", timeout=2**1100),
    }
    for name, call in calls.items():
        with pytest.raises(ValueError, match=rf"^{re.escape(name)} must be a finite number, got an int of 1101 bits$"):
            call()


def test_tune_flags_take_only_booleans_and_thread_counts_their_range():
    grid = {"allocators": [], "policies": [], "pinnings": [], "thp": [], "repetitions": 1, "warmup": 0}
    for flag_name in ("cpu_time", "maximize"):
        with pytest.raises(TypeError, match=f"^{flag_name} must be True or False, got str 'no'$"):
            tune.grid("true", **grid, **{flag_name: "no"})
    for threads in (5000, 2**70):
        with pytest.raises(ValueError, match=f"^threads: expected thread counts from 1 to 4096, got {threads}$"):
            tune.grid("true", **grid, threads=[threads])


def test_cpu_and_node_lists_name_the_bad_item():
    with pytest.raises(ValueError, match="'-1' in cpu list '-1' is not a number or a range N-M"):
        tune.run("true", cpus=[-1])
    with pytest.raises(ValueError, match="memory policy 'bind=0,-3': '-3' in node list '0,-3' is not a number"):
        tune.run("true", policy="bind=0,-3")

