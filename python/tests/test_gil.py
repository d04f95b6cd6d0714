"""The bulk kernels release the GIL, so Python threads run them concurrently.

Proof without timing: with a switch interval of 1000 s no thread is ever forced to give up the
GIL, so the main thread can run while a worker is between "entered" and "left" only if the
worker's kernel released the GIL. A kernel holding the GIL always fails these tests; a correct one
could miss the window only if the OS did not schedule the main thread during a whole kernel run,
which is why each check is tried a few times.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator

import numpy as np
import pytest

import smartarrays as sa

N = 1 << 24
ATTEMPTS = 5


@pytest.fixture(scope="module")
def values() -> np.ndarray:
    """Random 63-bit values, large enough that one kernel call takes milliseconds."""
    return np.random.default_rng(7).integers(0, 2**63, N, dtype=np.uint64)


@pytest.fixture(scope="module")
def big(values) -> Iterator[sa.SmartArray]:
    """A 64-bit smart array of the values."""
    with sa.array(values, bits=64) as a:
        yield a


@pytest.fixture
def no_forced_switches() -> Iterator[None]:
    """A switch interval of 1000 s for the test, restored after it."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1000)
    yield
    sys.setswitchinterval(old)


def threads_inside_at_once(kernels: list[Callable[[], object]]) -> int:
    """Starts one thread per kernel, one after the other, and counts how many are inside their kernel
    when the main thread runs again after the last start."""
    inside: list[int] = []

    def run(k: int) -> None:
        """Marks thread k inside its kernel while it runs."""
        inside.append(k)
        kernels[k]()
        inside.remove(k)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(kernels))]
    for t in threads:
        t.start()  # returns once the new thread released the GIL: inside its kernel, or finished
    observed = len(inside)
    for t in threads:
        t.join()
    return observed


def concurrently(kernels: list[Callable[[], object]]) -> bool:
    """True when, in one of a few attempts, every kernel was seen running at the same time."""
    return any(threads_inside_at_once(kernels) == len(kernels) for _ in range(ATTEMPTS))


@pytest.mark.usefixtures("no_forced_switches")
def test_sum_releases_the_gil(big):
    assert concurrently([big.sum])


@pytest.mark.usefixtures("no_forced_switches")
def test_two_threads_sum_concurrently(big, values):
    totals: list[int] = []
    assert concurrently([lambda: totals.append(big.sum()), lambda: totals.append(big.sum())])
    assert set(totals) == {int(values.sum(dtype=np.uint64))}


@pytest.mark.usefixtures("no_forced_switches")
def test_decode_kernels_release_the_gil(big, values):
    out = np.empty(N, dtype=np.uint64)
    idx = np.arange(0, N, 3, dtype=np.int64)
    kernels = [
        lambda: big.unpack(0, out),
        lambda: big[:],
        lambda: big[::2],
        lambda: big[idx],
        lambda: big.to_numpy(),
        lambda: next(big.iter_chunks(N)),
        lambda: sa.array(values, bits=64),
    ]
    for kernel in kernels:
        assert concurrently([kernel])
    np.testing.assert_array_equal(out, values)


@pytest.mark.usefixtures("no_forced_switches")
def test_graph_kernels_release_the_gil():
    g = sa.Graph.rmat(15)
    for kernel in (g.pagerank, g.degree_centrality, lambda: sa.Graph.rmat(15)):
        assert concurrently([kernel])
