//! [`KnnError`] as a Python exception of `knn.errors`: one class per kind of failure, each
//! carrying the message, the kind, whose fault it is, the exit code `knn` would give, and the
//! place (file, line, column) with the compiler-style text.

use knn::{ErrorKind, Failure, Fault, KnnError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The class of `knn.errors` for a failure, and the `kind` word.
fn class_of(failure: Failure) -> (&'static str, &'static str) {
    match failure {
        Failure::Io => ("FileError", "io"),
        Failure::Usage => ("UsageError", "usage"),
        Failure::Import => ("NetworkImportError", "import"),
        Failure::Parse => ("ParseError", "parse"),
        Failure::Static => ("StaticError", "static"),
        Failure::Runtime(ErrorKind::MemoryLimit) | Failure::Limit(_) => ("LimitError", "limit"),
        Failure::Runtime(_) => ("ProgramError", "runtime"),
        Failure::Aborted => ("AbortError", "aborted"),
    }
}

fn fault_word(fault: Fault) -> &'static str {
    match fault {
        Fault::Caller => "caller",
        Fault::Program => "program",
        Fault::Limit => "limit",
    }
}

/// The exception object for `error` (not raised).
pub fn exception<'py>(py: Python<'py>, error: &KnnError) -> PyResult<Bound<'py, PyAny>> {
    let (class, kind) = class_of(error.failure);
    let module = py.import("knn.errors")?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("kind", kind)?;
    kwargs.set_item("fault", fault_word(error.fault()))?;
    kwargs.set_item("exit_code", error.exit_code())?;
    if let Some(place) = &error.place {
        kwargs.set_item("file", &place.file)?;
        kwargs.set_item("line", place.line)?;
        kwargs.set_item("column", place.column)?;
    }
    if let Failure::Runtime(k) = error.failure {
        kwargs.set_item("error_id", k.id())?;
    }
    kwargs.set_item("rendered", error.render(false))?;
    module.getattr(class)?.call((error.message.as_str(),), Some(&kwargs))
}

/// `error` as a raised Python exception.
pub fn to_py(error: KnnError) -> PyErr {
    Python::attach(|py| match exception(py, &error) {
        Ok(instance) => PyErr::from_value(instance),
        Err(e) => e,
    })
}

/// A usage error (the caller's) as a Python exception.
pub fn usage(message: impl Into<String>) -> PyErr {
    to_py(KnnError::usage(message.into()))
}

/// `Result<T, KnnError>` → `PyResult<T>`.
pub trait OrRaise<T> {
    fn or_raise(self) -> PyResult<T>;
}

impl<T> OrRaise<T> for Result<T, KnnError> {
    fn or_raise(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}
