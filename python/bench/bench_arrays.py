#!/usr/bin/env python3
"""Benchmarks of the Python package against numpy, side by side in one run: sums of 64-, 10- and
33-bit smart arrays vs numpy.sum over uint64 and over the smallest numpy dtype that holds the
values, the memory of each, and decode throughput (slice, unpack into a caller's array, batch
iteration) vs a numpy copy (the store limit). Prints a table and writes one JSON file with the
machine facts every benchmark of the project records (sa.machine_facts(), the C ABI's).

    python/bench/bench_arrays.py [--size N] [--repetitions R] [--out DIR]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

import smartarrays as sa
from bench_support import machine_facts, timing, write_document

TARGET_SUM_64 = 1.0  # smart 64-bit sum time / numpy.sum time, at most (issue 14)
TARGET_SUM_10_VS_U64 = 3.0  # numpy.sum(uint64) time / smart 10-bit sum time, at least


def numpy_madvises_huge_pages() -> bool | None:
    """Whether numpy asks for transparent huge pages for its large buffers (its Linux default)."""
    getter = getattr(np._core.multiarray if hasattr(np, "_core") else np.core.multiarray, "_get_madvise_hugepage", None)
    return bool(getter()) if getter else None


def smallest_dtype(bits: int) -> type[np.unsignedinteger]:
    """The narrowest unsigned numpy dtype that holds bits-bit values."""
    for dtype in (np.uint8, np.uint16, np.uint32, np.uint64):
        if np.iinfo(dtype).bits >= bits:
            return dtype
    raise ValueError(bits)


def values_of(bits: int, n: int) -> np.ndarray:
    """n random values below 2^bits (a fixed seed per width)."""
    rng = np.random.default_rng(bits)
    return rng.integers(0, 2**bits if bits < 64 else 2**64 - 1, size=n, dtype=np.uint64, endpoint=bits == 64)


def run(n: int, repetitions: int) -> list[dict[str, object]]:
    """Times every case, printing each row as it completes; returns the rows."""
    rows: list[dict[str, object]] = []

    def add(group: str, case: str, f: Callable[[], object], nbytes: int, read_bytes: int, baseline: str | None) -> None:
        """Times one case and records it, with its speedup over the group's baseline case."""
        t = timing(f, repetitions)
        row = {"group": group, "case": case, "values": n, "memory_bytes": nbytes, "read_bytes": read_bytes, **t}
        row["gb_per_s"] = read_bytes / t["median_s"] / 1e9
        row["values_per_s"] = n / t["median_s"]
        if baseline is not None:
            base = next(r for r in rows if r["group"] == group and r["case"] == baseline)
            row["speedup_vs"] = baseline
            row["speedup"] = base["median_s"] / t["median_s"]
        rows.append(row)
        print_row(row)

    print_header()
    for bits in (64, 10, 33):
        v = values_of(bits, n)
        expected = int(v.sum(dtype=np.uint64))
        group = f"sum {bits}-bit"
        add(group, "numpy uint64", lambda: v.sum(dtype=np.uint64), v.nbytes, v.nbytes, None)
        small_dtype = smallest_dtype(bits)
        if small_dtype is not np.uint64:
            small = v.astype(small_dtype)
            add(group, f"numpy {np.dtype(small_dtype).name}", lambda: small.sum(dtype=np.uint64), small.nbytes, small.nbytes,
                "numpy uint64")
        for huge in ("auto", "off"):
            a = sa.array(v, bits=bits, huge_pages=huge)
            assert a.sum() == expected % 2**64
            packed = a.words().nbytes
            add(group, f"smart {bits}-bit" + ("" if huge == "auto" else " huge_pages=off"), a.sum, a.nbytes, packed,
                "numpy uint64")
            rows[-1]["huge_page_bytes"] = a.huge_page_bytes()
            if bits != 64 and huge == "auto":
                decode_group = f"decode {bits}-bit"
                out = np.empty(n, dtype=np.uint64)
                add(decode_group, "numpy copy uint64 (store limit)", lambda: np.copyto(out, v), v.nbytes, v.nbytes, None)
                add(decode_group, "smart unpack(0, out)", lambda: a.unpack(0, out), a.nbytes, packed,
                    "numpy copy uint64 (store limit)")
                add(decode_group, "smart a[:] (new array)", lambda: a[:], a.nbytes, packed,
                    "numpy copy uint64 (store limit)")
                add(decode_group, "smart iter_chunks(65536)", lambda: sum(len(c) for c in a.iter_chunks(65536)),
                    a.nbytes, packed, "numpy copy uint64 (store limit)")
            a.close()
    return rows


