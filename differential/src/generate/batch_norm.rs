//! `batchNorm` (Ext-14) in a generated program: on a layer's vector (its channels of one
//! element each, often held in one buffer: the plan's fused `Elementwise`) or on a tensor in
//! scope (the image or what came of it), its four parameters new literals of the channels'
//! length or, sometimes, a vector in scope of that length (computed from the input: the root
//! taken when the plan runs); sometimes a mistake.

use knn_semantics::syntax::Number;

use super::{Binding, Gen};
use crate::program::{Scalar, Stmt};

/// The epsilons drawn: ONNX's default (twice as often), PyTorch's `1e-3`, and values whose
/// roots are easy to check by hand; `0.0` only where a program may divide by zero.
const EPSILONS: [f64; 5] = [1e-5, 1e-5, 1e-3, 0.25, 1.0];

impl Gen {
    /// `let y = batchNorm(x, …) in` on a tensor in scope whose first extent is not 0, or on a
    /// new literal of rank 1 to 3.
    pub(super) fn batch_norm_in_scope(&mut self) {
        let in_scope: Vec<(String, Vec<usize>)> =
            self.tensors().into_iter().filter(|(_, d)| d.first().is_some_and(|&c| c > 0)).collect();
        let (x, dims) = if !in_scope.is_empty() && self.rng.chance(if self.image { 85 } else { 50 }) {
            if self.image && self.rng.chance(50) { in_scope[0].clone() } else { self.rng.pick(&in_scope).clone() }
        } else {
            let dims: Vec<usize> = (0..1 + self.rng.below(3)).map(|_| 1 + self.rng.below(3)).collect();
            self.literal(Some(dims.clone()));
            (self.stmts.last().and_then(Stmt::defines).expect("the literal binds a name").to_string(), dims)
        };
        self.batch_norm(x, &dims);
    }

    /// `let y = batchNorm(x, s, b, m, v, epsilon = e) in` on `x` of shape `dims` (`dims[0] > 0`
    /// channels): the name it binds. In programs that may fail, sometimes one parameter has a
    /// channel too many (`shape-mismatch`) or is a scalar (`unknown-tensor`), or the epsilon is
    /// `0.0` (a variance of 0 then divides by zero: ±∞ or NaN, no error).
    pub(super) fn batch_norm(&mut self, x: String, dims: &[usize]) -> String {
        let channels = dims[0];
        let mistake = if self.moderate || !self.rng.chance(30) { None } else { Some(self.rng.below(4)) };
        let wrong = if mistake.is_some() { self.rng.weighted(&[70, 30]) } else { 0 };
        let mut xs = vec![Scalar::Var(x)];
        for parameter in 0..4 {
            let operand = match mistake {
                Some(k) if k == parameter && wrong == 0 => self.parameter(parameter, channels + 1),
                Some(k) if k == parameter => self.scalar(1),
                _ => {
                    let vectors: Vec<String> =
                        self.tensors().into_iter().filter(|(_, d)| d[..] == [channels]).map(|(n, _)| n).collect();
                    if !vectors.is_empty() && self.rng.chance(15) {
                        Scalar::Var(self.rng.pick(&vectors).clone())
                    } else {
                        self.parameter(parameter, channels)
                    }
                }
            };
            xs.push(operand);
        }
        let epsilon = if !self.moderate && self.rng.chance(10) { 0.0 } else { *self.rng.pick(&EPSILONS) };
        let out = self.name("y");
        self.stmts.push(Stmt::BatchNorm { out: out.clone(), xs, epsilon });
        self.bind(out.clone(), Binding::Tensor(dims.to_vec()));
        out
    }

    /// A literal parameter of `len` elements (`parameter` 0 … 3: scale, bias, mean, variance):
    /// the generator's numbers, some Ints; the variance mostly not negative (a negative one
    /// below `-epsilon` is a NaN), and never in programs that must not fail.
    fn parameter(&mut self, parameter: usize, len: usize) -> Scalar {
        let values = (0..len)
            .map(|_| {
                let value = self.float();
                if self.rng.chance(10) {
                    Number::Int(self.rng.below(5) as i64)
                } else if parameter == 3 && (self.moderate || self.rng.chance(85)) {
                    Number::Float(value.abs())
                } else {
                    Number::Float(value)
                }
            })
            .collect();
        let name = self.name("t");
        self.stmts.push(Stmt::Literal { name: name.clone(), dims: vec![len], values });
        self.bind(name.clone(), Binding::Tensor(vec![len]));
        Scalar::Var(name)
    }
}
