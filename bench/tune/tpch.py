#!/usr/bin/env python3
"""W5 of the NUMA analytics study: the 22 TPC-H queries on DuckDB (PyPI `duckdb`, in this process)
and PostgreSQL (Debian `postgresql`, a real server this script starts in a temporary directory:
initdb, a Unix socket only, the server launched under `smartarrays run` so the tuning knobs apply to
it, loaded with COPY, queried with psql, and stopped whatever happens). Data from `tpchgen-cli`
(PyPI). Prints one line per query (rows, seconds) and `total: X s` per database, which
`smartarrays tune --metric 'total ([0-9.]+) s'` reads. --check runs both databases and fails unless
they return the same number of rows for every query. Exits 77 when a tool is missing (named).

usage: tpch.py --scale SF [--databases duckdb,postgres] [--run-flags FLAGS] [--check] [--json FILE]
"""
import argparse
import glob
import json
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TABLES = ["region", "nation", "part", "supplier", "partsupp", "customer", "orders", "lineitem"]
MISSING = 77  # ctest's SKIP_RETURN_CODE


def missing(what):
    """Ends the script as skipped (77), naming what is missing."""
    print(f"tpch: skipped: {what}", file=sys.stderr)
    sys.exit(MISSING)


def queries():
    """The 22 queries of queries.sql, in order."""
    with open(os.path.join(HERE, "tpch", "queries.sql"), encoding="utf-8") as f:
        parts = re.split(r"^-- query (\d+)\n", f.read(), flags=re.M)
    found = {int(parts[i]): parts[i + 1].strip().rstrip(";") for i in range(1, len(parts), 2)}
    assert sorted(found) == list(range(1, 23)), "queries.sql must hold queries 1..22"
    return [found[n] for n in range(1, 23)]


