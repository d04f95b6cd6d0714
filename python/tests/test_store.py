"""The compact form from Python: save/append/open (mapped and loaded), verify, send/recv over a
socketpair and a pipe with hostile streams (a graph whose ids lie past its vertex count too, and a
preamble announcing gigabytes), over sockets with a timeout, pickling with protocol-5 out-of-band
buffers (a pickle announcing more than it holds; buffers written after unpickling), the arguments' errors, and arrays and graphs
crossing multiprocessing."""

from __future__ import annotations

import multiprocessing
import os
import pickle
import socket
import struct
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import smartarrays as sa


def _values(n: int, bits: int) -> np.ndarray:
    rng = np.random.default_rng(7)
    return rng.integers(0, 2**bits, size=n, dtype=np.uint64) if bits < 64 else rng.integers(0, 2**63, size=n, dtype=np.uint64)


def test_save_and_open_mapped_and_loaded(tmp_path: Path, test_data: Path) -> None:
    values = _values(10_001, 10)
    a = sa.array(values, bits=10)
    g = sa.Graph.load(test_data / "graph" / "tiny.el")
    path = tmp_path / "s.sa"
    sa.save(path, {"values": a, "tiny": g})
    with sa.open(path) as store:
        assert list(store) == ["values", "tiny"]
        assert store.mode == "map"
        mapped = store["values"]
        assert isinstance(mapped, sa.SmartArray)
        assert mapped.bits == 10
        np.testing.assert_array_equal(np.asarray(mapped), values)
        assert mapped.sum() == int(values.sum())
        np.testing.assert_array_equal(store["tiny"].pagerank(), g.pagerank())
        np.testing.assert_array_equal(store["tiny"].degree_centrality(), g.degree_centrality())
        with pytest.raises(KeyError):
            store["missing"]
    # Objects outlive the store that handed them out.
    np.testing.assert_array_equal(mapped[:5], values[:5])
    with pytest.raises(ValueError, match="closed Store"):
        len(store)
    loaded = sa.open(path, mode="load", placement="interleaved")
    assert loaded["values"].placement == "interleaved"
    np.testing.assert_array_equal(np.asarray(loaded["values"]), values)
    assert sa.verify(path, deep=True).ok


def test_single_objects_append_and_errors(tmp_path: Path) -> None:
    path = tmp_path / "one.sa"
    sa.save(path, sa.array([1, 2, 3]))
    sa.append(path, {"more": sa.array([4, 5], bits=3)})
    store = sa.open(path)
    assert list(store) == ["array", "more"]
    assert store["more"].bits == 3
    with pytest.raises(ValueError, match="already exists"):
        sa.append(path, {"more": sa.array([1])})
    for control in ("a\nb", "\x1b[2J", "del\x7f"):
        with pytest.raises(ValueError, match=r"must have 1\.\.1024 bytes and no control byte \(below 0x20, or 0x7f\)"):
            sa.append(path, {control: sa.array([1])})
    sa.append(path, {"größe": sa.array([6])})
    assert list(sa.open(path)) == ["array", "more", "größe"]
    with pytest.raises(TypeError, match="not a SmartArray or a Graph"):
        sa.save(path, {"x": [1, 2]})
    with pytest.raises(TypeError, match="expected a SmartArray"):
        sa.save(path, 5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="mode must be"):
        sa.open(path, mode="mmap")  # type: ignore[arg-type]
    for placed in (dict(placement="interleaved"), dict(huge_pages="on"), dict(placement="single_node", nodes=0)):
        with pytest.raises(ValueError, match="placement, nodes and huge pages apply to load mode; a mapped store stays in the file's pages"):
            sa.open(path, **placed)
    with pytest.raises(OSError):
        sa.open(tmp_path / "missing.sa")
    not_store = tmp_path / "x.sa"
    not_store.write_bytes(b"hello" * 20)
    with pytest.raises(ValueError, match="store"):
        sa.open(not_store)


def test_graph_load_reads_the_compact_format(tmp_path: Path, test_data: Path) -> None:
    g = sa.Graph.load(test_data / "graph" / "tiny.el", "U")
    path = tmp_path / "g.sa"
    sa.save(path, g)
    again = sa.Graph.load(path, "U")
    np.testing.assert_array_equal(again.pagerank(), g.pagerank())


