//! The items Ext-9 and Ext-10 put on `<k>`: the helpers that walk a result's positions and the
//! softmax's continuations that wait for a slice's max and sum.

use crate::syntax::{Span, TensorMath};
use crate::term::float_format::k_float;
use crate::term::print::ints_text;
use crate::term::{Ints, Sym};

/// `FHelper(Y, X, As, K ... N, Is)` and the softmax's `FMax(…)`, `FSum(…)`, for the function
/// `f` of `Y` (of shape `dims` = `SH[Y]`) into `X`, over the axes `axes` (none for `expTensor`
/// and `logTensor`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MathStep {
    pub f: TensorMath,
    pub y: Sym,
    pub x: Sym,
    pub axes: Option<Ints>,
    pub dims: Ints,
    pub wait: Wait,
    /// The `let`'s span: where the errors of the elements point.
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Wait {
    /// `FHelper(…, K ... N, Is)`: the positions `from..to` still to compute (elements for
    /// `expTensor`/`logTensor`, slices for `softmax`/`logSoftmax`, outputs for the reductions).
    Helper { from: i64, to: i64 },
    /// `FMax(Y, X, A, K, Is)`: slice `K` waits for its max, a Float on top of `<k>`.
    Max { slice: i64 },
    /// `FSum(Y, X, A, K, Is, M)`: slice `K`, whose max is `M` (its bits), waits for its sum.
    Sum { slice: i64, max_bits: u64 },
}

impl MathStep {
    /// How it prints in `<k>`: `softmaxHelper ( y , x , 1 , 0 ... 2 , 2 , 3 )`.
    pub fn k_text(&self) -> String {
        let mut args = vec![self.y.as_str().to_string(), self.x.as_str().to_string()];
        args.extend(self.axes.as_ref().map(ints_text));
        let name = match self.wait {
            Wait::Helper { from, to } => {
                args.push(format!("{from} ... {to}"));
                "Helper"
            }
            Wait::Max { slice } => {
                args.push(slice.to_string());
                "Max"
            }
            Wait::Sum { slice, .. } => {
                args.push(slice.to_string());
                "Sum"
            }
        };
        args.push(ints_text(&self.dims));
        if let Wait::Sum { max_bits, .. } = self.wait {
            args.push(k_float(f64::from_bits(max_bits)));
        }
        format!("{}{name} ( {} )", self.f.keyword(), args.join(" , "))
    }
}
