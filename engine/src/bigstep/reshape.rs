//! `let Y = reshape(X, Os) in E` and `let Y = flatten(X) in E` (Ext-5): the checks of
//! `rev-let-func-error` and `ext-reshape-shape-mismatch` in the rules' order, the result
//! allocated as `ext-let-reshape` and `ext-let-flatten` do, and the element copies of
//! `ext-reshape-helper-step` (until `ext-reshape-helper-done`) in row-major order, each read
//! through the indexing every other construct uses; a tensor held in one buffer is one `Copy`
//! of the plan.

use std::rc::Rc;

use knn_semantics::errors::ErrorKind;
use knn_semantics::revisions::ext5_reshape::{mismatch_detail, size};
use knn_semantics::syntax::{Exp, Func, FuncKind, Span};

use super::functions::{row_major_index, tensor_name};
use super::fuse;
use super::interpret::{Interpreter, Task};
use super::ops::{Eval, Op, error};
use super::scope::Scope;

impl Interpreter<'_> {
    /// `ext-let-reshape` (`ext-let-flatten`), or the error of the first check that fails: the
    /// operand (`rev-let-func-error`), the element counts (`ext-reshape-shape-mismatch`).
    pub(super) fn let_reshape<'e>(
        &mut self,
        name: &str,
        func: &'e Func,
        body: &'e Exp,
        scope: Rc<Scope>,
        span: Span,
        tasks: &mut Vec<Task<'e>>,
    ) -> Eval<()> {
        let FuncKind::Reshape(x, dims) = &func.kind else { unreachable!("called on reshape and flatten only") };
        let call = func.span;
        let usage = format!("`{}` takes the name of a tensor", func.keyword());
        let x = tensor_name(x, call, &usage)?;
        let x_dims = self.operand_shape(&scope, x, name, call)?;
        let shape: Vec<i64> = x_dims.iter().map(|&d| d as i64).collect();
        let y_dims: Vec<usize> = match dims {
            Some(dims) if size(dims) != size(&shape) => {
                return Err(error(ErrorKind::ShapeMismatch, call, mismatch_detail(x, &shape, dims)));
            }
            Some(dims) => dims.iter().map(|&d| d as usize).collect(),
            None => vec![x_dims.iter().product()],
        };
        let root = self.stage.store.alloc(&y_dims, call)?;
        let done = if self.copy_op(scope.env[x], &x_dims, root, &y_dims) {
            Ok(())
        } else {
            self.copy_reshaped(scope.env[x], &x_dims, root, &y_dims, span)
        };
        self.failing_in(done, || scope.with_tensor(name, root, &y_dims))?;
        tasks.push(Task::Eval(body, scope.with_tensor(name, root, &y_dims)));
        Ok(())
    }

    /// The whole copy as one `Copy` of the plan when `X` is one run of a buffer. Whether it
    /// was.
    fn copy_op(&mut self, x_loc: usize, x_dims: &[usize], y_root: usize, y_dims: &[usize]) -> bool {
        let Some((x, x_at, len)) = fuse::slot_run(&self.stage.store, x_loc, x_dims) else { return false };
        let targets = self.stage.store.leaves(y_root, y_dims);
        let out = fuse::output_buffer(self.stage, &targets);
        self.stage.record(Op::Copy { out, x, x_at, len });
        true
    }

    /// The helper (`ext-reshape-helper-step`): `Y[rowMajor(k, Os)] = X[rowMajor(k, SH[X])]` for
    /// every `k` in order.
    fn copy_reshaped(
        &mut self,
        x_loc: usize,
        x_dims: &[usize],
        y_root: usize,
        y_dims: &[usize],
        span: Span,
    ) -> Eval<()> {
        let targets = self.stage.store.leaves(y_root, y_dims);
        for (k, target) in targets.into_iter().enumerate() {
            let x = self.stage.read(x_loc, span);
            let element = self.index(x, &row_major_index(k, x_dims), span)?;
            self.stage.write(target, element, span);
        }
        Ok(())
    }
}
