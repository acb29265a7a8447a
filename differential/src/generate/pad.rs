//! Ext-13's `pad` in a generated program, drawn so that it usually fits its operand and
//! sometimes does not.

use super::{Binding, Gen};
use crate::program::{Scalar, Stmt};

/// The border values drawn: zeros of both signs, ordinary numbers, the infinities (a max pool's
/// border) and NaN, which every element write must carry bit for bit.
const VALUES: [f64; 8] = [0.0, -0.0, 0.5, -1.5, 3.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN];

impl Gen {
    /// `let y = pad(x, V, Ps) in` (Ext-13): a tensor in scope (or a new literal of rank 1 to 3),
    /// a border value, a begin and an end of 0 to 2 per axis; in programs that may fail,
    /// sometimes one pad too few or too many (`invalid-attribute`) or a scalar input
    /// (`unknown-tensor`).
    pub(super) fn pad(&mut self) {
        let in_scope = self.tensors();
        let (x, dims) = if !in_scope.is_empty() && self.rng.chance(if self.image { 85 } else { 40 }) {
            if self.image && self.rng.chance(50) { in_scope[0].clone() } else { self.rng.pick(&in_scope).clone() }
        } else {
            let dims: Vec<usize> = (0..1 + self.rng.below(3)).map(|_| 1 + self.rng.below(3)).collect();
            self.literal(Some(dims.clone()));
            let name = self.stmts.last().and_then(Stmt::defines).expect("the literal binds a name");
            (name.to_string(), dims)
        };
        let value = *self.rng.pick(&VALUES);
        let mut pads: Vec<i64> = (0..2 * dims.len()).map(|_| self.rng.below(3) as i64).collect();
        let (begins, ends) = pads.split_at(dims.len());
        let out_dims: Vec<usize> =
            dims.iter().zip(begins).zip(ends).map(|((&d, &b), &a)| d + b as usize + a as usize).collect();
        let mistake = if self.moderate || !self.rng.chance(35) { None } else { Some(self.rng.below(3)) };
        match mistake {
            Some(0) => {
                pads.pop();
            }
            Some(1) => pads.push(1),
            _ => {}
        }
        let x = if mistake == Some(2) { self.scalar(1) } else { Scalar::Var(x) };
        let out = self.name("y");
        self.stmts.push(Stmt::Pad { out: out.clone(), x, value, pads });
        self.bind(out, Binding::Tensor(out_dims));
    }
}
