"""The NUMA tuning tool of ``smartarrays run`` and ``smartarrays tune`` from Python (docs/tune.md).

A thin layer over the C++ core's tune layer: ``run`` launches a command once under the knobs
(allocator, memory policy, CPU set, thread count, THP) exactly as ``smartarrays run`` does, and
``grid`` is the grid search of ``smartarrays tune`` — the same configurations, run order, failures,
ranking and JSON report (schema ``smartarrays.tune/1``). Children run with the GIL released; Ctrl-C
raises KeyboardInterrupt after killing the running child (and restoring AutoNUMA when a grid changed
it). Errors are the core's: a bad name is a ValueError naming it, an allocator whose Debian package
is missing a NotImplementedError naming the package.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Union

import numpy as np

from . import _core
from ._args import flag, is_integer, real_number, word

__all__ = ["RunResult", "TuneResult", "grid", "run"]

Command = Union[str, Sequence[str]]
"""A program (searched in PATH) and its arguments; a lone string is the program, as in subprocess."""


@dataclass(frozen=True)
class RunResult:
    """How one run of a command ended and what it cost (``wait4``'s resource usage)."""

    exit_code: int | None
    """The exit status; None when a signal ended it or it timed out."""
    signal: int | None
    """The signal that ended it; None when it exited (or timed out: its process group is killed)."""
    seconds: float
    """Wall time from start to exit."""
    cpu_seconds: float
    """User + system CPU time of the command and the children it waited for."""
    timed_out: bool
    """True when it ran past ``timeout`` and was killed."""
    stdout: str
    """Its standard output (decoded as UTF-8, undecodable bytes replaced): the last 64 MiB, when it
    printed more; stderr is inherited."""
    max_rss_kib: int
    """Peak resident set in KiB of the command alone, not counting this process's memory (docs/tune.md)."""
    minor_faults: int
    """Page faults served without I/O."""
    major_faults: int
    """Page faults that read from disk."""
    voluntary_switches: int
    """Context switches while waiting."""
    involuntary_switches: int
    """Context switches by preemption."""
    stdout_dropped: int
    """Bytes of standard output before those ``stdout`` holds (0 unless it printed more than 64 MiB)."""

    @property
    def succeeded(self) -> bool:
        """True when it exited with status 0."""
        return self.exit_code == 0


@dataclass(frozen=True)
class TuneResult:
    """A grid search's outcome, the same data as ``smartarrays tune --json`` writes."""

    records: list[dict[str, Any]]
    """Every configuration that ran, best median first (failed ones last), each with the keys of the
    report's ``configurations`` entries: label, run_flags, median_s, min_s, max_s, spread, values,
    runs, failure, gain_over_default, separated_from_default, default, autonuma, max_rss_kib,
    minor_faults_median, context_switches_median."""
    best: dict[str, Any] | None
    """The best record, or None when no configuration ran without a failure."""
    gain: float | None
    """The best record's gain over the default (> 1 is better); None without a best."""
    command_line: str | None
    """The best configuration as a ready ``smartarrays run ... -- COMMAND`` line; None without a best."""
    document: dict[str, Any]
    """The whole report (format, machine, command, value, metric, system, cut_by_budget, configurations)."""
    _json: str

    @property
    def cut_by_budget(self) -> bool:
        """True when ``budget`` dropped configurations or runs."""
        return bool(self.document["cut_by_budget"])

    def to_json(self) -> str:
        """The report as ``smartarrays tune --json`` writes it (schema smartarrays.tune/1)."""
        return self._json


def _command(command: Command) -> list[str]:
    if isinstance(command, (str, bytes, os.PathLike)):
        return [os.fsdecode(command)]
    words = [os.fsdecode(word) if isinstance(word, (bytes, os.PathLike)) else word for word in command]
    for at, word in enumerate(words):
        if not isinstance(word, str):
            raise TypeError(f"command: expected strings, got {type(word).__name__} {word!r}")
        try:
            word.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"command: argument {at} is not valid UTF-8 ({os.fsencode(word)!r}); the tuning calls take text") from None
    return words


def _seconds(value: float | None, name: str) -> float:
    if value is None:
        return 0.0
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number of seconds or None, got {type(value).__name__} {value!r}")
    return real_number(value, name)


def _int32(value: int) -> int:
    """value, or the nearest int32 when it lies outside (the core's range check then names it)."""
    return max(-(2**31), min(value, 2**31 - 1))


def _names(values: Iterable[str] | str | None, name: str) -> list[str] | None:
    if values is None:
        return None
    if isinstance(values, str):
        return [values]
    names = list(values)
    for value in names:
        if not isinstance(value, str):
            raise TypeError(f"{name}: expected names, got {type(value).__name__} {value!r}")
    return names


def _on_off(value: bool | str, name: str) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if not isinstance(value, str):
        raise TypeError(f"{name}: expected True/False or 'on'/'off', got {type(value).__name__} {value!r}")
    if value.lower() in ("on", "off"):
        return value.lower() == "on"
    raise ValueError(f"{name}: expected True/False or 'on'/'off', got {value!r}")


def _cpu_list(cpus: str | Iterable[int] | None) -> str | None:
    if cpus is None:
        return None
    if isinstance(cpus, str):
        return cpus
    items = list(cpus)
    for cpu in items:
        if not is_integer(cpu):
            raise TypeError(f"cpus must be a CPU list str or CPU numbers, got {type(cpu).__name__} {cpu!r}")
    return ",".join(str(int(cpu)) for cpu in items)


