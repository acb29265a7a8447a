//! `let X = F(Y, Z) in E` for the element-wise tensor functions of Ext-8 (`subTensor`,
//! `mulTensor`, `divTensor`, and `addTensor` of two shapes that differ): the checks of
//! `rev-let-func-error` (the operands, left to right) and `ext-elementwise-shape-mismatch` /
//! `ext-add-tensor-shape-mismatch` (shapes that do not broadcast) in the rules' order, the
//! result allocated as `ext-let-elementwise` does, and the element lets of
//! `ext-broadcast-helper-step` (until `ext-broadcast-helper-done`) in the result's row-major
//! order: `Y`'s element, read through the indexing every other construct uses, then `Z`'s, then
//! the scalar operator (`arith`), so the bits and the errors are the reference's. With symbolic
//! operands the same loop records `Read`, `Float`, `Write` operations in the plan.

use std::rc::Rc;

use knn_semantics::broadcast::{broadcast, mismatch_detail, operand_index};
use knn_semantics::errors::ErrorKind;
use knn_semantics::syntax::{Exp, Span, TensorOp};

use super::combine::combine;
use super::functions::{row_major_index, tensor_name};
use super::interpret::{Interpreter, Task};
use super::ops::{Arith, Eval, error};
use super::scope::Scope;

fn to_usize(dims: &[i64]) -> Vec<usize> {
    dims.iter().map(|&d| d as usize).collect()
}

/// The scalar operator of `addTensor` (`None`) or of one of Ext-8's functions.
pub(super) fn element_arith(op: Option<TensorOp>) -> Arith {
    match op {
        None => Arith::Add,
        Some(TensorOp::Sub) => Arith::Sub,
        Some(TensorOp::Mul) => Arith::Mul,
        Some(TensorOp::Div) => Arith::Div,
    }
}

fn keyword(op: Option<TensorOp>) -> &'static str {
    op.map_or("addTensor", TensorOp::keyword)
}

impl Interpreter<'_> {
    /// `let name = F(y, z) in body` where `F` is `addTensor` (`op` is `None`) or `op`'s
    /// function. Equal shapes of `addTensor` are Ext-1's `ext-let-add-tensor`, computed by
    /// `add_tensors`; everything else here.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn let_elementwise<'e>(
        &mut self,
        name: &str,
        op: Option<TensorOp>,
        (y, z): (&'e Exp, &'e Exp),
        body: &'e Exp,
        scope: Rc<Scope>,
        (call, span): (Span, Span),
        tasks: &mut Vec<Task<'e>>,
    ) -> Eval<()> {
        let usage = format!("`{}` takes the names of two tensors", keyword(op));
        let y = tensor_name(y, call, &usage)?;
        let y_dims = self.operand_shape(&scope, y, name, call)?;
        let z = tensor_name(z, call, &usage)?;
        let z_dims = self.operand_shape(&scope, z, name, call)?;
        if op.is_none() && y_dims == z_dims {
            let (y_loc, z_loc) = (scope.env[y], scope.env[z]);
            let root = self.stage.store.alloc(&y_dims, call)?;
            let done = self.add_tensors(y_loc, z_loc, root, &y_dims, span);
            self.failing_in(done, || scope.with_tensor(name, root, &y_dims))?;
            tasks.push(Task::Eval(body, scope.with_tensor(name, root, &y_dims)));
            return Ok(());
        }
        let to_i64 = |dims: &[usize]| dims.iter().map(|&d| d as i64).collect::<Vec<i64>>();
        let (is, js) = (to_i64(&y_dims), to_i64(&z_dims));
        let Some(os) = broadcast(&is, &js) else {
            return Err(error(ErrorKind::ShapeMismatch, call, mismatch_detail(keyword(op), y, z, &is, &js)));
        };
        let x_dims: Vec<usize> = os.iter().map(|&d| d as usize).collect();
        let root = self.stage.store.alloc(&x_dims, call)?;
        let (y_loc, z_loc) = (scope.env[y], scope.env[z]);
        let done = self.broadcast_elements(element_arith(op), (y_loc, &is), (z_loc, &js), root, &x_dims, span);
        self.failing_in(done, || scope.with_tensor(name, root, &x_dims))?;
        tasks.push(Task::Eval(body, scope.with_tensor(name, root, &x_dims)));
        Ok(())
    }

    /// `ext-broadcast-helper-step` for every position of the result in row-major order:
    /// `X[I] = Y[operandIndex(I, Is)] op Z[operandIndex(I, Js)]`, `Y`'s element first
    /// (`seqstrict`).
    fn broadcast_elements(
        &mut self,
        op: Arith,
        (y_loc, is): (usize, &[i64]),
        (z_loc, js): (usize, &[i64]),
        x_root: usize,
        x_dims: &[usize],
        span: Span,
    ) -> Eval<()> {
        let targets = self.stage.store.leaves(x_root, x_dims);
        let (y_dims, z_dims) = (to_usize(is), to_usize(js));
        if combine(self.stage, op, (y_loc, &y_dims), (z_loc, &z_dims), (&targets, x_dims), span) {
            return Ok(());
        }
        for (k, target) in targets.into_iter().enumerate() {
            let index = row_major_index(k, x_dims);
            let y = self.stage.read(y_loc, span);
            let y_element = self.index(y, &operand_index(&index, is), span)?;
            let z = self.stage.read(z_loc, span);
            let z_element = self.index(z, &operand_index(&index, js), span)?;
            let value = self.arith(op, y_element, z_element, span)?;
            self.stage.write(target, value, span);
        }
        Ok(())
    }
}
