"""What the Python benchmarks share: timing a call (median, min, max, spread after one warm-up),
the machine facts every benchmark of the project records plus the Python side's versions, the
target checks (one line each), and writing the JSON document under a timestamped name."""

from __future__ import annotations

import json
import platform
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

import smartarrays as sa


def timing(f: Callable[[], object], repetitions: int) -> dict[str, float]:
    """Median, min, max and spread = (max - min) / median of repetitions runs after one warm-up."""
    f()
    seconds = []
    for _ in range(repetitions):
        start = time.perf_counter()
        f()
        seconds.append(time.perf_counter() - start)
    seconds.sort()
    median = seconds[len(seconds) // 2]
    return {"median_s": median, "min_s": seconds[0], "max_s": seconds[-1], "spread": (seconds[-1] - seconds[0]) / median}


def machine_facts(**extra: object) -> dict[str, object]:
    """The library's machine facts (schema smartarrays.machine/1, the C ABI's), the Python and numpy
    versions, and extra."""
    return {**sa.machine_facts(), "python": platform.python_version(), "numpy": np.__version__, **extra}


def write_document(out: Path, name: str, document: dict[str, object]) -> Path:
    """Writes document as out/NAME-<UTC timestamp>.json (creating out) and returns the path."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}-{datetime.now(timezone.utc).strftime('%Y%m%dT%H%M%SZ')}.json"
    path.write_text(json.dumps(document, indent=1) + "\n")
    return path


def target(name: str, value: float, goal: str, met: bool) -> dict[str, object]:
    """One target check as the documents record it."""
    return {"target": name, "value": value, "goal": goal, "met": met}


def print_targets(checks: list[dict[str, object]]) -> None:
    """Prints each check: target, value, goal, met or MISSED."""
    print()
    for c in checks:
        print(f"{c['target']:<44}{c['value']:>12.4g}  goal {c['goal']:<8} {'met' if c['met'] else 'MISSED'}")