def test_verify_finds_a_corrupt_block(tmp_path: Path) -> None:
    path = tmp_path / "c.sa"
    sa.save(path, {"a": sa.array(_values(1000, 12), bits=12)})
    data = bytearray(path.read_bytes())
    data[4096 + 3] ^= 0x10
    path.write_bytes(bytes(data))
    report = sa.verify(path)
    assert not report.ok
    assert "checksum" in report.problems[0]
    with pytest.raises(ValueError, match="corrupt"):
        sa.open(path, mode="load")


def _send_in_thread(fd: int, objects: object) -> threading.Thread:
    thread = threading.Thread(target=sa.send, args=(fd, objects))
    thread.start()
    return thread


def test_send_and_recv_over_a_socketpair_and_a_pipe(test_data: Path) -> None:
    ten = sa.array(_values(1 << 17, 10), bits=10)
    wide = sa.array(_values(1000, 64), bits=64)
    g = sa.Graph.rmat(8)
    left, right = socket.socketpair()
    with left, right:
        thread = _send_in_thread(left.fileno(), {"ten": ten, "wide": wide, "g": g})
        got = sa.recv(right)
        thread.join()
    assert got.mode == "recv"
    np.testing.assert_array_equal(np.asarray(got["ten"]), np.asarray(ten))
    np.testing.assert_array_equal(np.asarray(got["wide"]), np.asarray(wide))
    np.testing.assert_array_equal(got["g"].pagerank(), g.pagerank())
    read, write = os.pipe()
    try:
        thread = _send_in_thread(write, ten)
        got = sa.recv(read, placement="interleaved")
        thread.join()
    finally:
        os.close(read)
        os.close(write)
    np.testing.assert_array_equal(np.asarray(got["array"]), np.asarray(ten))


def test_a_receiver_reuses_its_region_once_no_object_of_the_last_store_is_in_use() -> None:
    values = _values(50_000, 13)
    a = sa.array(values, bits=13)
    receiver = sa.Receiver(max_bytes=1 << 24)
    assert receiver.reserved_bytes == 0
    left, right = socket.socketpair()
    with left, right:

        def receive() -> sa.Store:
            thread = _send_in_thread(left.fileno(), a)
            got = receiver.recv(right)
            thread.join()
            return got

        for _ in range(3):
            np.testing.assert_array_equal(np.asarray(receive()["array"]), values)
        assert receiver.reuses == 2
        assert receiver.reserved_bytes >= 50_000 * 13 // 8
        # An array taken from a store keeps its region after the store is gone: the next stream
        # must go elsewhere and leave the array's values alone.
        kept = receive()["array"]
        other = sa.array(values[::-1].copy(), bits=13)
        thread = _send_in_thread(left.fileno(), other)
        second = receiver.recv(right)
        thread.join()
        assert receiver.reuses == 3
        np.testing.assert_array_equal(np.asarray(kept), values)
        np.testing.assert_array_equal(np.asarray(second["array"]), values[::-1])
    with pytest.raises(ValueError, match="max_bytes"):
        sa.Receiver(max_bytes=-1)
    with pytest.raises(ValueError, match="needs copies"):
        sa.Receiver(placement="replicated")
    with pytest.raises(ValueError, match=r"^fd must be from 0 to 2\^31 - 1, got -1$"):
        receiver.recv(-1)


def test_hostile_and_truncated_streams() -> None:
    left, right = socket.socketpair()
    with left, right:
        left.sendall(b"NOTASTREAM" + bytes(6))
        with pytest.raises(ValueError, match="not a store stream"):
            sa.recv(right)
    left, right = socket.socketpair()
    with left, right:
        left.sendall(b"SASTREAM" + (1 << 62).to_bytes(8, "little"))
        with pytest.raises(ValueError, match="accepted"):
            sa.recv(right)
    left, right = socket.socketpair()
    with right:
        with left:
            left.sendall(b"SASTREAM" + (8192).to_bytes(8, "little") + bytes(100))
        with pytest.raises(OSError, match="closed the stream after 116 of 8208"):
            sa.recv(right)
    with pytest.raises(ValueError, match="max_bytes"):
        sa.recv(0, max_bytes=-1)
    with pytest.raises(ValueError, match=r"^fd must be from 0 to 2\^31 - 1, got -3$"):
        sa.send(-3, sa.array([1]))


