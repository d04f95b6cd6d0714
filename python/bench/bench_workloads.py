"""The analytics workloads W1-W4 of the NUMA analytics study three ways on the same data and the
same thread count: classic (ordinary containers) and smart (smart collections), both timed by
`smartarrays bench workload`, and DuckDB, which runs the SQL of the study's Table 1 over the same
.npy files loaded into its tables. Prints one table (median time, data size, peak extra memory),
writes the JSON document and a figure. Results are checked: DuckDB's groups against the command's
checksum, the join counts against |S|.

  .venv/bin/python python/bench/bench_workloads.py --cli build/bin/smartarrays --out build/bench-results
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import duckdb
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_support import machine_facts, timing, write_document  # noqa: E402

QUERIES = {
    "w1": "SELECT key, quantile_disc(val, 0.5) AS agg FROM records GROUP BY key",
    "w2": "SELECT key, COUNT(*) AS agg FROM records GROUP BY key",
    "w3": "SELECT COUNT(*) FROM r JOIN s ON r.key = s.fkey",
    "w4": "SELECT COUNT(*) FROM r JOIN s ON r.key = s.fkey",
}
MASK = (1 << 64) - 1


def mix64(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser over uint64 arrays (util/mix64.hpp), wrapping like C++."""
    with np.errstate(over="ignore"):
        x = x + np.uint64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


def group_checksum(keys: np.ndarray, values: np.ndarray) -> int:
    """The command's checksum of (key, aggregate) pairs: the wrapping sum of mix64(key ^ mix64(value))."""
    with np.errstate(over="ignore"):
        return int(mix64(keys.astype(np.uint64) ^ mix64(values.astype(np.uint64))).sum(dtype=np.uint64)) & MASK


def resident_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGESIZE")


class PeakMemory:
    """Peak resident growth of this process while it is open (a sampler thread, 1 ms)."""

    def __enter__(self) -> PeakMemory:
        self.baseline = self.peak = resident_bytes()
        self.running = True
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()
        return self

    def _sample(self) -> None:
        while self.running:
            self.peak = max(self.peak, resident_bytes())
            time.sleep(0.001)

    def __exit__(self, *exc: object) -> None:
        self.running = False
        self.thread.join()
        self.grown = max(self.peak - self.baseline, 0)


def cli_flags(args: argparse.Namespace, workload: str) -> list[str]:
    """The command's flags for workload: the group-by's key flags only for W1 and W2 (the command
    refuses a flag its workload would ignore)."""
    keys = ["--groups", str(args.groups), "--dataset", args.dataset] if workload in ("w1", "w2") else []
    return [workload, "--records", str(args.records), *keys, "--threads", str(args.threads), "--seed", "1"]


def run_cli(args: argparse.Namespace, workload: str, data: Path) -> dict:
    """Writes the workload's .npy files, then times classic and smart; returns the JSON document."""
    subprocess.run([args.cli, "bench", "workload", *cli_flags(args, workload), "--write-npy", str(data)],
                   check=True, stdout=subprocess.DEVNULL)
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([args.cli, "bench", "workload", *cli_flags(args, workload), "--impl", args.impl,
                        "--repetitions", str(args.repetitions), "--warmup", str(args.warmup), "--json", out.name, "--quiet"],
                       check=True, stdout=subprocess.DEVNULL)
        return json.loads(Path(out.name).read_text())


def table_bytes(con: duckdb.DuckDBPyConnection) -> int:
    return int(con.execute("SELECT sum(memory_usage_bytes) FROM duckdb_memory() WHERE tag = 'IN_MEMORY_TABLE'").fetchone()[0] or 0)


def run_duckdb(args: argparse.Namespace, workload: str, data: Path, expected: dict) -> dict:
    """Loads the .npy files into DuckDB tables (and the index for W4), times the query, checks it."""
    con = duckdb.connect()
    con.execute(f"SET threads = {args.threads}")
    if workload in ("w1", "w2"):
        records = {"key": np.load(data / "keys.npy"), "val": np.load(data / "values.npy")}  # noqa: F841 (scanned by name)
        con.execute("CREATE TABLE records AS SELECT * FROM records")
        del records
    else:
        build = {"key": np.load(data / "build.npy")}  # noqa: F841
        probe = {"fkey": np.load(data / "probe.npy")}  # noqa: F841
        con.execute("CREATE TABLE r AS SELECT * FROM build")
        con.execute("CREATE TABLE s AS SELECT * FROM probe")
        del build, probe
    prepare = 0.0
    if workload == "w4":
        start = time.perf_counter()
        con.execute("CREATE INDEX idx_key ON r (key)")
        prepare = time.perf_counter() - start
    query = QUERIES[workload]
    result: dict = {}

    def run() -> None:
        result["rows"] = con.execute(query).fetchnumpy()

    with PeakMemory() as memory:
        stats = timing(run, args.repetitions)
    rows = result["rows"]
    if workload in ("w1", "w2"):
        found = (len(rows["key"]), group_checksum(rows["key"], rows["agg"]))
        wanted = (expected["groups"], expected["checksum"])
    else:
        found, wanted = int(next(iter(rows.values()))[0]), expected["checksum"]
    if found != wanted:
        raise SystemExit(f"DuckDB's {workload} result {found} differs from the command's {wanted}")
    return {"implementation": "duckdb", **stats, "prepare_s": prepare, "data_bytes": table_bytes(con),
            "peak_extra_bytes": memory.grown, "structure_bytes": 0}