def run(
    command: Command,
    allocator: str | None = None,
    policy: str | None = None,
    cpus: str | Iterable[int] | None = None,
    pinning: str | None = None,
    threads: int | None = None,
    thp: bool | str | None = None,
    timeout: float | None = None,
) -> RunResult:
    """Runs command once under the knobs, as ``smartarrays run`` launches it, and waits for it.

    allocator: glibc (default), jemalloc, tcmalloc, mimalloc or tbbmalloc (preloaded); policy:
    first-touch, interleave[=NODES], localalloc, preferred=N or bind=NODES (None: inherited); cpus:
    a CPU list ("0-3,8" or [0, 1]) or pinning "sparse"/"dense" over ``threads`` CPUs; threads:
    exported as SMARTARRAYS_THREADS, OMP_NUM_THREADS, MKL_NUM_THREADS, OPENBLAS_NUM_THREADS; thp:
    on/off for the process (None: unchanged); timeout: seconds before its process group is killed
    (None: no limit). Its stdout is captured, stderr inherited. Returns a RunResult; raises
    OSError when the command cannot be started, ValueError for a bad knob.
    """
    if threads is not None and not is_integer(threads):
        raise TypeError(f"threads must be an int or None, got {type(threads).__name__} {threads!r}")
    if threads is not None and not 1 <= threads <= 4096:
        raise ValueError(f"threads: expected a whole number from 1 to 4096, got {threads}")
    fields = _core._tune_run(
        _command(command),
        "glibc" if allocator is None else word(allocator, "allocator"),
        None if policy is None else word(policy, "policy"),
        _cpu_list(cpus),
        "none" if pinning is None else word(pinning, "pinning"),
        0 if threads is None else int(threads),
        None if thp is None else _on_off(thp, "thp"),
        _seconds(timeout, "timeout"),
    )
    exit_code, signal, seconds, cpu_seconds, timed_out, stdout, *usage = fields
    return RunResult(
        exit_code, signal, seconds, cpu_seconds, timed_out, stdout.decode("utf-8", "replace"), *usage
    )


def grid(
    command: Command,
    allocators: Iterable[str] | str | None = None,
    policies: Iterable[str] | str | None = None,
    pinnings: Iterable[str] | str | None = None,
    thp: Iterable[bool | str] | None = None,
    threads: Iterable[int] | None = None,
    repetitions: int = 3,
    warmup: int = 1,
    metric: str | None = None,
    maximize: bool = False,
    budget: float | None = None,
    timeout: float | None = None,
    cpu_time: bool = False,
    seed: int = 1,
    progress: Callable[[dict[str, Any]], object] | None = None,
) -> TuneResult:
    """Runs command under every configuration of the knobs, as ``smartarrays tune`` does.

    Each knob list left None takes the command's default (every allocator; first-touch, interleave,
    localalloc; sparse, dense; THP on, off; threads and AutoNUMA unchanged); an empty list leaves
    that knob as inherited. The default configuration (glibc, nothing changed) always comes first
    and every gain is against it. ``warmup`` untimed runs of the default come first (a command that
    fails there raises ValueError with the reason), then ``repetitions`` shuffled rounds (``seed``).
    The value of a run is its wall time, its CPU time (``cpu_time``) or the number the regex
    ``metric`` finds in its stdout (the last match, its first group; ``maximize`` when larger is
    better). ``budget`` seconds keeps the most promising configurations and stops starting runs
    once spent; ``timeout`` kills a run. ``progress`` is called after every run with a dict (done,
    total, label, elapsed_seconds, seconds_left); an exception it raises stops the search.
    """
    for name, value in (("repetitions", repetitions), ("warmup", warmup), ("seed", seed)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be callable or None, got {type(progress).__name__}")
    if not 0 <= seed < 2**64:
        raise ValueError(f"seed: expected a whole number from 0 to 2^64 - 1, got {seed}")
    thp_list = None if thp is None else [_on_off(value, "thp") for value in ([thp] if isinstance(thp, (bool, str)) else thp)]
    thread_list = None
    if threads is not None:
        thread_list = [threads] if isinstance(threads, int) else list(threads)
        for count in thread_list:
            if isinstance(count, bool) or not isinstance(count, int):
                raise TypeError(f"threads: expected ints, got {type(count).__name__} {count!r}")
            if not 1 <= count <= 4096:
                raise ValueError(f"threads: expected thread counts from 1 to 4096, got {count}")
    text, has_best, line = _core._tune_grid(
        _command(command),
        _names(allocators, "allocators"),
        _names(policies, "policies"),
        _names(pinnings, "pinnings"),
        thp_list,
        thread_list,
        _int32(repetitions),
        _int32(warmup),
        metric or "",
        flag(maximize, "maximize"),
        _seconds(budget, "budget"),
        _seconds(timeout, "timeout"),
        flag(cpu_time, "cpu_time"),
        seed,
        progress,
    )
    document = json.loads(text)
    records = document["configurations"]
    best = records[0] if has_best else None
    return TuneResult(
        records=records,
        best=best,
        gain=best["gain_over_default"] if best is not None else None,
        command_line=line if has_best else None,
        document=document,
        _json=text,
    )
