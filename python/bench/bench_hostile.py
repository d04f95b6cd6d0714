#!/usr/bin/env python3
"""Hostile input against the tools users read and save data with today, side by side in one run
(docs/input-limits.md). (1) An edge list that is one line of NUL bytes (a sparse file of --size
bytes) read by the command, by the Python package, by numpy.loadtxt, DuckDB's read_csv and
networkx.read_edgelist: seconds, peak RSS and the outcome, each reader in a child process of its
own. (2) A save of 8 MiB over a file of 18,000 bytes when the disk is full (RLIMIT_FSIZE of 64 KiB,
SIGXFSZ ignored) by sa.save, numpy.save and DuckDB's COPY to parquet: what is left of the old file.
Prints two tables and writes one JSON file with the machine facts every benchmark records.

    python/bench/bench_hostile.py [--cli PATH] [--size BYTES] [--timeout S] [--out DIR]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import re
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from bench_support import machine_facts, print_targets, target, write_document

# Each reader gets the edge list's path as P; None is the command (`graph info`).
READERS: dict[str, str | None] = {
    "smartarrays graph info": None,
    "smartarrays Graph.load": "import smartarrays as sa; sa.Graph.load(P)",
    "numpy.loadtxt": "import numpy as np; np.loadtxt(P, dtype=np.int64)",
    "DuckDB read_csv": (
        "import duckdb; duckdb.sql(f\"SELECT count(*) FROM read_csv('{P}', "
        "columns={{'s': 'BIGINT', 'd': 'BIGINT'}}, delim=' ', header=false)\").fetchall()"
    ),
    "networkx.read_edgelist": (
        "import networkx as nx; g = nx.read_edgelist(P, nodetype=int, create_using=nx.DiGraph); "
        "print(g.number_of_nodes(), 'vertices', g.number_of_edges(), 'edges')"
    ),
}

# A child that saves 8 MiB to argv[2] with the library argv[1] under a 64 KiB file size limit.
SAVER = textwrap.dedent("""
    import resource, signal, sys
    import numpy as np
    kind, path = sys.argv[1], sys.argv[2]
    values = np.arange(1 << 20, dtype=np.uint64)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (65536, 65536))
    try:
        if kind == "smartarrays sa.save":
            import smartarrays as sa
            sa.save(path, sa.array(values, bits=64))
        elif kind == "numpy.save":
            np.save(path, values)
        else:
            import duckdb
            con = duckdb.connect()
            con.execute("CREATE TABLE t AS SELECT range::UBIGINT AS v FROM range(1048576)")
            con.execute(f"COPY t TO '{path}' (FORMAT parquet)")
        print("saved")
    except Exception as e:
        print(type(e).__name__ + ": " + str(e).splitlines()[0][:110])