def generate(scale, work):
    """The CSV files of every table at scale, made once per scale under work."""
    out = os.path.join(work, f"sf{scale}")
    if all(os.path.exists(os.path.join(out, f"{t}.csv")) for t in TABLES):
        return out
    tool = shutil.which("tpchgen-cli", path=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    if tool is None:
        missing("tpchgen-cli not found (pip install tpchgen-cli into the project's .venv)")
    subprocess.run([tool, "csv", "-s", str(scale), f"--output-dir={out}"], check=True, stdout=subprocess.DEVNULL)
    return out


def run_duckdb(data, sqls):
    """(rows, seconds) of every query on an in-memory DuckDB loaded from the CSV files in data."""
    try:
        import duckdb
    except ImportError:
        missing("the duckdb module (pip install duckdb into the project's .venv)")
    con = duckdb.connect()
    with open(os.path.join(HERE, "tpch", "schema.sql"), encoding="utf-8") as f:
        con.execute(f.read())
    for t in TABLES:
        con.execute(f"COPY {t} FROM '{os.path.join(data, t + '.csv')}' (FORMAT csv, HEADER true)")
    results = []
    for sql in sqls:
        start = time.perf_counter()
        rows = len(con.execute(sql).fetchall())
        results.append((rows, time.perf_counter() - start))
    return results


class PostgresServer:
    """A PostgreSQL server in a temporary directory on a Unix socket, started under `smartarrays run`
    and always stopped (also on Ctrl-C and SIGTERM, which this script turns into an exception)."""

    def __init__(self, cli, run_flags):
        # Debian keeps the server outside PATH, one directory per major version: the newest wins.
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"), key=lambda p: int(p.split("/")[4]))
        bindir = os.path.dirname(found[-1]) if found else None
        if bindir is None and shutil.which("postgres"):
            bindir = os.path.dirname(shutil.which("postgres"))
        self.bin = lambda name: os.path.join(bindir, name) if bindir else shutil.which(name)
        if not bindir or not os.path.exists(self.bin("postgres")):
            missing("PostgreSQL server binaries (apt-get install postgresql)")
        self.cli, self.run_flags = cli, run_flags
        # The server refuses to run as root: then it runs as the postgres user the package made.
        self.as_user = []
        if os.geteuid() == 0:
            try:
                pw = pwd.getpwnam("postgres")
            except KeyError:
                missing("running as root and no 'postgres' user to run the server as")
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self.dir = tempfile.mkdtemp(prefix="smartarrays-tpch-pg-")
        os.chmod(self.dir, 0o755)
        if self.as_user:
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
        self.data, self.socket, self.port, self.server = os.path.join(self.dir, "data"), self.dir, "54329", None

    def __enter__(self):
        subprocess.run(self.as_user + [self.bin("initdb"), "-D", self.data, "-A", "trust", "-U", "postgres", "--no-sync"],
                       check=True, stdout=subprocess.DEVNULL)
        command = [self.cli, "run"] + self.run_flags.split() + ["--", self.bin("postgres"), "-D", self.data, "-k",
                                                                 self.socket, "-p", self.port, "-c", "listen_addresses=",
                                                                 "-c", "fsync=off", "-c", "max_parallel_workers_per_gather=2"]
        self.server = subprocess.Popen(self.as_user + command, stdout=subprocess.DEVNULL,
                                       stderr=open(os.path.join(self.dir, "server.log"), "w"))
        for _ in range(300):
            if subprocess.run([self.bin("pg_isready"), "-q", "-h", self.socket, "-p", self.port]).returncode == 0:
                return self
            if self.server.poll() is not None:
                raise RuntimeError(f"the PostgreSQL server exited with {self.server.returncode}")
            time.sleep(0.1)
        raise RuntimeError("the PostgreSQL server did not come up within 30 s")

    def psql(self, *args):
        """psql's stdout for args against the server; raises CalledProcessError on an SQL error."""
        return subprocess.run(self.as_user + [self.bin("psql"), "-X", "-q", "-h", self.socket, "-p", self.port, "-U",
                                              "postgres", "-d", "postgres", "-v", "ON_ERROR_STOP=1"] + list(args),
                              check=True, capture_output=True, text=True).stdout

    def __exit__(self, *exc):
        if self.server is not None and self.server.poll() is None:
            subprocess.run(self.as_user + [self.bin("pg_ctl"), "-D", self.data, "-m", "immediate", "stop"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                self.server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.server.kill()
                self.server.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def run_postgres(data, sqls, cli, run_flags):
    """(rows, seconds) of every query on a fresh PostgreSQL server started with `smartarrays run run_flags`."""
    with PostgresServer(cli, run_flags) as pg:
        pg.psql("-f", os.path.join(HERE, "tpch", "schema.sql"))
        for t in TABLES:
            pg.psql("-c", f"\\copy {t} from '{os.path.join(data, t + '.csv')}' with (format csv, header true)")
        pg.psql("-f", os.path.join(HERE, "tpch", "indexes.sql"))
        results = []
        for sql in sqls:
            start = time.perf_counter()
            out = pg.psql("-A", "-t", "-P", "null=NULL", "-c", sql)
            results.append((len([line for line in out.split("\n") if line]), time.perf_counter() - start))
        return results


def main():
    """Generates the data, runs the queries on each database, prints and checks the results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="TPC-H scale factor (default 1)")
    parser.add_argument("--databases", default="duckdb,postgres", help="duckdb, postgres or both (default)")
    parser.add_argument("--run-flags", default="", help="smartarrays run flags for the PostgreSQL server")
    parser.add_argument("--cli", default=os.path.join(HERE, "..", "..", "build", "bin", "smartarrays"),
                        help="the smartarrays command (default build/bin/smartarrays)")
    parser.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "smartarrays-tpch"),
                        help="where generated data is kept between runs")
    parser.add_argument("--check", action="store_true", help="fail unless both databases agree on every row count")
    parser.add_argument("--json", help="write the per-query rows and seconds as JSON")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # unwinds, so the server is stopped
    databases = args.databases.split(",")
    if args.check:
        databases = ["duckdb", "postgres"]
    sqls = queries()
    data = generate(args.scale, args.work)
    results = {}
    for db in databases:
        if db == "duckdb":
            results[db] = run_duckdb(data, sqls)
        elif db == "postgres":
            results[db] = run_postgres(data, sqls, os.path.abspath(args.cli), args.run_flags)
        else:
            parser.error(f"--databases: unknown database {db!r} (expected duckdb, postgres)")
        for n, (rows, seconds) in enumerate(results[db], 1):
            print(f"{db} query {n}: {rows} rows in {seconds:.4f} s")
        print(f"{db} total {sum(s for _, s in results[db]):.4f} s")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"format": "smartarrays.tpch/1", "scale": args.scale,
                       "results": {db: [{"query": n, "rows": r, "seconds": s} for n, (r, s) in enumerate(res, 1)]
                                   for db, res in results.items()}}, f, indent=1)
    if args.check:
        differ = [n for n, (a, b) in enumerate(zip(results["duckdb"], results["postgres"]), 1) if a[0] != b[0]]
        if differ:
            print(f"tpch: row counts differ for queries {differ}", file=sys.stderr)
            return 1
        print("tpch: DuckDB and PostgreSQL return the same row count for all 22 queries")
    return 0


if __name__ == "__main__":
    sys.exit(main())
