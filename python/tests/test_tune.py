"""smartarrays.tune: one command under the knobs of `smartarrays run`, and the grid search of
`smartarrays tune` with the same records, ranking, failures, errors and JSON report as the command;
Ctrl-C raises KeyboardInterrupt after killing the running child."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import smartarrays as sa
from smartarrays import tune

# Prints time=N with N the thread count the knob exports (8 when unset), so every configuration of
# a threads grid has a value of its own.
BY_THREADS = ["/bin/sh", "-c", "echo time=${OPENBLAS_NUM_THREADS:-8}"]
SMALL = {"allocators": [], "policies": [], "pinnings": [], "thp": [], "warmup": 0, "repetitions": 2}


@pytest.fixture(autouse=True)
def no_thread_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)


def test_run_applies_the_knobs_and_returns_how_the_command_ended():
    r = tune.run(["/bin/sh", "-c", "echo $OPENBLAS_NUM_THREADS; grep Cpus_allowed_list /proc/self/status; exit 3"],
                 pinning="dense", threads=1, thp=False)
    assert r.exit_code == 3 and r.signal is None and not r.succeeded and not r.timed_out
    lines = r.stdout.splitlines()
    assert lines[0] == "1"
    assert lines[1].split(":")[1].strip() == str(sa.topology().nodes[0].cpus[0])
    assert r.seconds > 0 and r.cpu_seconds >= 0 and r.max_rss_kib > 0 and r.minor_faults > 0
    ok = tune.run("true", allocator="jemalloc", policy="interleave")
    assert ok.succeeded and ok.exit_code == 0 and ok.stdout == ""


def test_run_keeps_the_last_64_mib_of_an_endless_output():
    # Before, the whole output was held: `yes` for 8 s made the process hold gigabytes.
    r = tune.run(["/bin/sh", "-c", "head -c 100000000 /dev/zero | tr '\\0' x; echo; echo end"], timeout=60)
    assert r.exit_code == 0
    assert len(r.stdout) == 64 << 20
    assert r.stdout_dropped == 100_000_000 + 5 - (64 << 20)
    assert r.stdout.endswith("x\nend\n")
    small = tune.run(["/bin/sh", "-c", "echo hi"])
    assert (small.stdout, small.stdout_dropped) == ("hi\n", 0)


def test_run_reports_signals_and_timeouts():
    killed = tune.run(["/bin/sh", "-c", "kill -SEGV $$"])
    assert killed.signal == signal.SIGSEGV and killed.exit_code is None
    slow = tune.run(["sleep", "30"], timeout=0.2)
    assert slow.timed_out and slow.exit_code is None and slow.signal is None


def test_run_refuses_bad_knobs_and_a_missing_program():
    with pytest.raises(ValueError, match="allocator: unknown allocator 'hoard'"):
        tune.run("true", allocator="hoard")
    with pytest.raises(ValueError, match="policy: memory policy 'preferred'"):
        tune.run("true", policy="preferred")
    with pytest.raises(ValueError, match="pinning: unknown pinning policy 'wide'"):
        tune.run("true", pinning="wide")
    with pytest.raises(ValueError, match="exclude each other"):
        tune.run("true", cpus=[0], pinning="sparse")
    with pytest.raises(ValueError, match="threads: expected a whole number from 1 to 4096"):
        tune.run("true", threads=0)
    with pytest.raises(ValueError, match="thp: expected True/False or 'on'/'off'"):
        tune.run("true", thp="maybe")
    with pytest.raises(ValueError, match="command: no command to run"):
        tune.run([])
    with pytest.raises(ValueError, match="command: argument 1 contains a NUL byte"):
        tune.run(["echo", "a\0b"])
    with pytest.raises(TypeError):
        tune.run(["true", 3])  # type: ignore[list-item]
    with pytest.raises(OSError, match="cannot run '/nonexistent/program': No such file or directory"):
        tune.run("/nonexistent/program")


@pytest.mark.parametrize("allocator", ["jemalloc", "tcmalloc", "mimalloc", "tbbmalloc"])
def test_an_allocator_runs_or_names_its_debian_package(allocator: str):
    try:
        assert tune.run("true", allocator=allocator).succeeded
    except NotImplementedError as e:
        assert f"{allocator} needs the Debian package" in str(e)
    try:
        tune.grid("true", allocators=[allocator], **{k: v for k, v in SMALL.items() if k != "allocators"})
    except NotImplementedError as e:
        assert str(e).startswith("allocators: ") and "Debian package" in str(e)


def test_grid_ranks_by_the_metric_with_the_best_as_a_run_line():
    seen: list[dict[str, object]] = []
    r = tune.grid(BY_THREADS, threads=[1, 2, 4], metric="time=([0-9.]+)", progress=seen.append, **SMALL)
    assert [rec["label"] for rec in r.records] == [
        "glibc inherited threads=1",
        "glibc inherited threads=2",
        "glibc inherited threads=4",
        "default (glibc, nothing changed)",
    ]
    assert r.best is r.records[0] and r.best["values"] == [1.0, 1.0]
    assert r.gain == 8.0
    assert r.command_line == "smartarrays run --threads 1 -- /bin/sh -c 'echo time=${OPENBLAS_NUM_THREADS:-8}'"
    assert not r.cut_by_budget
    assert [step["done"] for step in seen] == list(range(1, 9))
    assert all(step["total"] == 8 and step["seconds_left"] is not None for step in seen)
    assert seen[-1]["seconds_left"] == 0.0


def test_to_json_is_the_commands_report(cli: Path, tmp_path: Path):
    r = tune.grid(BY_THREADS, threads=[2], metric="time=([0-9.]+)", **SMALL)
    doc = json.loads(r.to_json())
    assert doc == r.document and doc["configurations"] == r.records
    out = tmp_path / "tune.json"
    subprocess.run([str(cli), "tune", "--quiet", "--warmup", "0", "--repetitions", "2", "--allocators", "glibc",
                    "--policies", "first-touch", "--pinnings", "none", "--thp", "on", "--threads", "2", "--metric",
                    "time=([0-9.]+)", "--json", str(out), "--", *BY_THREADS], check=True, stdout=subprocess.DEVNULL)
    command = json.loads(out.read_text())

    def shape(value: object) -> object:
        if isinstance(value, dict):
            return {k: shape(v) for k, v in value.items()}
        if isinstance(value, list):
            return [shape(v) for v in value[:1]]
        return type(value).__name__

    assert list(doc) == list(command)
    assert shape(doc["configurations"][0]) == shape(command["configurations"][0])
    assert shape(doc["system"]) == shape(command["system"])


def test_failures_are_records_and_a_metric_that_never_matches_leaves_no_best():
    r = tune.grid(["/bin/sh", "-c", "echo nothing"], threads=[1], metric="time=([0-9.]+)", **SMALL)
    assert r.best is None and r.gain is None and r.command_line is None
    assert {rec["failure"] for rec in r.records} == {"no metric: no finite number in stdout matches 'time=([0-9.]+)'"}
    # nan and inf are matched text but no value: they once made a run succeed with None values.
    for word in ("nan", "inf"):
        r = tune.grid(["/bin/sh", "-c", f"echo time {word}"], threads=[1], metric="time ([a-z0-9.]+)", **SMALL)
        assert r.best is None and r.command_line is None
        assert {rec["failure"] for rec in r.records} == {"no metric: no finite number in stdout matches 'time ([a-z0-9.]+)'"}
    failing = tune.grid(["/bin/sh", "-c", 'test "$OPENBLAS_NUM_THREADS" != 2 || exit 3'], threads=[1, 2], **SMALL)
    assert failing.records[-1]["label"] == "glibc inherited threads=2" and failing.records[-1]["failure"] == "exit 3"
    with pytest.raises(ValueError, match=r"the command fails without any knob \(warm-up\): exit 4"):
        tune.grid(["/bin/sh", "-c", "exit 4"], threads=[1], **{**SMALL, "warmup": 1})


def test_a_budget_keeps_the_default_alone_when_a_run_does_not_fit():
    r = tune.grid(["sleep", "0.05"], allocators=["glibc", "tbbmalloc"], policies=[], pinnings=[], thp=[True, False],
                  budget=0.01, repetitions=2)
    assert r.cut_by_budget
    assert [rec["label"] for rec in r.records] == ["default (glibc, nothing changed)"]


def test_grid_refuses_bad_arguments_naming_them():
    cases = [
        ({"allocators": ["hoard"]}, ValueError, "allocators: unknown allocator 'hoard'"),
        ({"policies": ["bind=7"]}, ValueError, "policies: "),
        ({"pinnings": ["wide"]}, ValueError, "pinnings: unknown pinning policy 'wide'"),
        ({"thp": ["maybe"]}, ValueError, "thp: expected True/False"),
        ({"threads": [5000]}, ValueError, "threads: expected thread counts from 1 to 4096"),
        ({"threads": [1, 2, 1]}, ValueError, "threads: lists 1 twice"),
        ({"allocators": ["glibc", "jemalloc", "glibc"]}, ValueError, "allocators: lists glibc twice"),
        ({"policies": ["interleave=0", "interleave=0-0"]}, ValueError, "policies: lists interleave=0 twice"),
        ({"pinnings": ["dense", "dense"]}, ValueError, "pinnings: lists dense twice"),
        ({"thp": [True, True]}, ValueError, "thp: lists on twice"),
        ({"repetitions": 0}, ValueError, "repetitions: expected a whole number from 1 to 1000"),
        ({"repetitions": 10**30}, ValueError, "repetitions: expected a whole number from 1 to 1000"),
        ({"warmup": -1}, ValueError, "warmup: expected a whole number from 0 to 100"),
        ({"metric": "("}, ValueError, r"metric: '\(' is not a regular expression"),
        ({"metric": "x", "cpu_time": True}, ValueError, "cpu_time and metric exclude each other"),
        ({"maximize": True}, ValueError, r"maximize applies only with metric \(wall and CPU times are better smaller\)"),
        ({"timeout": -1}, ValueError, r"timeout: expected 0 \(no limit\) to 10000000 seconds"),
        ({"timeout": float("nan")}, ValueError, "timeout: expected"),
        ({"budget": float("inf")}, ValueError, "budget: expected 0 or more seconds"),
        ({"seed": -1}, ValueError, "seed: expected"),
        ({"repetitions": 1.5}, TypeError, "repetitions must be an int"),
        ({"progress": 3}, TypeError, "progress must be callable"),
    ]
    for kwargs, error, message in cases:
        with pytest.raises(error, match=message):
            tune.grid("true", **{**SMALL, **kwargs})
    with pytest.raises(ValueError, match="command: no command to run"):
        tune.grid([], **SMALL)
    with pytest.raises(ValueError, match="command: argument 0 contains a NUL byte"):
        tune.grid(["tr\0ue"], **SMALL)


def test_a_progress_callback_that_raises_stops_the_grid():
    def stop(step: dict[str, object]) -> None:
        if step["done"] == 2:
            raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough"):
        tune.grid(BY_THREADS, threads=[1, 2], progress=stop, **SMALL)


CHILD = """
import os, sys
from smartarrays import tune
marker, pid_file = sys.argv[1], sys.argv[2]
try:
    tune.grid(["/bin/sh", "-c", f"echo $$ > {pid_file}; touch {marker}; exec sleep 60"], allocators=[], policies=[],
              pinnings=[], thp=[], warmup=0, repetitions=1)
except KeyboardInterrupt:
    # The command runs under the launcher (docs/tune.md): killed with its process group, it is reaped
    # by init, not by this process, so it is gone or a zombie within moments, never still running.
    import time
    pid = int(open(pid_file).read())
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            state = "gone"
        if state in ("gone", "Z", "X"):
            print("interrupted", flush=True)
            sys.exit(0)
        time.sleep(0.01)
    print("child alive", flush=True)
    sys.exit(0)
print("finished", flush=True)
"""


def test_ctrl_c_raises_keyboard_interrupt_and_kills_the_running_child(tmp_path: Path):
    # The marker appears once the grid's child runs; SIGINT then reaches the Python process only
    # (the child has its own process group), whose interrupt check stops the grid.
    marker, pid_file = tmp_path / "started", tmp_path / "pid"
    # SIGINT back to its default in the child (see test_hostile: an ignored SIGINT is inherited).
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(marker), str(pid_file)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while not marker.exists() and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert marker.exists(), child.communicate()
    os.kill(child.pid, signal.SIGINT)
    out, err = child.communicate(timeout=60)
    assert out.strip() == "interrupted", err
