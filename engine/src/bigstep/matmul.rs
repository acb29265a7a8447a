//! `let X = matmul(Y, Z) in E` (Ext-15): the checks of `rev-let-func-error` (the operands, left
//! to right) and `ext-matmul-shape-mismatch` in the rules' order, the result allocated as
//! `ext-let-matmul` does, and the element lets of `ext-matmul-helper-step` (until
//! `ext-matmul-helper-done`): for each element of the result in row-major order, its products
//! in increasing `P`, each `X[O] = X[O] + (Y[…] * Z[…])` with `X[O]` read first, then `Y`'s
//! element, then `Z`'s, through the indexing and the scalar operators every other construct
//! uses, so the bits and the errors are the reference's (`linear`'s order: from `0.0`, the
//! product rounded, then the sum). When one operand is held in one buffer and the other in a
//! buffer or constant, the whole product is one `MatMul` of the plan (`matmul_op.rs`, the same
//! order; `x·W` on the tensor core's kernels, `matmul_rows.rs`); otherwise, with symbolic operands, the loop records `Read`, `Float`, `Write`
//! operations.

use std::rc::Rc;
use std::sync::Arc;

use knn_semantics::errors::ErrorKind;
use knn_semantics::matmul::{inner_extent, left_index, matmul_mismatch_detail, matmul_shape, right_index};
use knn_semantics::syntax::{Exp, Span};

use super::functions::{row_major_index, tensor_name};
use super::fuse;
use super::interpret::{Interpreter, Task};
use super::ops::{Arith, Eval, MatmulGeometry, MatmulOperand, MatmulRows, Op, error};
use super::scope::Scope;

impl Interpreter<'_> {
    /// `ext-let-matmul`, or the error of the first check that fails: the operands
    /// (`rev-let-func-error`), the shapes (`ext-matmul-shape-mismatch`).
    pub(super) fn let_matmul<'e>(
        &mut self,
        name: &str,
        (y, z): (&'e Exp, &'e Exp),
        body: &'e Exp,
        scope: Rc<Scope>,
        (call, span): (Span, Span),
        tasks: &mut Vec<Task<'e>>,
    ) -> Eval<()> {
        let usage = "`matmul` takes the names of two tensors";
        let y = tensor_name(y, call, usage)?;
        let y_dims = self.operand_shape(&scope, y, name, call)?;
        let z = tensor_name(z, call, usage)?;
        let z_dims = self.operand_shape(&scope, z, name, call)?;
        let to_i64 = |dims: &[usize]| dims.iter().map(|&d| d as i64).collect::<Vec<i64>>();
        let (is, js) = (to_i64(&y_dims), to_i64(&z_dims));
        let Some(os) = matmul_shape(&is, &js) else {
            return Err(error(ErrorKind::ShapeMismatch, call, matmul_mismatch_detail(y, z, &is, &js)));
        };
        let x_dims: Vec<usize> = os.iter().map(|&d| d as usize).collect();
        let root = self.stage.store.alloc(&x_dims, call)?;
        let (y_loc, z_loc) = (scope.env[y], scope.env[z]);
        let shapes = (&is[..], &js[..], &os[..]);
        let done = if self.matmul_op((y_loc, &y_dims), (z_loc, &z_dims), (root, &x_dims), shapes, call) {
            Ok(())
        } else {
            self.matmul_elements((y_loc, &is), (z_loc, &js), root, &x_dims, span)
        };
        self.failing_in(done, || scope.with_tensor(name, root, &x_dims))?;
        tasks.push(Task::Eval(body, scope.with_tensor(name, root, &x_dims)));
        Ok(())
    }

    /// The whole product as one `MatMul` of the plan when one operand is one run of a buffer
    /// and the other one too, or a constant (Floats, or Ints the mixed rules widen: the product
    /// of an Int and a Float is `Int2Float(I) *Float F`). Whether it was.
    fn matmul_op(
        &mut self,
        (y_loc, y_dims): (usize, &[usize]),
        (z_loc, z_dims): (usize, &[usize]),
        (x_root, x_dims): (usize, &[usize]),
        (is, js, os): (&[i64], &[i64], &[i64]),
        span: Span,
    ) -> bool {
        let store = &self.stage.store;
        let operand = |loc: usize, dims: &[usize]| match fuse::slot_run(store, loc, dims) {
            Some((buf, at, _)) => Some(MatmulOperand::Buffer { buf, at }),
            None => fuse::constant_tensor(store, loc, dims).map(|values| MatmulOperand::Const(Arc::from(values))),
        };
        let (Some(a), Some(b)) = (operand(y_loc, y_dims), operand(z_loc, z_dims)) else { return false };
        if a.buffer().is_none() && b.buffer().is_none() {
            // Two constants: computed now, element by element.
            return false;
        }
        let mut geometry = MatmulGeometry::new(is, js, os);
        geometry.by_rows = match (&a, &b) {
            (MatmulOperand::Buffer { .. }, MatmulOperand::Const(w)) => {
                MatmulRows::buffer_by_constant(&geometry.bases, w, js)
            }
            (MatmulOperand::Const(w), MatmulOperand::Buffer { .. }) => {
                MatmulRows::constant_by_buffer(&geometry.bases, w, is, js)
            }
            _ => None,
        };
        let geometry = Arc::new(geometry);
        let targets = self.stage.store.leaves(x_root, x_dims);
        let out = fuse::output_buffer(self.stage, &targets);
        self.stage.record(Op::MatMul { out, a, b, geometry, span });
        true
    }

    /// `ext-matmul-helper-step` for every step `K` in order: element `K / P` of the result
    /// (row-major), product `K mod P`: `X[O] = X[O] + (Y[leftIndex] * Z[rightIndex])`.
    fn matmul_elements(
        &mut self,
        (y_loc, is): (usize, &[i64]),
        (z_loc, js): (usize, &[i64]),
        x_root: usize,
        x_dims: &[usize],
        span: Span,
    ) -> Eval<()> {
        let inner = inner_extent(is);
        let targets = self.stage.store.leaves(x_root, x_dims);
        for (k, target) in targets.into_iter().enumerate() {
            let o = row_major_index(k, x_dims);
            for p in 0..inner {
                let x_o = self.stage.read(target, span);
                let y = self.stage.read(y_loc, span);
                let y_element = self.index(y, &left_index(&o, p, is, js), span)?;
                let z = self.stage.read(z_loc, span);
                let z_element = self.index(z, &right_index(&o, p, is, js), span)?;
                let product = self.arith(Arith::Mul, y_element, z_element, span)?;
                let sum = self.arith(Arith::Add, x_o, product, span)?;
                self.stage.write(target, sum, span);
            }
        }
        Ok(())
    }
}
