"""docs/Python.md's example runs: every ```python block, in order, in one
namespace, compiled with the page's own file name and line numbers (so a
failure, and the diagnostics the page shows, point into the page)."""

import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGE = os.path.join(ROOT, "docs", "Python.md")


def python_blocks(text):
    """(first line number, code) of every ```python block."""
    for m in re.finditer(r"^```python\n(.*?)^```", text, re.M | re.S):
        yield text.count("\n", 0, m.start(1)) + 1, m.group(1)


def test_python_md_runs():
    text = open(PAGE).read()
    blocks = list(python_blocks(text))
    assert len(blocks) >= 8, "docs/Python.md lost its examples"
    namespace = {"__name__": "python_md"}
    for line, code in blocks:
        exec(compile("\n" * (line - 1) + code, PAGE, "exec"), namespace)
    # The example graph ran on the CPU and produced results.
    assert namespace["xhat"].shape == (32, 64)
