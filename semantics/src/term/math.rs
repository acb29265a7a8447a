//! The scalar functions of Ext-9, strict in their operand: `expItem(E)`, `logItem(E)`,
//! `expShiftItem(E, M)`, `softmaxItem(E, M, S)`, `logSoftmaxItem(E, M, S)`, with `M` (the
//! slice's max) and `S` (the sum of its exponentials) Floats already computed.

use std::hash::{Hash, Hasher};

use crate::numeric::{exp_float, log_float};

/// Which scalar function, and the Floats it carries.
#[derive(Clone, Copy, Debug)]
pub enum MathFn {
    Exp,
    Log,
    /// `expFloat(F -Float M)`: a term of the softmax's sum.
    ExpShift {
        max: f64,
    },
    /// `expFloat(F -Float M) /Float S`.
    Softmax {
        max: f64,
        sum: f64,
    },
    /// `(F -Float M) -Float logFloat(S)`.
    LogSoftmax {
        max: f64,
        sum: f64,
    },
    /// `sqrtFloat(F)` (Ext-14: `batchNorm`'s divisor, `sqrtItem(V[c] + E)`).
    Sqrt,
}

impl MathFn {
    pub fn item_name(self) -> &'static str {
        match self {
            MathFn::Exp => "expItem",
            MathFn::Log => "logItem",
            MathFn::ExpShift { .. } => "expShiftItem",
            MathFn::Softmax { .. } => "softmaxItem",
            MathFn::LogSoftmax { .. } => "logSoftmaxItem",
            MathFn::Sqrt => "sqrtItem",
        }
    }

    /// The Floats after the operand, in the order they print.
    pub fn carried(self) -> Vec<f64> {
        match self {
            MathFn::Exp | MathFn::Log | MathFn::Sqrt => Vec::new(),
            MathFn::ExpShift { max } => vec![max],
            MathFn::Softmax { max, sum } | MathFn::LogSoftmax { max, sum } => vec![max, sum],
        }
    }

    /// The right-hand side of the function's rule on a Float (`ext-exp-item`, `ext-log-item`,
    /// `ext-exp-shift-item`, `ext-softmax-item`, `ext-log-softmax-item`).
    pub fn apply(self, f: f64) -> f64 {
        match self {
            MathFn::Exp => exp_float(f),
            MathFn::Log => log_float(f),
            MathFn::ExpShift { max } => exp_float(f - max),
            MathFn::Softmax { max, sum } => exp_float(f - max) / sum,
            MathFn::LogSoftmax { max, sum } => (f - max) - log_float(sum),
            // IEEE's square root, correctly rounded (K's `sqrtFloat`): NaN below zero, -0.0 of
            // -0.0 (`ext-sqrt-item`).
            MathFn::Sqrt => f.sqrt(),
        }
    }

    fn key(self) -> (u8, u64, u64) {
        match self {
            MathFn::Exp => (0, 0, 0),
            MathFn::Log => (1, 0, 0),
            MathFn::ExpShift { max } => (2, max.to_bits(), 0),
            MathFn::Softmax { max, sum } => (3, max.to_bits(), sum.to_bits()),
            MathFn::LogSoftmax { max, sum } => (4, max.to_bits(), sum.to_bits()),
            MathFn::Sqrt => (5, 0, 0),
        }
    }
}

impl PartialEq for MathFn {
    fn eq(&self, other: &MathFn) -> bool {
        self.key() == other.key()
    }
}

impl Eq for MathFn {}

impl Hash for MathFn {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.key().hash(state);
    }
}
