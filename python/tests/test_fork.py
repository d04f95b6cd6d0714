"""Arrays and graphs keep working in a forked child, as multiprocessing's fork start method makes
them: the child gets its own worker pool instead of waiting on the parent's threads."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_forked_child_builds_and_sums():
    code = textwrap.dedent(
        """
        import os, signal
        import numpy as np
        import smartarrays as sa
        values = np.arange(1 << 20, dtype=np.uint64)
        parent = sa.array(values)  # the parallel build starts the worker pool
        pid = os.fork()
        if pid == 0:
            signal.alarm(30)  # a child stuck on the parent's workers dies instead of hanging
            child = sa.array(values)
            g = sa.Graph.rmat(8)
            ok = child.sum() == parent.sum() == int(values.sum()) and g.pagerank().size == 256
            os._exit(0 if ok else 1)
        _, status = os.waitpid(pid, 0)
        print(os.waitstatus_to_exitcode(status), sa.array(values).sum() == parent.sum())
        """
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["0", "True"]
