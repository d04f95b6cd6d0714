#!/usr/bin/env python3
"""The store's hostile suite (docs/compact-format.md): many rounds of what a careless or hostile
user does to a store file, each checked through the `smartarrays` command, the project's own reader.

Classes (each round starts from a fresh store of one graph):
  concurrent  4 processes append one graph each at the same moment: every object present, the store
              verifies (--deep);
  crash       an append killed (SIGKILL) after a random delay: the store opens with its old objects
              or with the new one too, verifies, and the next append succeeds;
  truncated   the store cut to a random length while `graph pagerank` runs over it mapped: the run
              ends with exit 0 or 1 (an error naming the file), never a signal or a hang;
  rewritten   random bytes written over a random block while `graph pagerank` runs mapped: exit 0 or
              1, never a signal or a hang;
  full        (root only) appends to a store on a small tmpfs until it is full: each refused append
              exits 1 with "no room", and the store keeps every object it committed.

Prints a table and writes JSON (format smartarrays.fuzz.store_hostile/1). Exits 1 when any round
lost an object, left a store unreadable, ended a process with a signal or left one hanging.
  fuzz/store_hostile.py --cli build/bin/smartarrays --rounds 1000 --out build/bench-results
"""
import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

CLASSES = ("concurrent", "crash", "truncated", "rewritten", "full")
# A reader of a changed file that runs this long (200 iterations of a 2^14-vertex graph take about a
# second) is a hang: a traversal the change sent round bad offsets.
HANG_SECONDS = 60


