"""knn on a Dask cluster: a network applied to every block of a Dask array, and VNN-COMP
instance lists spread over the workers. Needs the ``dask`` extra (``pip install knn[dask]``).

Nothing here distributes by hand: Dask schedules the blocks and the instances; each worker
process loads a network once and keeps it.
"""

from __future__ import annotations

import functools
import os
import time
import uuid
from typing import Optional

import numpy as np

from . import _knn
from .errors import KnnError, UsageError

try:
    import dask.array as da
except ImportError as error:  # pragma: no cover - the extra is not installed
    raise ImportError("knn.dask needs Dask: pip install 'knn[dask]'") from error


@functools.lru_cache(maxsize=16)
def _network(path: str, normalize: bool, modified: int) -> _knn.Network:
    # `modified` is part of the key: a network file replaced on disk is loaded again.
    return _knn.load(path, normalize=normalize)


def _load(path: str, normalize: bool) -> _knn.Network:
    return _network(path, normalize, os.stat(path).st_mtime_ns)


def _run_block(block: np.ndarray, path: str, normalize: bool, input_name: Optional[str], threads: Optional[int],
               fast_math: bool) -> np.ndarray:
    net = _load(path, normalize)
    if block.shape[0] == 0:
        # An empty block (Dask probes with them): no row to run.
        probe = net.run(np.zeros((1, block.shape[1])), input_name=input_name, threads=threads)
        return np.asarray(probe)[:0]
    return net.run(block, input_name=input_name, threads=threads, fast_math=fast_math)


def run(
    network: str | os.PathLike[str],
    x: "da.Array",
    *,
    normalize: bool = False,
    input_name: Optional[str] = None,
    threads: Optional[int] = 1,
    fast_math: bool = False,
) -> "da.Array":
    """The network applied to every row of the Dask array ``x`` (n, d), block by block: an
    (n, k) array of scores, or (n,) of classes for an ArgMax program — bit for bit what
    ``Network.run`` gives on the whole array. Each worker loads the network once.

    ``threads`` is the number of knn threads per block (default 1: Dask's workers and threads
    are the parallelism; raise it for a few large blocks)."""
    if not isinstance(x, da.Array):
        raise UsageError("x must be a dask.array.Array (use knn.load(...).run for numpy arrays)")
    if x.ndim != 2:
        raise UsageError(f"x has {x.ndim} dimensions: expected rows (n, d)")
    path = os.fspath(network)
    # The result's shape and kind, from one row of zeros run here (the network fails on every
    # input or on none of them the same way, so a probe's error is the run's).
    local = _knn.load(path, normalize=normalize)
    probe = np.asarray(local.run(np.zeros((1, x.shape[1])), input_name=input_name))
    if x.numblocks[1] != 1:
        x = x.rechunk({1: -1})
    trailing = probe.shape[1:]
    kwargs = dict(path=path, normalize=normalize, input_name=input_name, threads=threads, fast_math=fast_math)
    chunks = (x.chunks[0],) + tuple((d,) for d in trailing)
    if not trailing:
        return x.map_blocks(_run_block, dtype=probe.dtype, chunks=chunks, drop_axis=1, **kwargs)
    new_axis = list(range(2, 1 + len(trailing))) or None
    return x.map_blocks(_run_block, dtype=probe.dtype, chunks=chunks, new_axis=new_axis, **kwargs)


# The values of `bounds=` (python/src/verify.rs, `bounds_of`, says the same).
_BOUNDS = ("as-written", "nearest")


def _verify_instance(network: str, prop: str, timeout: float, threads: Optional[int],
                     bounds: str) -> tuple[str, float, str]:
    started = time.perf_counter()
    try:
        result = _knn.verify_vnnlib(network, prop, timeout=timeout, threads=threads, bounds=bounds)
        answer, detail = result.word, result.detail or ""
    except KnnError as error:
        answer, detail = "error", str(error)
    return answer, time.perf_counter() - started, detail


def verify_instances(
    client,
    instances: str | os.PathLike[str],
    *,
    root: str | os.PathLike[str] | None = None,
    timeout: Optional[float] = None,
    threads: Optional[int] = 1,
    bounds: str = "as-written",
):
    """Verifies every instance of a VNN-COMP list (``network,property,timeout`` a line, paths
    relative to ``root``, by default the list's folder), each instance a task on ``client``'s
    cluster with its own timeout (or ``timeout`` for all). Returns a pandas DataFrame with the
    columns network, property, answer (``holds``, ``violated``, ``unknown:REASON`` or
    ``error``), seconds, and detail (the reason's words or the error), in the list's order.

    ``bounds`` says how the properties' bounds are read, as ``knn verify --bounds``:
    ``"as-written"`` (the default) or ``"nearest"`` (each the binary64 number nearest it)."""
    import pandas as pd

    # Checked here, before any task runs: a bad value is the caller's error, not every row's.
    if bounds not in _BOUNDS:
        raise UsageError(f'bounds="{bounds}": expected "as-written" or "nearest"')
    lines = _knn.read_instances(os.fspath(instances))
    # One token per call in the tasks' keys: Dask hands a key still held back its old result,
    # so a second call (another `bounds`, `timeout`, …) soon after the first would get the first's.
    call = uuid.uuid4().hex[:8]
    base = os.fspath(root) if root is not None else os.path.dirname(os.path.abspath(os.fspath(instances)))
    futures = [
        client.submit(
            _verify_instance,
            os.path.join(base, network),
            os.path.join(base, prop),
            timeout if timeout is not None else seconds,
            threads,
            bounds,
            pure=False,
            key=f"knn-verify-{index}-{network}-{prop}-{call}",
        )
        for index, (network, prop, seconds) in enumerate(lines)
    ]
    answers = client.gather(futures)
    rows = [
        {"network": network, "property": prop, "answer": answer, "seconds": seconds, "detail": detail}
        for (network, prop, _), (answer, seconds, detail) in zip(lines, answers)
    ]
    return pd.DataFrame(rows, columns=["network", "property", "answer", "seconds", "detail"])


__all__ = ["run", "verify_instances"]
