"""README's examples are claims: the library example prints exactly what README says it prints."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def test_the_library_example_prints_what_readme_shows():
    block = README.split("## The library", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    call, shown = re.search(r"^(metrics\.evaluate\(.*\))\n# (\{.*\})$", block, re.MULTILINE).groups()
    setup = block.split(call, 1)[0]
    namespace: dict = {}
    exec(compile(setup, "README", "exec"), namespace)  # noqa: S102 - README's own example
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        print(eval(call, namespace))  # noqa: S307 - README's own example
    assert out.getvalue().strip() == shown