def _peak_rss(reset: bool = False) -> int:
    """The process's peak resident bytes (VmHWM), first reset to the current ones when reset."""
    if reset:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) << 10 for line in status if line.startswith("VmHWM:"))


def test_a_preamble_announcing_gigabytes_costs_no_memory_until_they_come() -> None:
    # Before, the receiver mapped and touched the announced 2 GiB (7-12 s) before reading a byte.
    left, right = socket.socketpair()
    with right:
        with left:
            left.sendall(b"SASTREAM" + (2 << 30).to_bytes(8, "little"))
        before = _peak_rss(reset=True)
        start = time.monotonic()
        with pytest.raises(OSError, match="closed the stream after 16 of 2147483664 bytes"):
            sa.recv(right)
        assert time.monotonic() - start < 2
        assert _peak_rss() - before < 64 << 20


def _crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


_OUT_OF_BOUNDS = r"CSR bounds: neighbour id edge\[0\] = 4294967295 is not below the vertex count 3"


def _store_with_ids_out_of_bounds(path: Path) -> bytes:
    """A store whose 3-vertex graph "g" has the edge ids 2^32 - 1, 2^31 and 3e9, its checksums right."""
    sa.save(path, {"g": sa.Graph.from_edges([0, 1, 2], [1, 2, 0], variant="U")})
    data = bytearray(path.read_bytes())
    directory, directory_bytes = struct.unpack_from("<QQ", data, len(data) - 24)
    bad = sa.array([2**32 - 1, 2**31, 3 * 10**9], bits=32).words(0).tobytes() + bytes(8)
    for block in (1, 3):  # edge and redge
        descriptor = directory + 16 + 40 * block
        offset, length = struct.unpack_from("<QQ", data, descriptor + 16)
        data[offset : offset + length] = bad
        struct.pack_into("<I", data, descriptor + 32, _crc32c(bad))
    trailer = len(data) - 32
    struct.pack_into("<I", data, trailer + 24, _crc32c(bytes(data[directory : directory + directory_bytes])))
    struct.pack_into("<I", data, trailer + 28, _crc32c(bytes(data[trailer : trailer + 28])))
    path.write_bytes(bytes(data))
    return bytes(data)


def test_a_graph_with_ids_past_its_vertex_count_is_refused_from_outside_bytes(tmp_path: Path) -> None:
    # Before, recv, map and load mode, unpickling and Dask frames accepted it, and pagerank() then died
    # with SIGSEGV.
    path = tmp_path / "bad.sa"
    data = _store_with_ids_out_of_bounds(path)
    left, right = socket.socketpair()
    with left, right:
        left.sendall(b"SASTREAM" + len(data).to_bytes(8, "little") + data)
        with pytest.raises(ValueError, match=r"^store stream: graph 'g' \(entry at offset \d+\): " + _OUT_OF_BOUNDS + "$"):
            sa.recv(right)
    for mode in ("load", "map"):
        with pytest.raises(ValueError, match=r"^store: graph 'g' .*" + _OUT_OF_BOUNDS):
            sa.open(path, mode=mode)
    with pytest.raises(ValueError, match=_OUT_OF_BOUNDS):
        sa.Graph.load(path)
    assert not sa.verify(path, deep=True).ok
    begin = sa.array([0, 1, 2, 3], bits=64).words(0)
    edge = sa.array([2**32 - 1, 2**31, 3 * 10**9], bits=32).words(0)
    redge = sa.array([2, 0, 1], bits=32).words(0)
    with pytest.raises(ValueError, match=_OUT_OF_BOUNDS):
        sa.store._rebuild_graph(True, [(4, 64, begin), (3, 32, edge), (4, 64, begin), (3, 32, redge)])

    def frame(words: np.ndarray) -> np.ndarray:  # as Dask delivers it: the words and the padding word
        return np.frombuffer(words.tobytes() + bytes(8), dtype=np.uint8)

    frames = [(4, 64, frame(begin)), (3, 32, frame(edge)), (4, 64, frame(begin)), (3, 32, frame(redge))]
    with pytest.raises(ValueError, match=_OUT_OF_BOUNDS):
        sa._core._graph_from_frames(frames, True)
    decreasing = sa.array([0, 3, 1, 3], bits=64).words(0)
    with pytest.raises(ValueError, match=r"CSR bounds: begin\[2\] = 1 is below begin\[1\] = 3"):
        sa._core._graph_from_frames([(4, 64, frame(decreasing)), (3, 32, frame(redge))], False)