class Suite:
    """Runs the command in a scratch folder and keeps the tally of every class."""

    def __init__(self, cli, folder, seed):
        self.cli = cli
        self.folder = folder
        self.rng = random.Random(seed)
        self.tally = {c: {"rounds": 0, "lost_objects": 0, "unreadable": 0, "signals": 0, "hangs": 0, "skipped": ""}
                      for c in CLASSES}
        self.findings = []

    def path(self, name):
        return os.path.join(self.folder, name)

    def run(self, *args, check=True):
        done = subprocess.run([self.cli, *args], capture_output=True, text=True)
        if check and done.returncode != 0:
            raise RuntimeError(f"smartarrays {' '.join(args)}: exit {done.returncode}: {done.stderr.strip()}")
        return done

    def start(self, *args):
        return subprocess.Popen([self.cli, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

    def finding(self, kind, message):
        self.findings.append({"class": kind, "message": message})

    def objects(self, store):
        """The store's object names, or None when the command cannot read it."""
        done = self.run("store", "list", store, "--json", check=False)
        if done.returncode != 0:
            return None
        return [o["name"] for o in json.loads(done.stdout)["objects"]]

    def readable(self, kind, store):
        names = self.objects(store)
        verified = self.run("store", "verify", store, "--deep", check=False)
        if names is None or verified.returncode != 0:
            self.tally[kind]["unreadable"] += 1
            self.finding(kind, f"{store}: unreadable: {verified.stderr.strip() or verified.stdout.strip()}")
            return None
        return names

    def signalled(self, kind, code, stderr):
        if code < 0:
            self.tally[kind]["signals"] += 1
            self.finding(kind, f"ended by signal {-code}: {stderr.strip()}")

    def fresh_store(self, name, scale=8):
        store = self.path(name)
        if os.path.exists(store):
            os.remove(store)
        self.run("graph", "generate", "--scale", str(scale), "--output", store, "--quiet",
                 "--seed", str(self.rng.randrange(1 << 30)))
        return store

    def round_concurrent(self, edges):
        store = self.fresh_store("concurrent.sa")
        names = [f"p{p}" for p in range(4)]
        writers = [self.start("store", "append", store, edges, "--name", n) for n in names]
        for w in writers:
            _, err = w.communicate()
            self.signalled("concurrent", w.returncode, err)
            if w.returncode != 0:
                self.finding("concurrent", f"an append failed: {err.strip()}")
        found = self.readable("concurrent", store)
        if found is not None:
            lost = [n for n in ["graph", *names] if n not in found]
            self.tally["concurrent"]["lost_objects"] += len(lost)
            if lost:
                self.finding("concurrent", f"lost {lost}")

    def round_crash(self, big_edges):
        store = self.fresh_store("crash.sa")
        writer = self.start("store", "append", store, big_edges, "--name", "big")
        time.sleep(self.rng.uniform(0, 0.08))
        writer.send_signal(signal.SIGKILL)
        writer.communicate()
        found = self.readable("crash", store)
        if found is None:
            return
        if "graph" not in found:
            self.tally["crash"]["lost_objects"] += 1
            self.finding("crash", f"the committed graph is gone: {found}")
        done = self.run("store", "append", store, big_edges, "--name", "after", check=False)
        if done.returncode != 0 or self.readable("crash", store) is None:
            self.tally["crash"]["unreadable"] += 1
            self.finding("crash", f"the next append failed: {done.stderr.strip()}")

    def changed_under_pagerank(self, kind, change):
        store = self.fresh_store(f"{kind}.sa", scale=14)
        reader = self.start("graph", "pagerank", store, "--max-iterations", "200", "--tolerance", "0")
        time.sleep(self.rng.uniform(0.02, 0.25))
        change(store)
        try:
            _, err = reader.communicate(timeout=HANG_SECONDS)
        except subprocess.TimeoutExpired:
            reader.kill()
            reader.communicate()
            self.tally[kind]["hangs"] += 1
            self.finding(kind, f"graph pagerank still ran {HANG_SECONDS} s after the file changed (killed)")
            return
        self.signalled(kind, reader.returncode, err)
        if reader.returncode not in (0, 1, None) and reader.returncode > 0:
            self.finding(kind, f"exit {reader.returncode}: {err.strip()}")

    def round_truncated(self):
        def cut(store):
            os.truncate(store, self.rng.randrange(os.path.getsize(store)))
        self.changed_under_pagerank("truncated", cut)

    def round_rewritten(self):
        def scribble(store):
            size = os.path.getsize(store)
            with open(store, "r+b") as f:
                at = self.rng.randrange(4096, max(4097, size - 4096))
                f.seek(at)
                f.write(os.urandom(self.rng.randrange(8, 1 << 16)))
        self.changed_under_pagerank("rewritten", scribble)

    def round_full(self, edges, mount):
        store = os.path.join(mount, "full.sa")
        self.run("graph", "generate", "--scale", "8", "--output", store, "--quiet")
        committed = ["graph"]
        for k in range(64):
            done = self.run("store", "append", store, edges, "--name", f"g{k}", check=False)
            self.signalled("full", done.returncode, done.stderr)
            if done.returncode == 0:
                committed.append(f"g{k}")
                continue
            if "no room" not in done.stderr and "No space left" not in done.stderr:
                self.finding("full", f"an append failed without naming the full disk: {done.stderr.strip()}")
            break
        found = self.readable("full", store)
        if found is not None:
            lost = [n for n in committed if n not in found]
            self.tally["full"]["lost_objects"] += len(lost)
        os.remove(store)


def mount_tmpfs(folder):
    mount = os.path.join(folder, "tmpfs")
    os.makedirs(mount, exist_ok=True)
    if os.geteuid() != 0:
        return None, "needs root to mount a tmpfs"
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", mount], capture_output=True, text=True)
    if done.returncode != 0:
        return None, f"cannot mount a tmpfs: {done.stderr.strip()}"
    return mount, ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     epilog="Classes: " + ", ".join(CLASSES) + ". See docs/compact-format.md.")
    parser.add_argument("--cli", required=True, help="the smartarrays command to run")
    parser.add_argument("--rounds", type=int, default=1000, help="rounds of each class (default 1000)")
    parser.add_argument("--classes", default=",".join(CLASSES), help="comma-separated classes to run (default all)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--out", help="folder for the JSON report")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    classes = [c for c in args.classes.split(",") if c]
    unknown = [c for c in classes if c not in CLASSES]
    if unknown:
        parser.error(f"unknown classes {unknown}; choose from {', '.join(CLASSES)}")
    if not os.access(args.cli, os.X_OK):
        parser.error(f"--cli {args.cli} is not an executable (run make build first)")
    folder = tempfile.mkdtemp(prefix="sa-store-hostile-")
    suite = Suite(os.path.abspath(args.cli), folder, args.seed)
    mount = None
    started = time.time()
    try:
        edges = suite.path("small.el")
        big_edges = suite.path("big.el")
        suite.run("graph", "generate", "--scale", "8", "--output", edges, "--quiet")
        suite.run("graph", "generate", "--scale", "16", "--output", big_edges, "--quiet")
        if "full" in classes:
            mount, why = mount_tmpfs(folder)
            if mount is None:
                suite.tally["full"]["skipped"] = why
        for r in range(args.rounds):
            for kind in classes:
                if kind == "full" and mount is None:
                    continue
                suite.tally[kind]["rounds"] += 1
                if kind == "concurrent":
                    suite.round_concurrent(edges)
                elif kind == "crash":
                    suite.round_crash(big_edges)
                elif kind == "truncated":
                    suite.round_truncated()
                elif kind == "rewritten":
                    suite.round_rewritten()
                else:
                    suite.round_full(edges, mount)
            if (r + 1) % 50 == 0:
                print(f"store_hostile: {r + 1}/{args.rounds} rounds, {len(suite.findings)} findings", file=sys.stderr)
    except KeyboardInterrupt:
        print("store_hostile: interrupted; the table covers the rounds run", file=sys.stderr)
    finally:
        if mount is not None:
            subprocess.run(["umount", mount], check=False)
        shutil.rmtree(folder, ignore_errors=True)
    print(f"{'class':<11} {'rounds':>7} {'lost objects':>13} {'unreadable':>11} {'signals':>8} {'hangs':>6}")
    for kind in classes:
        t = suite.tally[kind]
        note = f"  (skipped: {t['skipped']})" if t["skipped"] else ""
        print(f"{kind:<11} {t['rounds']:>7} {t['lost_objects']:>13} {t['unreadable']:>11} {t['signals']:>8} {t['hangs']:>6}{note}")
    for f in suite.findings[:20]:
        print(f"finding [{f['class']}]: {f['message']}")
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        report = {"format": "smartarrays.fuzz.store_hostile/1", "seed": args.seed, "seconds": time.time() - started,
                  "classes": {k: suite.tally[k] for k in classes}, "findings": suite.findings}
        with open(os.path.join(args.out, "store-hostile.json"), "w") as f:
            json.dump(report, f, indent=2)
    bad = any(suite.tally[k]["lost_objects"] or suite.tally[k]["unreadable"] or suite.tally[k]["signals"] or suite.tally[k]["hangs"]
              for k in classes)
    sys.exit(1 if bad or suite.findings else 0)


if __name__ == "__main__":
    main()
