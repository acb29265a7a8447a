"""knn: run and verify K-NN neural-network programs, with the bits of their formal semantics.

>>> import knn, numpy as np
>>> net = knn.load("examples/mlp.knn")          # .knn, .nnet or .onnx
>>> net.run(np.array([[1.0, -2.0, 0.5]]))       # one class per row
array([0])

``Network.run`` gives, row for row, the bits ``knn run`` gives; ``Network.verify`` and
``verify_vnnlib`` answer ``holds`` only from bounds sound for those bits, and ``violated``
only with a counterexample replayed on the small-step reference. Errors are the exceptions of
:mod:`knn.errors`. Scale-out on Dask is in :mod:`knn.dask` (``pip install knn[dask]``).
See docs/python.md.
"""

from ._knn import (
    Counterexample,
    Network,
    Report,
    VerifyResult,
    __version__,
    load,
    read_instances,
    report,
    run_source,
    verify_vnnlib,
)
from .errors import (
    AbortError,
    FileError,
    KnnError,
    LimitError,
    NetworkImportError,
    ParseError,
    ProgramError,
    StaticError,
    UsageError,
)

__all__ = [
    "AbortError",
    "Counterexample",
    "FileError",
    "KnnError",
    "LimitError",
    "Network",
    "NetworkImportError",
    "ParseError",
    "ProgramError",
    "Report",
    "StaticError",
    "UsageError",
    "VerifyResult",
    "__version__",
    "load",
    "read_instances",
    "report",
    "run_source",
    "verify_vnnlib",
]