def test_send_and_recv_over_sockets_with_a_timeout() -> None:
    # A socket with a Python timeout is non-blocking underneath: before, recv and send failed at once
    # with EAGAIN ("Resource temporarily unavailable") and left the peer out of step.
    a = sa.array(_values(1 << 20, 64), bits=64)  # 8 MiB: more than the socket buffers
    left, right = socket.socketpair()
    with left, right:
        left.settimeout(10)
        right.settimeout(10)

        def send_later() -> None:
            time.sleep(0.3)
            sa.send(left, a)

        thread = threading.Thread(target=send_later)
        thread.start()
        got = sa.recv(right)
        thread.join()
        np.testing.assert_array_equal(got["array"].to_numpy(), a.to_numpy())
        thread = threading.Thread(target=lambda: sa.send(left, a))
        thread.start()
        time.sleep(0.3)  # the sender finds the buffer full and waits for the reader
        np.testing.assert_array_equal(sa.Receiver().recv(right)["array"].to_numpy(), a.to_numpy())
        thread.join()


def test_stream_argument_errors_name_the_argument() -> None:
    a = sa.array([1, 2, 3])
    for fd in (2**31, 2**63, 2**64):
        with pytest.raises(ValueError, match=rf"^fd must be from 0 to 2\^31 - 1, got {fd}$"):
            sa.recv(fd)
        with pytest.raises(ValueError, match=rf"^fd must be from 0 to 2\^31 - 1, got {fd}$"):
            sa.send(fd, a)
    with pytest.raises(ValueError, match=r"^max_bytes must be from 0 to 2\^64 - 1, got 18446744073709551616$"):
        sa.recv(0, max_bytes=2**64)
    with pytest.raises(ValueError, match=r"^max_bytes must be from 0 to 2\^64 - 1, got 18446744073709551616$"):
        sa.Receiver(max_bytes=2**64)
    with pytest.raises(TypeError, match=r"^max_bytes must be an integer, got bool True$"):
        sa.Receiver(max_bytes=True)
    with pytest.raises(TypeError, match=r"^fd must be an integer, got bool True$"):
        sa.recv(True)

    class TextFileno:
        def fileno(self) -> str:
            return "3"

    with pytest.raises(TypeError, match=r"^fd.fileno\(\) must be an integer, got str '3'$"):
        sa.recv(TextFileno())  # type: ignore[arg-type]
    for mode, shown in ((1, "int 1"), (None, "NoneType None")):
        with pytest.raises(TypeError, match=rf"^mode must be a str, got {shown}$"):
            sa.open("x.sa", mode=mode)  # type: ignore[arg-type]
    left, right = socket.socketpair()
    with left, right:  # numpy integers are descriptors too, as they are integers elsewhere in the package
        thread = _send_in_thread(np.int64(left.fileno()), a)
        got = sa.recv(np.int32(right.fileno()))
        thread.join()
    assert got["array"].to_numpy().tolist() == [1, 2, 3]


def test_send_to_a_closed_peer_raises_oserror() -> None:
    big = sa.array(_values(4_000_000, 20), bits=20)
    left, right = socket.socketpair()
    right.close()
    with left, pytest.raises(OSError, match="writev failed"):
        sa.send(left, big)


