//! `let Y = concat(X1, …, Xn, A) in E` (Ext-11): the checks of `rev-let-func-error` (each
//! operand, left to right), `ext-concat-invalid-axis` and `ext-concat-shape-mismatch` in the
//! rules' order, the result allocated as `ext-let-concat` does, and the element copies of
//! `ext-concat-helper-step` (until `ext-concat-helper-done`) in the result's row-major order,
//! each read through the indexing every other construct uses; when every operand is one run
//! of a buffer, the whole copy is one `Gather` of the plan.

use std::rc::Rc;
use std::sync::Arc;

use knn_semantics::errors::ErrorKind;
use knn_semantics::revisions::ext11_concat::{concat_shape, concat_source};
use knn_semantics::syntax::{Exp, Func, FuncKind, Span};

use super::functions::row_major_index;
use super::fuse;
use super::interpret::{Interpreter, Task};
use super::ops::{BufId, Eval, Op, error};
use super::scope::Scope;

impl Interpreter<'_> {
    /// `ext-let-concat`, or the error of the first check that fails: the operands
    /// (`rev-let-func-error`), the axis (`ext-concat-invalid-axis`), the shapes
    /// (`ext-concat-shape-mismatch`).
    pub(super) fn let_concat<'e>(
        &mut self,
        name: &str,
        func: &'e Func,
        body: &'e Exp,
        scope: Rc<Scope>,
        span: Span,
        tasks: &mut Vec<Task<'e>>,
    ) -> Eval<()> {
        let FuncKind::Concat(xs, axis) = &func.kind else { unreachable!("called on concat only") };
        let call = func.span;
        let (names, dims) = self.tensor_operands(&scope, xs, (name, call, "`concat` takes the names of tensors"))?;
        if names.is_empty() {
            // Only a program built without the parser has no operand: no rule binds it.
            let detail = format!("no rule binds `{name}` to `concat(…)`");
            return Err(error(ErrorKind::InvalidLetTarget, call, detail));
        }
        let shapes: Vec<Vec<i64>> = dims.iter().map(|d| d.iter().map(|&n| n as i64).collect()).collect();
        let shape_refs: Vec<&[i64]> = shapes.iter().map(Vec::as_slice).collect();
        let y_shape = concat_shape(&names, &shape_refs, *axis)
            .map_err(|fault| error(fault.kind(), call, fault.detail().to_string()))?;
        let y_dims: Vec<usize> = y_shape.iter().map(|&d| d as usize).collect();
        let root = self.stage.store.alloc(&y_dims, call)?;
        let locs: Vec<usize> = names.iter().map(|x| scope.env[*x]).collect();
        let done = if self.gather_op(&locs, &dims, &shapes, *axis as usize, root, &y_dims) {
            Ok(())
        } else {
            self.copy_concatenated(&locs, &shapes, *axis as usize, root, &y_dims, span)
        };
        self.failing_in(done, || scope.with_tensor(name, root, &y_dims))?;
        tasks.push(Task::Eval(body, scope.with_tensor(name, root, &y_dims)));
        Ok(())
    }

    /// The whole copy as one `Gather` of the plan when each operand is one run of a buffer (its
    /// elements Floats held in slots, none overwritten: the element lets cannot fail). Whether
    /// it was.
    fn gather_op(
        &mut self,
        x_locs: &[usize],
        x_dims: &[Rc<[usize]>],
        x_shapes: &[Vec<i64>],
        axis: usize,
        y_root: usize,
        y_dims: &[usize],
    ) -> bool {
        let mut runs: Vec<(BufId, usize)> = Vec::with_capacity(x_locs.len());
        for (&loc, dims) in x_locs.iter().zip(x_dims) {
            match fuse::slot_run(&self.stage.store, loc, dims) {
                Some((buf, at, _)) => runs.push((buf, at)),
                None => return false,
            }
        }
        let extents: Vec<i64> = x_shapes.iter().map(|s| s[axis]).collect();
        let targets = self.stage.store.leaves(y_root, y_dims);
        let from: Vec<(BufId, usize)> = (0..targets.len())
            .map(|k| {
                let (j, source) = concat_source(&row_major_index(k, y_dims), axis, &extents);
                let position = source.iter().zip(&x_shapes[j]).fold(0usize, |p, (&i, &d)| p * d as usize + i as usize);
                (runs[j].0, runs[j].1 + position)
            })
            .collect();
        let out = fuse::output_buffer(self.stage, &targets);
        self.stage.record(Op::Gather { out, from: Arc::from(from) });
        true
    }

    /// The helper (`ext-concat-helper-step`): `Y[I] = Xj[J]` for every position `k` of `Y` in
    /// row-major order, `I = rowMajor(k, SH[Y])` and `(j, J) = concatSource(SH, Xs, A, I)`.
    fn copy_concatenated(
        &mut self,
        x_locs: &[usize],
        x_shapes: &[Vec<i64>],
        axis: usize,
        y_root: usize,
        y_dims: &[usize],
        span: Span,
    ) -> Eval<()> {
        let extents: Vec<i64> = x_shapes.iter().map(|s| s[axis]).collect();
        let targets = self.stage.store.leaves(y_root, y_dims);
        for (k, target) in targets.into_iter().enumerate() {
            let (j, source) = concat_source(&row_major_index(k, y_dims), axis, &extents);
            let x = self.stage.read(x_locs[j], span);
            let element = self.index(x, &source, span)?;
            self.stage.write(target, element, span);
        }
        Ok(())
    }
}
