"""The README's Python quick start runs as printed: a reader who pastes it gets no NameError."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_quick_start_runs() -> None:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Quick start: Python") :]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None, "no python block under '## Quick start: Python'"
    scope: dict[str, object] = {}
    exec(compile(code.group(1), str(README), "exec"), scope)
    assert scope["a"].sum() == sum(range(1000)) * 10_000
    assert len(scope["ranks"]) == scope["g"].vertices
    assert len(scope["left_rows"]) == len(scope["right_rows"]) > 0
