#!/usr/bin/env python3
"""Benchmarks of the compact form from Python against numpy and pyarrow, side by side in one run:
opening a large 64-bit array and reading its first value — sa.open (mapped) vs numpy.load(mmap_mode="r")
of a .npy vs a pyarrow IPC file memory-mapped vs numpy.load into memory — and sending a 10-bit and a
64-bit array over a loopback socket — sa.send vs a plain sendall() of the uint64 buffer vs a pyarrow
IPC stream of the same values (throughput and bytes on the wire). Prints tables and writes one JSON
file with the machine facts every benchmark of the project records.

    python/bench/bench_store.py [--open-log2 N] [--send-log2 N] [--repetitions R] [--dir DIR] [--out DIR]
"""

from __future__ import annotations

import argparse
import shutil
import socket
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.ipc as ipc

import smartarrays as sa
from bench_support import machine_facts, timing, write_document

TARGET_OPEN_MS = 1.0  # sa.open (mapped) + first value, at most
TARGET_SEND_RATIO = 0.8  # 64-bit store stream throughput / plain sendall throughput, at least
TARGET_FEWER_BYTES = 5.0  # uint64 bytes / 10-bit store stream bytes, at least
SCHEMA = pa.schema([("v", pa.uint64())])


def bench_open(n: int, folder: Path, repetitions: int) -> list[dict[str, object]]:
    """Open + first value of n 64-bit values in each form (files written first, page cache warm)."""
    values = np.arange(n, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    first = int(values[0])
    npy, arrow, store = folder / "big.npy", folder / "big.arrow", folder / "big.sa"
    np.save(npy, values)
    with pa.OSFile(str(arrow), "wb") as sink, ipc.new_file(sink, SCHEMA) as writer:
        writer.write_batch(pa.record_batch([pa.array(values)], names=["v"]))
    sa.save(store, {"big": sa.array(values, bits=64)})
    del values

    def mapped() -> int:
        return int(sa.open(store)["big"][0])

    def numpy_mmap() -> int:
        return int(np.load(npy, mmap_mode="r")[0])

    def arrow_mmap() -> int:
        with pa.memory_map(str(arrow), "r") as source:
            return int(ipc.open_file(source).get_batch(0).column(0)[0].as_py())

    def into_memory() -> int:
        return int(np.load(npy)[0])

    cases = [("smartarrays sa.open (map)", mapped, store), ("numpy.load(mmap_mode='r')", numpy_mmap, npy),
             ("pyarrow IPC file, memory-mapped", arrow_mmap, arrow), ("numpy.load into memory", into_memory, npy)]
    rows = []
    for name, f, path in cases:
        assert f() == first, name
        rows.append({"case": name, "file_bytes": path.stat().st_size, **timing(f, repetitions)})
    return rows


def _loopback() -> tuple[socket.socket, socket.socket]:
    """A connected loopback TCP pair (client, server side)."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        client = socket.create_connection(listener.getsockname())
        server, _ = listener.accept()
    return client, server


def bench_send(n: int, repetitions: int) -> list[dict[str, object]]:
    """Sending n values: store streams of a 10- and a 64-bit array, sendall of uint64, a pyarrow IPC stream."""
    values = (np.arange(n, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(54)  # 10-bit values
    last = int(values[-1])
    a10, a64 = sa.array(values, bits=10), sa.array(values, bits=64)
    client, server = _loopback()
    received = np.empty(n, dtype=np.uint64)

    def run(send: Callable[[], None], receive: Callable[[], int]) -> Callable[[], None]:
        def once() -> None:
            out: list[int] = []
            thread = threading.Thread(target=lambda: out.append(receive()))
            thread.start()
            send()
            thread.join()
            assert out == [last]

        return once

    # Received regions on huge pages: 4 KiB faults on a fresh gigabyte cost more than its transfer.
    # A Receiver reads every stream after its first into the same region, as the warm plain
    # receiver reuses its buffer; sa.recv places a new region per stream.
    receiver = sa.Receiver(huge_pages=True)

    def store_stream(array: sa.SmartArray, reuse: bool = True) -> Callable[[], None]:
        def receive() -> int:
            got = receiver.recv(server) if reuse else sa.recv(server, huge_pages=True)
            return int(got["a"][n - 1])

        return run(lambda: sa.send(client, {"a": array}), receive)

    def plain_receive() -> int:
        view = memoryview(received).cast("B")
        done = 0
        while done < len(view):
            done += server.recv_into(view[done:])
        return int(received[-1])

    # The IPC stream ends with its end-of-stream marker, so the reader stops without the socket closing.
    def arrow_send() -> None:
        with client.makefile("wb") as sink, ipc.new_stream(sink, SCHEMA) as writer:
            writer.write_batch(pa.record_batch([pa.array(values)], names=["v"]))

    def arrow_receive() -> int:
        with server.makefile("rb") as source:
            table = ipc.open_stream(source).read_all()
        return int(table.column(0)[n - 1].as_py())

    # Wire bytes of a store stream: the preamble (16), header and gap to the block at 4096, the block
    # (words and padding word), the directory (head 16, one descriptor 40, one entry 56, name 8), the trailer (32).
    def stream_bytes(array: sa.SmartArray) -> int:
        return 16 + 4096 + array.words().nbytes + 8 + 120 + 32

    arrow_bytes = pa.BufferOutputStream()
    with ipc.new_stream(arrow_bytes, SCHEMA) as writer:
        writer.write_batch(pa.record_batch([pa.array(values)], names=["v"]))
    cases = [("sa.send, 10-bit", store_stream(a10), stream_bytes(a10)),
             ("sa.send, 64-bit", store_stream(a64), stream_bytes(a64)),
             ("sa.send, 64-bit, new region (sa.recv)", store_stream(a64, reuse=False), stream_bytes(a64)),
             ("sendall, into a warm buffer", run(lambda: client.sendall(values), plain_receive), values.nbytes),
             ("pyarrow IPC stream", run(arrow_send, arrow_receive), arrow_bytes.getvalue().size)]
    rows = []
    for name, f, wire in cases:
        t = timing(f, repetitions)
        rows.append({"case": name, "wire_bytes": wire, "mib_per_s": wire / t["median_s"] / 2**20,
                     "values_per_s": n / t["median_s"], **t})
    client.close()
    server.close()
    return rows


def main() -> int:
    """Runs the benchmark, prints the tables and the targets, writes the JSON file."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--open-log2", type=int, default=27, help="2^N 64-bit values in the opened array (default 27: 1 GiB)")
    parser.add_argument("--send-log2", type=int, default=27, help="2^N values sent (default 27)")
    parser.add_argument("--repetitions", type=int, default=5, help="timed runs per case, median reported (default 5)")
    parser.add_argument("--dir", type=Path, default=Path("build/bench-store-python"), help="scratch folder (removed)")
    parser.add_argument("--out", type=Path, default=Path("build/bench-results"), help="directory of the JSON result")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    try:
        open_rows = bench_open(1 << args.open_log2, args.dir, args.repetitions)
    finally:
        shutil.rmtree(args.dir, ignore_errors=True)
    send_rows = bench_send(1 << args.send_log2, args.repetitions)

    print(f"open + first value of 2^{args.open_log2} uint64 values, median of {args.repetitions}, page cache warm")
    print(f"{'case':<36}{'file MiB':>10}{'median s':>12}{'spread':>8}")
    for r in open_rows:
        print(f"{r['case']:<36}{r['file_bytes'] / 2**20:>10.1f}{r['median_s']:>12.6f}{r['spread']:>8.2f}")
    print(f"\nsending 2^{args.send_log2} values over loopback TCP")
    print(f"{'case':<36}{'wire MiB':>10}{'median s':>12}{'MiB/s':>10}{'Mvalues/s':>11}")
    for r in send_rows:
        print(f"{r['case']:<36}{r['wire_bytes'] / 2**20:>10.1f}{r['median_s']:>12.4f}{r['mib_per_s']:>10.0f}"
              f"{r['values_per_s'] / 1e6:>11.0f}")
    by = {r["case"]: r for r in send_rows}
    open_ms = open_rows[0]["median_s"] * 1e3
    send_ratio = by["sa.send, 64-bit"]["mib_per_s"] / by["sendall, into a warm buffer"]["mib_per_s"]
    fewer = by["sendall, into a warm buffer"]["wire_bytes"] / by["sa.send, 10-bit"]["wire_bytes"]
    checks = [
        {"target": "sa.open (map) + first value, ms", "value": open_ms, "goal": f"<= {TARGET_OPEN_MS}", "met": open_ms <= TARGET_OPEN_MS},
        {"target": "64-bit stream MiB/s / sendall MiB/s", "value": send_ratio, "goal": f">= {TARGET_SEND_RATIO}",
         "met": send_ratio >= TARGET_SEND_RATIO},
        {"target": "uint64 bytes / 10-bit stream bytes", "value": fewer, "goal": f">= {TARGET_FEWER_BYTES}",
         "met": fewer >= TARGET_FEWER_BYTES},
    ]
    print()
    for c in checks:
        print(f"{c['target']:<40}{c['value']:>9.3f}  goal {c['goal']:<8} {'met' if c['met'] else 'MISSED'}")
    document = {
        "format": "smartarrays.bench.python_store/1",
        "benchmark": "python_store",
        "machine": machine_facts(pyarrow=pa.__version__),
        "config": {"open_log2": args.open_log2, "send_log2": args.send_log2, "repetitions": args.repetitions},
        "open_first_value": open_rows,
        "send": send_rows,
        "targets": checks,
    }
    print(f"results: {write_document(args.out, 'python_store', document)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