""")
EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception): ")
SAVERS = {"smartarrays sa.save": "old.sa", "numpy.save": "old.npy", "DuckDB COPY parquet": "old.parquet"}


def last_line(text: str, work: Path) -> str:
    """The error a child printed: the last line naming an exception (a multi-line message such as
    DuckDB's ends in its details), else the last non-empty line; the work folder left out, cut to 100
    characters ("" if none)."""
    lines = [line.replace(f"{work}/", "") for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if EXCEPTION_LINE.match(line)]
    return (errors or lines or [""])[-1][:100]


def run_measured(argv: list[str], timeout: float, work: Path) -> tuple[str, float, float | None, str]:
    """Runs argv under /usr/bin/time in a session of its own, stderr on stdout, and kills the whole
    session at the timeout or on Ctrl-C (killing only `time` would leave the reader running). Returns its result
    (accepted, refused, timed out, or the signal that ended it), seconds, peak RSS in MB (None after a
    timeout) and its output. /usr/bin/time, not the library's spawner (sa.tune.run): a child forked
    from this Python process counts the parent's resident memory in its peak, `time`'s children do not."""
    rss_file = work / "rss"
    start = time.monotonic()
    child = subprocess.Popen(["/usr/bin/time", "-o", str(rss_file), "-f", "%M", *argv], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, errors="replace", start_new_session=True)
    try:
        output, _ = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.communicate()
        return "timed out", time.monotonic() - start, None, ""
    except BaseException:  # Ctrl-C: the reader's session does not get the terminal's signal
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
        raise
    seconds = time.monotonic() - start
    # `time` reports a signal that ended the reader as "Command terminated by signal N" and exits 128+N.
    ended_by = re.search(r"Command terminated by signal (\d+)", rss_file.read_text())
    rss_mb = int(rss_file.read_text().split()[-1]) / 1024
    if ended_by:
        return f"signal {ended_by.group(1)}", seconds, rss_mb, output
    return ("accepted" if child.returncode == 0 else "refused"), seconds, rss_mb, output


def read_long_line(cli: Path | None, size: int, timeout: float, work: Path) -> list[dict[str, object]]:
    """Each reader on one line of size NUL bytes, in a process of its own: seconds, peak RSS in MB,
    its result and outcome."""
    path = work / "flat.el"
    with open(path, "wb") as f:
        f.truncate(size)
    rows = []
    for name, code in READERS.items():
        if code is None and cli is None:
            continue
        argv = [str(cli), "graph", "info", str(path)] if code is None else [sys.executable, "-c", f"P = {str(path)!r}\n{code}"]
        result, seconds, rss_mb, output = run_measured(argv, timeout, work)
        if result == "timed out":
            outcome = f"still running after {timeout:g} s"
        else:
            outcome = {"accepted": "accepted: ", "refused": ""}.get(result, f"{result}: ") + last_line(output, work)
        rows.append({"reader": name, "seconds": seconds, "peak_rss_mb": rss_mb, "result": result, "outcome": outcome})
        rss_text = f"{rss_mb:,.0f}" if rss_mb is not None else "-"
        print(f"{name:<26}{seconds:>9.2f}{rss_text:>13}  {outcome}", flush=True)
    return rows


def save_on_full_disk(work: Path) -> list[dict[str, object]]:
    """Each library saving 8 MiB over 18,000 bytes with a 64 KiB file size limit: what is left."""
    old = b"previous contents " * 1000
    rows = []
    for kind, name in SAVERS.items():
        path = work / name
        path.write_bytes(old)
        r = subprocess.run([sys.executable, "-c", SAVER, kind, str(path)], capture_output=True, text=True)
        after = path.read_bytes() if path.exists() else b""
        leftovers = sorted(n for n in os.listdir(work) if n.startswith(name) and n != name)
        message = last_line(r.stdout, work) or last_line(r.stderr, work)
        rows.append({"library": kind, "old_bytes": len(old), "bytes_after": len(after), "old_kept": after == old,
                     "leftovers": leftovers, "outcome": message})
        print(f"{kind:<22}{len(old):>10,}{len(after):>13,}{'yes' if after == old else 'no':>10}  {message}", flush=True)
    return rows


def installed_version(package: str) -> str | None:
    """The installed version of package, None when it is not installed."""
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", type=Path, help="the smartarrays command (its row is left out without it)")
    parser.add_argument("--size", type=int, default=512 << 20, help="bytes of the one-line edge list (default 512 MiB)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds a reader may take (default 300)")
    parser.add_argument("--out", type=Path, default=Path("build/bench-results"), help="where the JSON file goes")
    args = parser.parse_args()
    if args.size < 1:
        parser.error(f"--size must be at least 1, got {args.size}")
    if not args.timeout > 0:
        parser.error(f"--timeout must be a number of seconds above 0, got {args.timeout}")
    if not os.access("/usr/bin/time", os.X_OK):
        parser.error("needs /usr/bin/time for each reader's peak RSS: install the Debian package time (apt-get install time)")
    if args.cli is not None and not os.access(args.cli, os.X_OK):
        parser.error(f"--cli: '{args.cli}' is not an executable file")

    with tempfile.TemporaryDirectory(prefix="bench-hostile-") as d:
        work = Path(d)
        print(f"== An edge list of one line of {args.size:,} NUL bytes, each reader in its own process")
        print(f"{'reader':<26}{'seconds':>9}{'peak RSS MB':>13}  outcome")
        lines = read_long_line(args.cli, args.size, args.timeout, work)
        print("\n== Saving 8 MiB over an 18,000-byte file with 64 KiB of disk left (RLIMIT_FSIZE)")
        print(f"{'library':<22}{'old bytes':>10}{'bytes after':>13}{'old kept':>10}  outcome")
        saves = save_on_full_disk(work)

    ours = [row for row in lines if str(row["reader"]).startswith("smartarrays")]
    largest = max(row["peak_rss_mb"] or float("inf") for row in ours)
    refused = sum(row["result"] == "refused" for row in ours)
    saved = next(row for row in saves if row["library"] == "smartarrays sa.save")
    checks = [
        target("smartarrays readers refusing the long line", refused, f"= {len(ours)}", refused == len(ours)),
        target("smartarrays readers' peak RSS MB, at most", largest, "<= 64", largest <= 64),
        target("sa.save keeps the old file on a full disk", float(saved["old_kept"]), "= 1", bool(saved["old_kept"])),
    ]
    print_targets(checks)
    path = write_document(args.out, "python_hostile", {
        "format": "smartarrays.bench.python_hostile/1",
        "benchmark": "python_hostile",
        "machine": machine_facts(duckdb=installed_version("duckdb"), networkx=installed_version("networkx")),
        "long_line": {"bytes": args.size, "readers": lines},
        "full_disk_save": {"file_size_limit_bytes": 65536, "saved_bytes": 8 << 20, "libraries": saves},
        "targets": checks,
    })
    print(f"results: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
