//! `matmul` (Ext-15) in a generated program: a tensor in scope (often computed from the input)
//! or a new literal, multiplied by a new literal whose shape fits it on either side (a vector, a
//! matrix, or a batch whose axes broadcast), so that both engines compute products of computed
//! tensors; sometimes a mistake.

use knn_semantics::matmul::matmul_shape;

use super::{Binding, Gen};
use crate::program::{Scalar, Stmt};

impl Gen {
    /// `let y = matmul(a, b) in`: the tensor in scope on the left or the right; its partner a
    /// literal whose inner extent matches (sometimes one more: `shape-mismatch`, in programs
    /// that may fail), or a scalar (`unknown-tensor`).
    pub(super) fn matmul(&mut self) {
        let in_scope = self.tensors();
        let (x, dims) = if !in_scope.is_empty() && self.rng.chance(70) {
            self.rng.pick(&in_scope).clone()
        } else {
            let dims: Vec<usize> = (0..1 + self.rng.below(3)).map(|_| 1 + self.rng.below(3)).collect();
            self.literal(Some(dims.clone()));
            (self.stmts.last().and_then(Stmt::defines).expect("a literal binds its name").to_string(), dims)
        };
        let on_left = self.rng.chance(50);
        let rank = dims.len();
        // The extent the partner must share: the left operand's last axis is the right one's
        // second-to-last (a vector's only axis).
        let inner = if on_left || rank == 1 { dims[rank - 1] } else { dims[rank - 2] };
        let mistake = if self.moderate || !self.rng.chance(25) { None } else { Some(self.rng.weighted(&[70, 30])) };
        let inner = if mistake == Some(0) { inner + 1 } else { inner };
        let outer = 1 + self.rng.below(3);
        // The partner's batch axes: none, or the tensor's own batch axes, some of them 1.
        let batch: Vec<usize> = if rank > 2 && self.rng.chance(40) {
            dims[..rank - 2].iter().map(|&d| if self.rng.chance(40) { 1 } else { d }).collect()
        } else {
            Vec::new()
        };
        let mut partner = batch;
        match (self.rng.below(3), on_left) {
            (0, _) => partner = vec![inner],
            (_, true) => partner.extend([inner, outer]),
            (_, false) => partner.extend([outer, inner]),
        }
        let b = if mistake == Some(1) {
            self.scalar(1)
        } else {
            self.literal(Some(partner.clone()));
            Scalar::Var(self.stmts.last().and_then(Stmt::defines).expect("a literal binds its name").to_string())
        };
        let (a, b, a_dims, b_dims) = if on_left {
            (Scalar::Var(x), b, dims.clone(), partner)
        } else {
            (b, Scalar::Var(x), partner, dims.clone())
        };
        let as_i64 = |d: &[usize]| d.iter().map(|&n| n as i64).collect::<Vec<i64>>();
        let out_dims = matmul_shape(&as_i64(&a_dims), &as_i64(&b_dims))
            .map_or(dims, |o| o.into_iter().map(|n| n as usize).collect());
        let out = self.name("y");
        self.stmts.push(Stmt::Matmul { out: out.clone(), a, b });
        self.bind(out, Binding::Tensor(out_dims));
    }
}
