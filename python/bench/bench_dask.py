#!/usr/bin/env python3
"""Benchmarks of smartarrays.dask on a LocalCluster of 2 worker processes (one core thread each,
SMARTARRAYS_THREADS=1), side by side in one run with the local library on 2 threads: bytes a worker
sends for a 10-bit SmartArray vs the same values as a uint64 numpy block (Dask's own counter: the
bytes each transfer wrote, transfer_outgoing_log "compressed"); a distributed sum of a 10-bit
collection vs the local sum of one SmartArray vs dask.array.sum over the uint64 data persisted on the
same workers; distributed PageRank (parts cut once) vs the local PageRank, per iteration; and, in
this process, receiving a 64-bit SmartArray from its Dask frame over a bytes object (used in place)
vs over a bytearray (copied: its owner may write it). Prints tables and writes one JSON file with the
machine facts every benchmark of the project records.

    python/bench/bench_dask.py [--bytes-log2 N] [--sum-log2 N] [--block-log2 N] [--scale S] [--frame-mib M]
                               [--repetitions R] [--out DIR]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import dask
import dask.array as da
import distributed
import numpy as np
from distributed import Client, LocalCluster
from distributed.protocol import deserialize, serialize

import smartarrays as sa
import smartarrays.dask as sad
from bench_support import machine_facts, print_targets, target, timing, write_document

TARGET_FEWER_BYTES = 6.0  # uint64 bytes moved / 10-bit SmartArray bytes moved, at least
TARGET_SUM_RATIO = 1.5  # distributed sum time / local sum time, at most
TARGET_PAGERANK_RATIO = 2.0  # distributed PageRank time per iteration / local, at most
ITERATIONS = 10  # PageRank iterations timed (tolerance 0: exactly these)


def _sent_bytes(client: Client, worker: str) -> int:
    """Bytes worker has written in answers to other workers' data requests (Dask's counter)."""
    logs = client.run(lambda dask_worker: [e["compressed"] for e in dask_worker.transfer_outgoing_log], workers=[worker])
    return int(sum(logs[worker]))


def _moved(client: Client, make: object, n: int) -> int:
    """Bytes moved when a block made by make(n) on the first worker is used by a task on the second."""
    source, target = list(client.scheduler_info()["workers"])[:2]
    block = client.submit(make, n, workers=[source], pure=False)
    distributed.wait(block)
    before = _sent_bytes(client, source)
    client.submit(len, block, workers=[target], allow_other_workers=False, pure=False).result()
    return _sent_bytes(client, source) - before


def _smart_block(n: int) -> sa.SmartArray:
    return sa.array(np.arange(n, dtype=np.uint64) % 1000, bits=10)


def _plain_block(n: int) -> np.ndarray:
    return np.arange(n, dtype=np.uint64) % 1000


def bench_bytes(client: Client, n: int) -> dict[str, object]:
    smart = _moved(client, _smart_block, n)
    plain = _moved(client, _plain_block, n)
    packed = (-(-n // 64) * 10 + 1) * 8
    return {"values": n, "smartarray_bytes": smart, "uint64_bytes": plain, "packed_bytes": packed,
            "overhead_bytes": smart - packed, "fewer": plain / smart}


def _values(x: np.ndarray) -> np.ndarray:
    """The benchmark's 10-bit values at positions x (a block of indices)."""
    return (x * np.uint64(2654435761)) % np.uint64(1024)


def bench_sum(client: Client, n: int, block: int, repetitions: int) -> list[dict[str, object]]:
    x = da.arange(n, chunks=block, dtype=np.uint64).map_blocks(_values, dtype=np.uint64)
    collection = sad.from_dask_array(x, bits=10)
    plain = x.persist()
    distributed.wait(plain)
    local = sa.array(_values(np.arange(n, dtype=np.uint64)), bits=10)
    expected = local.sum()
    assert collection.sum() == expected == int(plain.sum().compute())
    cases = [("local SmartArray.sum", local.sum),
             ("smartarrays.dask sum (2 workers)", collection.sum),
             ("dask.array.sum over uint64 (2 workers)", lambda: plain.sum().compute())]
    rows = []
    for case, run in cases:
        rows.append({"case": case, **timing(run, repetitions)})
    return rows


def bench_pagerank(client: Client, scale: int, repetitions: int) -> list[dict[str, object]]:
    g = sa.Graph.rmat(scale=scale, edge_factor=16, seed=1)
    held = sad.graph_parts(g, parts=2)
    distributed.wait(held)
    local_ranks = g.pagerank(tol=0.0, max_iterations=ITERATIONS)
    run = sad.pagerank(held, tol=0.0, max_iterations=ITERATIONS)
    difference = float(np.abs(run.ranks - local_ranks).max())
    rows = []
    for case, call in [("local Graph.pagerank (2 threads)", lambda: g.pagerank(tol=0.0, max_iterations=ITERATIONS)),
                       ("smartarrays.dask.pagerank (2 workers)", lambda: sad.pagerank(held, tol=0.0, max_iterations=ITERATIONS))]:
        t = timing(call, repetitions)
        rows.append({"case": case, "per_iteration_s": t["median_s"] / ITERATIONS, **t})
    rows[1]["max_rank_difference"] = difference
    return rows


