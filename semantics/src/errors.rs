//! The error kinds of `knnError(…)` terms (revised profile, docs/semantics.md §4 Rev-5…Rev-8):
//! stable kebab-case names that reports and tests compare, never the message text.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ErrorKind {
    /// An index outside `0 .. N` (Rev-5).
    IndexOutOfBounds,
    /// More indices than the tensor has dimensions: a scalar indexed (Rev-5).
    TooManyIndices,
    /// `linear(W, X)` with `W: (I, J)` and `X` not of shape `(J)` (Rev-8); `addTensor(Y, Z)`
    /// with `Y` and `Z` of different shapes (Ext-1); `conv2d` whose operands' shapes do not fit
    /// each other or its attributes (Ext-3).
    ShapeMismatch,
    /// An identifier no enclosing `let` binds (Rev-5, Rev-12).
    UnboundIdentifier,
    /// `initTensor` with a negative dimension (Rev-4).
    NegativeDimension,
    /// `ArgMax` of a vector with no element (Rev-6).
    ArgmaxEmpty,
    /// `ArgMax` of something that is not a vector of floats (Rev-6).
    ArgmaxNotAVector,
    /// A tensor function applied to a name without a shape: not a tensor (Rev-7, Rev-8).
    UnknownTensor,
    /// `let t = reluTensor(t)` and the like: the output would overwrite its own input (Rev-7).
    AliasedOutput,
    /// `let E = F in …` whose target is not an identifier.
    InvalidLetTarget,
    /// An operator applied to values no rule accepts: a tensor as a number, NaN in `max`.
    InvalidOperands,
    /// Int arithmetic beyond 64 bits (K's Ints are unbounded, knn's are not).
    IntegerOverflow,
    /// A window operator's attribute whose value no rule accepts: a stride, dilation or group
    /// of 0 (Ext-3). A shape the attributes do not fit is `ShapeMismatch`.
    InvalidAttribute,
    /// A tensor larger than the memory budget (`--max-memory`): like `IntegerOverflow`, a limit
    /// of knn, not of K. The big-step engine raises it where the tensor is allocated; callers
    /// report it as a limit (exit code 4), not as the program's error.
    MemoryLimit,
    /// `I / 0` on Ints (Ext-7): K's `/Int` is undefined there. A Float divided by zero is IEEE's
    /// `±Infinity` or `NaN`, no error.
    DivisionByZero,
}

impl ErrorKind {
    pub const ALL: [ErrorKind; 15] = [
        ErrorKind::IndexOutOfBounds,
        ErrorKind::TooManyIndices,
        ErrorKind::ShapeMismatch,
        ErrorKind::UnboundIdentifier,
        ErrorKind::NegativeDimension,
        ErrorKind::ArgmaxEmpty,
        ErrorKind::ArgmaxNotAVector,
        ErrorKind::UnknownTensor,
        ErrorKind::AliasedOutput,
        ErrorKind::InvalidLetTarget,
        ErrorKind::InvalidOperands,
        ErrorKind::IntegerOverflow,
        ErrorKind::InvalidAttribute,
        ErrorKind::MemoryLimit,
        ErrorKind::DivisionByZero,
    ];

    /// The stable name used in reports.
    pub fn id(self) -> &'static str {
        match self {
            ErrorKind::IndexOutOfBounds => "index-out-of-bounds",
            ErrorKind::TooManyIndices => "too-many-indices",
            ErrorKind::ShapeMismatch => "shape-mismatch",
            ErrorKind::UnboundIdentifier => "unbound-identifier",
            ErrorKind::NegativeDimension => "negative-dimension",
            ErrorKind::ArgmaxEmpty => "argmax-empty",
            ErrorKind::ArgmaxNotAVector => "argmax-not-a-vector",
            ErrorKind::UnknownTensor => "unknown-tensor",
            ErrorKind::AliasedOutput => "aliased-output",
            ErrorKind::InvalidLetTarget => "invalid-let-target",
            ErrorKind::InvalidOperands => "invalid-operands",
            ErrorKind::IntegerOverflow => "integer-overflow",
            ErrorKind::InvalidAttribute => "invalid-attribute",
            ErrorKind::MemoryLimit => "memory-limit",
            ErrorKind::DivisionByZero => "division-by-zero",
        }
    }

    /// The string of the `knnError(S)` term, as §4 writes it.
    pub fn k_message(self) -> &'static str {
        match self {
            ErrorKind::IndexOutOfBounds => "index out of bounds",
            ErrorKind::TooManyIndices => "too many indices",
            // §4 writes "linear: shape mismatch". Ext-1's `addTensor` raises this kind too, so the
            // string names the kind, as for every other kind; the detail names the function.
            ErrorKind::ShapeMismatch => "shape mismatch",
            ErrorKind::UnboundIdentifier => "unbound identifier",
            ErrorKind::NegativeDimension => "negative dimension",
            ErrorKind::ArgmaxEmpty => "ArgMax of an empty vector",
            ErrorKind::ArgmaxNotAVector => "ArgMax expects a non-empty vector of floats",
            ErrorKind::UnknownTensor => "unknown tensor",
            ErrorKind::AliasedOutput => "output aliases input",
            ErrorKind::InvalidLetTarget => "invalid let target",
            ErrorKind::InvalidOperands => "invalid operands",
            ErrorKind::IntegerOverflow => "integer overflow",
            ErrorKind::InvalidAttribute => "invalid attribute",
            ErrorKind::MemoryLimit => "memory limit",
            ErrorKind::DivisionByZero => "division by zero",
        }
    }

    pub fn by_id(id: &str) -> Option<ErrorKind> {
        ErrorKind::ALL.into_iter().find(|k| k.id() == id)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// The detail of `linear(W, X)`'s `shape-mismatch` (Rev-8), which both engines give: the shapes
/// that met, `W` first since it decides what `X` must be.
pub fn linear_mismatch_detail(w: &str, x: &str, w_shape: &[i64], x_shape: &[i64]) -> String {
    match (w_shape, x_shape) {
        ([i, j], [j2]) => {
            format!("linear({w}, {x}): the weights {w} are {i}×{j} but {x} has {}", elements(*j2))
        }
        ([_, _], _) => format!("linear({w}, {x}): {x} must be a vector, but it is {}", shape_text(x_shape)),
        _ => format!("linear({w}, {x}): the weights {w} must be a matrix, but they are {}", shape_text(w_shape)),
    }
}

/// A shape as a reader says it: `a vector of 5 elements`, `3×4`, `2×2×2`.
pub fn shape_text(dims: &[i64]) -> String {
    match dims {
        [n] => format!("a vector of {}", elements(*n)),
        _ => dims.iter().map(i64::to_string).collect::<Vec<_>>().join("×"),
    }
}

fn elements(n: i64) -> String {
    if n == 1 { "1 element".to_string() } else { format!("{n} elements") }
}
