"""Shared helpers: the repository's files and the `knn` command (built by `cargo build
--release`, or named by $KNN_BIN) to compare the package with."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]


def repo(path: str) -> str:
    return str(REPO / path)


def knn_binary() -> str:
    binary = os.environ.get("KNN_BIN") or str(REPO / "target" / "release" / "knn")
    if not os.path.exists(binary):
        pytest.fail(f"the knn command is not built at {binary}: run `cargo build --release` (or set KNN_BIN)")
    return binary


def cli(*args: str, check_codes=(0,)) -> subprocess.CompletedProcess:
    """Runs the `knn` command; its exit code must be one of `check_codes`."""
    result = subprocess.run([knn_binary(), *args], capture_output=True, text=True, cwd=REPO)
    assert result.returncode in check_codes, f"knn {' '.join(args)}: exit {result.returncode}\n{result.stderr}"
    return result


def cli_json(*args: str, check_codes=(0,)) -> dict:
    return json.loads(cli(*args, check_codes=check_codes).stdout)


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal shapes and dtypes, and every float equal bit for bit (NaNs and signed zeros too)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype == np.float64:
        return bool(np.array_equal(a.view(np.uint64), b.view(np.uint64)))
    return bool(np.array_equal(a, b))
