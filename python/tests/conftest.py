"""Shared fixtures of the Python tests: repository paths and a fake-topology switch that always restores."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

import smartarrays as sa

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def test_data() -> Path:
    """tests/data of the repository: the shared bit-layout vectors and graph fixtures."""
    return REPO / "tests" / "data"


@pytest.fixture(scope="session")
def cli() -> Path:
    """The smartarrays command (SMARTARRAYS_CLI, else build/bin/smartarrays); skips when it is not built."""
    path = Path(os.environ.get("SMARTARRAYS_CLI", REPO / "build" / "bin" / "smartarrays"))
    if not path.is_file():
        pytest.skip(f"{path} is not built (make build)")
    return path


@pytest.fixture
def fake_topology() -> Iterator[object]:
    """Returns a function that installs a fake topology; the real one is restored after the test."""
    yield sa.set_fake_topology
    sa.set_fake_topology("")
