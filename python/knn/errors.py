"""The exceptions of knn: one class per kind of failure, all of them :class:`KnnError`.

Every exception carries the message, the ``kind`` (``io``, ``usage``, ``import``, ``parse``,
``static``, ``runtime``, ``aborted``, ``limit``), whose ``fault`` it is (``caller``, ``program``,
``limit``), the ``exit_code`` the ``knn`` command gives for it, the place (``file``, ``line``,
``column``) when there is one, and ``rendered``: the message as the command prints it, with the
source line and a marker.
"""

from __future__ import annotations


class KnnError(Exception):
    """Any failure of knn."""

    def __init__(
        self,
        message: str,
        *,
        kind: str = "usage",
        fault: str = "caller",
        exit_code: int = 1,
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
        error_id: str | None = None,
        rendered: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.fault = fault
        self.exit_code = exit_code
        self.file = file
        self.line = line
        self.column = column
        self.error_id = error_id
        self.rendered = rendered if rendered is not None else f"error: {message}\n"

    def __str__(self) -> str:
        if self.file is not None and self.line is not None:
            return f"{self.file}:{self.line}:{self.column}: {self.message}"
        return self.message


class UsageError(KnnError, ValueError):
    """An argument, an array or an input that knn cannot use as given."""


class FileError(KnnError, OSError):
    """A file that could not be read or written."""


class NetworkImportError(KnnError):
    """A .nnet or ONNX file that is not a network knn can import."""


class ParseError(KnnError):
    """A program (or VNN-LIB property) that does not parse."""


class StaticError(KnnError):
    """A program that parses but fails the static checks of the revised rules."""


class ProgramError(KnnError):
    """The program's run-time error (``error_id`` is the K error: ``index-out-of-bounds``, …)."""


class AbortError(KnnError):
    """Where krun would abort (published rules only)."""


class LimitError(KnnError):
    """A bound was reached: steps, states, memory or time."""


__all__ = [
    "KnnError",
    "UsageError",
    "FileError",
    "NetworkImportError",
    "ParseError",
    "StaticError",
    "ProgramError",
    "AbortError",
    "LimitError",
]