def ratio(value: float) -> str:
    """value as '1.23x', or '-' when there is nothing to compare with (NaN)."""
    return "-" if value != value else f"{value:.2f}x"


def print_table(rows: list[dict]) -> None:
    print(f"{'workload':8}  {'impl':7}  {'median s':>9}  {'spread':>6}  {'data MB':>8}  {'peak extra MB':>13}  "
          f"{'vs DuckDB':>9}  {'vs classic':>10}")
    for row in rows:
        print(f"{row['workload']:8}  {row['implementation']:7}  {row['median_s']:9.3f}  {row['spread'] * 100:5.1f}%  "
              f"{row['data_bytes'] / 1e6:8.1f}  {row['peak_extra_bytes'] / 1e6:13.1f}  "
              f"{row['speedup_vs_duckdb']:8.2f}x  {ratio(row['speedup_vs_classic']):>10}")


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    workloads = sorted({r["workload"] for r in rows})
    impls = ["classic", "smart", "duckdb"]
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for i, impl in enumerate(impls):
        times = [next((r["median_s"] for r in rows if r["workload"] == w and r["implementation"] == impl), 0) for w in workloads]
        ax.bar([j + (i - 1) * 0.27 for j in range(len(workloads))], times, width=0.27, label=impl)
    ax.set_xticks(range(len(workloads)), [w.upper() for w in workloads])
    ax.set_yscale("log")
    ax.set_ylabel("median seconds (log)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default="build/bin/smartarrays", help="the smartarrays command")
    parser.add_argument("--out", type=Path, default=Path("build/bench-results"), help="JSON and figure directory")
    parser.add_argument("--data", type=Path, default=None, help=".npy directory (default: a temporary one)")
    parser.add_argument("--workloads", default="w1,w2,w3,w4")
    parser.add_argument("--impl", default="classic,smart", help="the command's implementations")
    parser.add_argument("--dataset", default="heavy_hitter")
    parser.add_argument("--records", default="16M", help="W1/W2 records, W3/W4 |S| (K, M, G suffixes)")
    parser.add_argument("--groups", default="64K")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repetitions", type=int, default=3, help="timed runs per implementation")
    parser.add_argument("--warmup", type=int, default=1, help="the command's untimed runs first (DuckDB always has one)")
    args = parser.parse_args()
    rows: list[dict] = []
    with tempfile.TemporaryDirectory() as scratch:
        for workload in args.workloads.split(","):
            data = (args.data or Path(scratch)) / workload
            print(f"== {workload}: generating, running classic and smart, then DuckDB", file=sys.stderr)
            document = run_cli(args, workload, data)
            results = document["results"]
            duck = run_duckdb(args, workload, data, results[-1])
            for r in [*results, duck]:
                rows.append({"workload": workload, **r})
            classic = next((r["median_s"] for r in results if r["implementation"] == "classic"), float("nan"))
            for row in rows[-len(results) - 1:]:
                row["speedup_vs_duckdb"] = duck["median_s"] / row["median_s"]
                row["speedup_vs_classic"] = classic / row["median_s"]
            if args.data is None:
                for f in data.glob("*.npy"):
                    f.unlink()
    print(f"\nanalytics workloads: {args.dataset}, records {args.records}, groups {args.groups}, "
          f"{args.threads} threads, duckdb {duckdb.__version__}\n")
    print_table(rows)
    config = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
    path = write_document(args.out, "bench-workloads", {
        "format": "smartarrays.bench.workloads/1", "machine": machine_facts(duckdb=duckdb.__version__),
        "config": config, "queries": QUERIES, "results": rows})
    figure = path.with_suffix(".png")
    plot(rows, figure)
    print(f"\nresults: {path}\nfigure: {figure}")


if __name__ == "__main__":
    main()
