"""Type stubs of the compiled module ``knn._knn`` (python/src/)."""

from os import PathLike
from typing import Literal, Mapping, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

from .errors import KnnError

__version__: str

ArrayLike = Union[npt.ArrayLike, np.ndarray]
StrPath = Union[str, PathLike[str]]

def load(path: StrPath, *, normalize: bool = False) -> Network:
    """Loads a ``.knn`` program (revised rules), or a ``.nnet``/``.onnx`` network imported as
    ``knn import`` does (``normalize=True`` folds a .nnet's input normalisation in).

    Raises FileError, NetworkImportError, ParseError."""

def run_source(
    source: str,
    *,
    inputs: Optional[Mapping[str, ArrayLike]] = None,
    semantics: Literal["revised", "published"] = "revised",
    engine: Optional[Literal["small-step", "big-step"]] = None,
    trace: bool = False,
    coverage: bool = False,
    observables: bool = False,
    config: bool = False,
    max_steps: Optional[int] = None,
    fast_math: bool = False,
    name: str = "<source>",
) -> Report:
    """Parses and runs a program's text. Parse and static errors, bad inputs and options raise;
    the program's own run-time error is the report's ``error`` (``status == "error"``)."""

def verify_vnnlib(
    network: StrPath,
    property: StrPath,
    *,
    timeout: Optional[float] = None,
    threads: Optional[int] = None,
    split: Literal["auto", "inputs", "relus", "refined-relus"] = "auto",
    bounds: Literal["as-written", "nearest"] = "as-written",
) -> VerifyResult:
    """Loads ``network`` and answers the VNN-LIB ``property`` about it (a VNN-COMP instance).
    ``bounds="nearest"`` reads each of the property's input bounds as the binary64 number
    nearest it, as ``knn verify --bounds nearest``; by default they are taken as written."""

def read_instances(path: StrPath) -> list[tuple[str, str, float]]:
    """The lines of a VNN-COMP instance list: (network, property, timeout in seconds), the
    paths as written. Raises UsageError naming file:line for a malformed line."""

def report(
    results: StrPath,
    out_dir: StrPath,
    *,
    compare: Optional[Mapping[str, StrPath]] = None,
    force: bool = False,
) -> str:
    """Writes ``out_dir/index.html``, the page of a benchmark run (as ``knn report``): the
    cactus plot, the answers per property and the table of instances of knn's results CSV
    ``results``, with each tool of ``compare`` (name → its results CSV, VNN-COMP's format or
    knn's) beside knn. ``out_dir`` is made if missing; an existing page is kept unless
    ``force``. Returns the page's path. Raises UsageError naming file:line for a malformed
    line, FileError for an unreadable file."""

class Network:
    """A network or program, loaded and checked once."""

    @property
    def input_name(self) -> Optional[str]:
        """The input's name, when the file declares it (.nnet and ONNX networks)."""
    @property
    def input_len(self) -> Optional[int]:
        """The input's length, when the file declares it."""
    @property
    def source_name(self) -> str:
        """The file the network came from."""
    @property
    def source(self) -> str:
        """The program's text (an imported network's, as ``knn import`` writes it)."""
    def run(
        self,
        x: ArrayLike,
        *,
        input_name: Optional[str] = None,
        inputs: Optional[Mapping[str, ArrayLike]] = None,
        threads: Optional[int] = None,
        fast_math: bool = False,
    ) -> Union[np.ndarray, int, float]:
        """Runs the network on every row of ``x`` ((n, d) or one row (d,), float64 or float32) on
        the big-step engine: (n, k) float64 scores, or (n,) int64 classes for an ArgMax
        program; one row gives (k,) or a single class. Bit for bit what ``knn run`` gives.

        Raises UsageError (rank, width, dtype, NaN), ProgramError (a row's run-time error,
        the row named), LimitError."""
    def verify(
        self,
        *,
        box: Optional[Tuple[ArrayLike, ArrayLike]] = None,
        around: Optional[ArrayLike] = None,
        eps: Optional[float] = None,
        clip: Optional[Tuple[float, float]] = None,
        claim: str = "argmax-stable",
        timeout: Optional[float] = None,
        threads: Optional[int] = None,
        split: Literal["auto", "inputs", "relus", "refined-relus"] = "auto",
        input_name: Optional[str] = None,
        inputs: Optional[Mapping[str, ArrayLike]] = None,
        input_shape: Optional[Tuple[int, ...]] = None,
        bounds: Literal["as-written", "nearest"] = "as-written",
    ) -> VerifyResult:
        """Proves or refutes ``claim`` (``argmax-stable``, ``argmax=K``, ``argmax!=K``) on the box
        ``box=(lower, upper)`` or the L∞ ball ``around=centre, eps=E`` (cut to ``clip``).
        ``bounds="nearest"`` reads the ball's computed ends as the binary64 numbers nearest
        them, as ``knn verify --bounds nearest``; by default they are taken as written."""
    def verify_vnnlib(
        self,
        property: StrPath,
        *,
        timeout: Optional[float] = None,
        threads: Optional[int] = None,
        split: Literal["auto", "inputs", "relus", "refined-relus"] = "auto",
        bounds: Literal["as-written", "nearest"] = "as-written",
    ) -> VerifyResult:
        """Proves or refutes a VNN-LIB property (``X_i`` the input's elements, ``Y_i`` the
        result's), its input bounds read as ``bounds`` says (``knn verify --bounds``)."""

class Counterexample:
    """A counterexample, confirmed on the small-step reference and the big-step engine."""

    case: int
    input: np.ndarray
    output: np.ndarray
    class_: Optional[int]
    expected_class: Optional[int]
    witness: str

class VerifyResult:
    """The verifier's answer: the fields of ``knn verify --output json``."""

    answer: Literal["holds", "violated", "unknown"]
    word: str
    """The answer column of an instance list's results: holds, violated, unknown:REASON."""
    reason: Optional[Literal["timeout", "limit", "bug", "unsupported", "empty-region"]]
    detail: Optional[str]
    class_: Optional[int]
    counterexample: Optional[Counterexample]
    seconds: float
    boxes: int
    proved_share: float
    exit_code: int
    json: str
    results: str
    def __bool__(self) -> bool:
        """True when the claim holds."""

class Report:
    """What a run gave: the fields of ``knn run --output json``."""

    status: Literal["done", "empty", "stuck", "error", "limit"]
    value: Union[float, int, np.ndarray, None]
    term: Optional[str]
    stuck: Optional[str]
    error: Optional[KnnError]
    engine: Literal["small-step", "big-step"]
    steps: Optional[int]
    observables: Optional[dict[str, Union[np.ndarray, str]]]
    trace: Optional[list[str]]
    coverage: Optional[dict[str, int]]
    config: Optional[str]
    exit_code: int
    json: str
    def raise_for_status(self) -> None:
        """Raises the run's error, if it has one."""