def print_header() -> None:
    """Prints the column names of the table."""
    print(f"{'group':<14} {'case':<32} {'memory MB':>10} {'median ms':>10} {'spread':>7} {'GB/s':>7} {'Gval/s':>7} {'speedup':>8}")


def print_row(row: dict[str, object]) -> None:
    """Prints one row of the table."""
    speedup = f"{row['speedup']:.2f}x" if "speedup" in row else ""
    print(
        f"{row['group']:<14} {row['case']:<32} {row['memory_bytes'] / 2**20:>10.1f} {row['median_s'] * 1e3:>10.2f} "
        f"{row['spread']:>7.2f} {row['gb_per_s']:>7.2f} {row['values_per_s'] / 1e9:>7.2f} {speedup:>8}",
        flush=True,
    )


def find(rows: list[dict[str, object]], group: str, case: str) -> dict[str, object]:
    """The row of a group and case."""
    return next(r for r in rows if r["group"] == group and r["case"] == case)


def targets(rows: list[dict[str, object]]) -> list[dict[str, object]]:
    """The targets, evaluated on this run's ratios (smart arrays with default options: huge_pages="auto", as numpy)."""
    sum64 = find(rows, "sum 64-bit", "smart 64-bit")["median_s"] / find(rows, "sum 64-bit", "numpy uint64")["median_s"]
    sum64_off = find(rows, "sum 64-bit", "smart 64-bit huge_pages=off")["median_s"] / find(rows, "sum 64-bit", "numpy uint64")["median_s"]
    smart10 = find(rows, "sum 10-bit", "smart 10-bit")
    vs_u64 = find(rows, "sum 10-bit", "numpy uint64")["median_s"] / smart10["median_s"]
    vs_u16 = find(rows, "sum 10-bit", "numpy uint16")["median_s"] / smart10["median_s"]
    # Memory of the default array: "auto" aligns large arrays but does not round their size up.
    memory = find(rows, "sum 10-bit", "smart 10-bit")["memory_bytes"] / find(rows, "sum 10-bit", "numpy uint64")["memory_bytes"]
    return [
        {"target": "sum 64-bit: smart time / numpy.sum time", "value": sum64, "goal": f"<= {TARGET_SUM_64}",
         "met": sum64 <= TARGET_SUM_64, "with_huge_pages_off": sum64_off},
        {"target": "sum 10-bit: numpy.sum(uint64) time / smart time", "value": vs_u64,
         "goal": f">= {TARGET_SUM_10_VS_U64}", "met": vs_u64 >= TARGET_SUM_10_VS_U64},
        {"target": "sum 10-bit: numpy.sum(uint16) time / smart time", "value": vs_u16, "goal": "> 1", "met": vs_u16 > 1},
        {"target": "memory 10-bit / uint64", "value": memory, "goal": f"10/64 = {10 / 64:.4f}",
         "met": memory <= 10 / 64 * 1.001},
    ]


def main() -> int:
    """Runs the benchmark, prints the table and the targets, writes the JSON file."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=1 << 25, help="values per array (default 2^25)")
    parser.add_argument("--repetitions", type=int, default=9, help="timed runs per case, median reported (default 9)")
    parser.add_argument("--out", type=Path, default=Path("build/bench-results"), help="directory of the JSON result")
    args = parser.parse_args()

    print(f"smartarrays {sa.__version__} vs numpy {np.__version__}: {args.size} values, median of "
          f"{args.repetitions} runs (speedup = baseline time / this time)")
    rows = run(args.size, args.repetitions)
    checks = targets(rows)
    print()
    for check in checks:
        print(f"{check['target']:<50} {check['value']:>7.3f}  goal {check['goal']:<14} {'met' if check['met'] else 'MISSED'}")

    document = {
        "format": "smartarrays.bench.python_arrays/1",
        "benchmark": "python_arrays",
        "machine": machine_facts(numpy_madvise_hugepage=numpy_madvises_huge_pages()),
        "config": {"size": args.size, "repetitions": args.repetitions},
        "results": rows,
        "targets": checks,
    }
    print(f"results: {write_document(args.out, 'python_arrays', document)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
