"""docs/python.md: every ```python block runs, in order, in one namespace, from the
repository's root (blocks fenced ```py need a cluster and are only shown)."""

from __future__ import annotations

import os
import re

from conftest import REPO


def test_the_examples_of_the_python_guide_run():
    text = (REPO / "docs" / "python.md").read_text()
    blocks = re.findall(r"^```python\n(.*?)^```$", text, flags=re.S | re.M)
    assert len(blocks) >= 6, "the guide's examples were not found"
    namespace: dict = {"__name__": "knn_docs"}
    here = os.getcwd()
    os.chdir(REPO)
    try:
        for number, block in enumerate(blocks):
            try:
                exec(compile(block, f"docs/python.md, block {number + 1}", "exec"), namespace)
            except Exception as error:  # name the block that failed
                raise AssertionError(f"docs/python.md, block {number + 1}: {error!r}\n{block}") from error
    finally:
        os.chdir(here)