def test_pickle_protocol_5_carries_the_packed_words_out_of_band() -> None:
    values = _values(100_003, 17)
    a = sa.array(values, bits=17)
    buffers: list[pickle.PickleBuffer] = []
    data = pickle.dumps(a, protocol=5, buffer_callback=buffers.append)
    assert len(buffers) == 1
    assert buffers[0].raw().nbytes == a.words().nbytes  # the words themselves, not a copy of them
    assert np.shares_memory(np.frombuffer(buffers[0].raw(), dtype=np.uint64), a.words())
    assert len(data) < 200
    back = pickle.loads(data, buffers=buffers)
    assert back.bits == 17
    np.testing.assert_array_equal(np.asarray(back), values)
    in_band = pickle.loads(pickle.dumps(a, protocol=4))
    np.testing.assert_array_equal(np.asarray(in_band), values)
    g = sa.Graph.rmat(7, variant="V+E")
    graph_buffers: list[pickle.PickleBuffer] = []
    g_back = pickle.loads(pickle.dumps(g, protocol=5, buffer_callback=graph_buffers.append), buffers=graph_buffers)
    assert len(graph_buffers) == 4  # begin, edge, rbegin, redge: out-degrees are derived from begin
    assert g_back.variant == "V+E"
    np.testing.assert_array_equal(g_back.pagerank(), g.pagerank())


def test_writing_pickle_buffers_after_unpickling_changes_nothing() -> None:
    # Unpickling copies the words (as Dask copies a frame its owner may write): the out-of-band
    # buffers handed to pickle.loads may be written afterwards.
    a = sa.array(_values(10_000, 13), bits=13)
    g = sa.Graph.rmat(6, variant="V+E")
    for obj in (a, g):
        buffers: list[pickle.PickleBuffer] = []
        data = pickle.dumps(obj, protocol=5, buffer_callback=buffers.append)
        writable = [bytearray(buffer.raw()) for buffer in buffers]
        back = pickle.loads(data, buffers=writable)
        for buffer in writable:
            buffer[:] = bytes([0xFF]) * len(buffer)
        if isinstance(obj, sa.Graph):
            np.testing.assert_array_equal(back.pagerank(), obj.pagerank())
        else:
            np.testing.assert_array_equal(back.to_numpy(), obj.to_numpy())


def test_a_pickle_made_when_graphs_held_out_degrees_still_loads() -> None:
    from smartarrays.store import _packed, _rebuild_graph

    g = sa.Graph.rmat(7, variant="V+E")
    arrays = [_packed(g.array(name), 4) for name in ("begin", "edge", "rbegin", "redge")]
    out_degree = sa.array(np.diff(g.array("begin").to_numpy()))
    # What __reduce_ex__ gave then: the four arrays and the out_degree array, which is skipped.
    old = _rebuild_graph(True, [*arrays, _packed(out_degree, 4)])
    np.testing.assert_array_equal(old.pagerank(), g.pagerank())
    assert [a.name for a in old.memory().arrays] == ["begin", "edge", "rbegin", "redge"]
    with pytest.raises(ValueError, match="four packed arrays"):
        _rebuild_graph(True, arrays[:3])


def test_pickle_carries_a_primary_write_arrays_unsynced_writes(fake_topology) -> None:
    fake_topology("nodes=2")
    cpus = os.sched_getaffinity(0)
    try:
        # On the last CPU the local replica is node 1's, which lacks writes not yet synced.
        os.sched_setaffinity(0, {max(cpus)})
        a = sa.array(np.zeros(1000, dtype=np.uint64), bits=8, placement="replicated", write_mode="primary")
        a[5] = 99
        assert pickle.loads(pickle.dumps(a, protocol=5))[5] == 99
        assert pickle.loads(pickle.dumps(a, protocol=4))[5] == 99
    finally:
        os.sched_setaffinity(0, cpus)
    with pytest.raises(ValueError, match="cannot hold"):
        sa.store._rebuild_array(1000, 17, bytes(8))