def bench_deserialize(mib: int, repetitions: int) -> list[dict[str, object]]:
    """deserialize() of a 64-bit SmartArray of mib MiB from its frame as a bytes object (nothing can
    write it: the array is built over it in place) and as a bytearray (copied into the library's own
    memory, which is what a frame its owner may still write costs)."""
    header, frames = serialize(sa.array(np.arange(mib << 17, dtype=np.uint64), bits=64), serializers=["dask"])
    immutable = [bytes(memoryview(frame).cast("B")) for frame in frames]
    writable = [bytearray(frame) for frame in immutable]
    rows = []
    for case, received in (("bytes frame (in place)", immutable), ("bytearray frame (copied)", writable)):
        rows.append({"case": case, **timing(lambda frames=received: deserialize(header, frames), repetitions)})
    return rows


def main() -> int:
    """Runs the benchmark, prints the tables and the targets, writes the JSON file."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bytes-log2", type=int, default=24, help="2^N values moved between workers (default 24)")
    parser.add_argument("--sum-log2", type=int, default=28, help="2^N values summed (default 28)")
    parser.add_argument("--block-log2", type=int, default=25, help="2^N values per Dask block (default 25)")
    parser.add_argument("--scale", type=int, default=20, help="PageRank on an R-MAT graph of 2^S vertices (default 20)")
    parser.add_argument("--frame-mib", type=int, default=256, help="MiB of the frame deserialized (default 256)")
    parser.add_argument("--repetitions", type=int, default=5, help="timed runs per case, median reported (default 5)")
    parser.add_argument("--out", type=Path, default=Path("build/bench-results"), help="directory of the JSON result")
    args = parser.parse_args()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      env={"SMARTARRAYS_THREADS": "1"}) as cluster, Client(cluster) as client:
        moved = bench_bytes(client, 2**args.bytes_log2)
        sums = bench_sum(client, 2**args.sum_log2, 2**args.block_log2, args.repetitions)
        ranks = bench_pagerank(client, args.scale, args.repetitions)
    received = bench_deserialize(args.frame_mib, args.repetitions)
    print(f"bytes a worker sends for 2^{args.bytes_log2} values (Dask's transfer_outgoing_log)")
    print(f"{'uint64 numpy block':<40}{moved['uint64_bytes']:>14}")
    print(f"{'10-bit SmartArray':<40}{moved['smartarray_bytes']:>14}  (packed {moved['packed_bytes']}, "
          f"+{moved['overhead_bytes']} bytes)")
    print(f"\nsum of 2^{args.sum_log2} 10-bit values, blocks of 2^{args.block_log2}, median of {args.repetitions}")
    print(f"{'case':<44}{'median s':>10}{'spread':>8}")
    for r in sums:
        print(f"{r['case']:<44}{r['median_s']:>10.4f}{r['spread']:>8.2f}")
    print(f"\nPageRank on R-MAT scale {args.scale} (edge factor 16), {ITERATIONS} iterations, median of {args.repetitions}")
    print(f"{'case':<44}{'s / iteration':>14}{'spread':>8}")
    for r in ranks:
        print(f"{r['case']:<44}{r['per_iteration_s']:>14.4f}{r['spread']:>8.2f}")
    print(f"largest |distributed - local| rank: {ranks[1]['max_rank_difference']:.3g}")
    print(f"\ndeserialize() of a 64-bit SmartArray from a {args.frame_mib} MiB frame, median of {args.repetitions}")
    print(f"{'case':<44}{'median ms':>10}{'spread':>8}")
    for r in received:
        print(f"{r['case']:<44}{r['median_s'] * 1e3:>10.3f}{r['spread']:>8.2f}")
    sum_ratio = sums[1]["median_s"] / sums[0]["median_s"]
    dask_ratio = sums[2]["median_s"] / sums[1]["median_s"]
    pagerank_ratio = ranks[1]["per_iteration_s"] / ranks[0]["per_iteration_s"]
    rank_difference = ranks[1]["max_rank_difference"]
    checks = [
        target("uint64 bytes / 10-bit bytes moved", moved["fewer"], f">= {TARGET_FEWER_BYTES}",
               moved["fewer"] >= TARGET_FEWER_BYTES),
        target("10-bit overhead bytes over packed", moved["overhead_bytes"], "< 1024", moved["overhead_bytes"] < 1024),
        target("distributed sum / local sum", sum_ratio, f"<= {TARGET_SUM_RATIO}", sum_ratio <= TARGET_SUM_RATIO),
        target("dask.array.sum uint64 / distributed sum", dask_ratio, "> 1", dask_ratio > 1),
        target("distributed / local PageRank per iteration", pagerank_ratio, f"<= {TARGET_PAGERANK_RATIO}",
               pagerank_ratio <= TARGET_PAGERANK_RATIO),
        target("largest rank difference", rank_difference, "<= 1e-12", rank_difference <= 1e-12),
    ]
    print_targets(checks)
    document = {
        "format": "smartarrays.bench.python_dask/1",
        "benchmark": "python_dask",
        "machine": machine_facts(dask=dask.__version__, distributed=distributed.__version__),
        "config": {**vars(args), "out": str(args.out), "workers": 2, "worker_threads": 1, "iterations": ITERATIONS},
        "bytes_moved": moved,
        "sum": sums,
        "pagerank": ranks,
        "deserialize": received,
        "targets": checks,
    }
    print(f"results: {write_document(args.out, 'python_dask', document)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