def test_a_pickle_announcing_more_words_than_it_holds_allocates_nothing() -> None:
    # Before, the array was allocated (and pre-faulted) first: 67 bytes of pickle made the process
    # touch 1 GiB for 2^33 values, and 2^40 64-bit values were a MemoryError instead of this ValueError.
    before = _peak_rss(reset=True)
    for length, bits in ((2**33, 1), (2**40, 64)):
        with pytest.raises(ValueError, match=rf"^packed words: 0 words cannot hold {length} values of {bits} bits"):
            sa.store._rebuild_array(length, bits, b"")
    assert _peak_rss() - before < 64 << 20
    with pytest.raises(ValueError, match="bits must be 1..64, got 65"):
        sa.store._rebuild_array(10, 65, b"")


def _sum_in_child(array: sa.SmartArray) -> int:
    return array.sum()


def _ranks_in_child(graph: sa.Graph) -> np.ndarray:
    return graph.pagerank()


def test_arrays_and_graphs_cross_multiprocessing() -> None:
    a = sa.array(_values(50_000, 9), bits=9)
    g = sa.Graph.rmat(7)
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        assert pool.apply(_sum_in_child, (a,)) == a.sum()
        np.testing.assert_array_equal(pool.apply(_ranks_in_child, (g,)), g.pagerank())


def _append_many(path: str, prefix: str, count: int) -> None:
    for i in range(count):
        sa.append(path, {f"{prefix}-{i}": sa.array(np.arange(100 + i, dtype=np.uint64))})


def test_processes_and_threads_appending_to_one_store_lose_nothing(tmp_path: Path) -> None:
    # Writers exclude each other (docs/compact-format.md, "Writers, readers and locks").
    path = str(tmp_path / "shared.sa")
    sa.save(path, {"first": sa.array([1, 2, 3])})
    context = multiprocessing.get_context("spawn")
    processes = [context.Process(target=_append_many, args=(path, f"p{p}", 5)) for p in range(3)]
    threads = [threading.Thread(target=_append_many, args=(path, f"t{t}", 5)) for t in range(2)]
    for worker in [*processes, *threads]:
        worker.start()
    for worker in [*processes, *threads]:
        worker.join()
    assert all(p.exitcode == 0 for p in processes)
    store = sa.open(path)
    expected = {"first"} | {f"{w}-{i}" for w in ("p0", "p1", "p2", "t0", "t1") for i in range(5)}
    assert set(store) == expected
    for name in expected - {"first"}:
        assert np.array_equal(store[name][:], np.arange(100 + int(name.split("-")[1]), dtype=np.uint64))
    assert sa.verify(path, deep=True).ok


def test_a_mapped_store_cut_underneath_raises_oserror_not_sigbus(tmp_path: Path) -> None:
    path = tmp_path / "cut.sa"
    sa.save(path, {"big": sa.array(np.arange(300_000, dtype=np.uint64))})
    store = sa.open(path)
    big = store["big"]
    os.truncate(path, 4096)
    with pytest.raises(OSError, match="was truncated while mapped"):
        big[299_000]
    with pytest.raises(OSError, match="was truncated while mapped"):
        big.sum()
    with pytest.raises(OSError, match=str(path)):
        big[100_000:200_000]
    with pytest.raises(ValueError, match="store"):
        sa.open(path, mode="load")


def test_a_writer_that_cannot_get_the_lock_raises_oserror_and_changes_nothing(tmp_path: Path) -> None:
    import fcntl
    import subprocess
    import sys

    path = tmp_path / "held.sa"
    sa.save(path, {"first": sa.array([1, 2, 3])})
    before = path.read_bytes()
    append = f"import smartarrays as sa; sa.append({str(path)!r}, {{'late': sa.array([4])}})"
    env = {**os.environ, "SMARTARRAYS_STORE_LOCK_WAIT": "1"}
    with open(path, "r+b") as holder:
        # Another writer's hold of the writer lock (byte 2^62; a POSIX lock conflicts with the library's OFD lock).
        fcntl.lockf(holder, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 2**62)
        late = subprocess.run([sys.executable, "-c", append], env=env, capture_output=True, text=True)
        assert late.returncode != 0
        assert "OSError" in late.stderr and "is being written by another writer" in late.stderr, late.stderr
        assert "SMARTARRAYS_STORE_LOCK_WAIT" in late.stderr
        assert path.read_bytes() == before
    done = subprocess.run([sys.executable, "-c", append], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert list(sa.open(path)) == ["first", "late"]
