//! `let Y = slice(X, A, B, E[, S]) in E'` (Ext-12): the checks of `rev-let-func-error` and
//! `ext-slice-invalid-attribute` in the rules' order, the result allocated as `ext-let-slice`
//! does, and the element copies of `ext-slice-helper-step` (until `ext-slice-helper-done`) in
//! the result's row-major order, each read through the indexing every other construct uses; a
//! tensor held in one run of a buffer is one `Gather` of the plan.

use std::rc::Rc;
use std::sync::Arc;

use knn_semantics::errors::ErrorKind;
use knn_semantics::revisions::ext12_slice::{SliceAttrs, slice_shape, slice_source};
use knn_semantics::syntax::{Exp, Func, FuncKind, Span};

use super::functions::{row_major_index, tensor_name};
use super::fuse;
use super::interpret::{Interpreter, Task};
use super::ops::{BufId, Eval, Op, error};
use super::scope::Scope;

impl Interpreter<'_> {
    /// `ext-let-slice`, or the error of the first check that fails: the operand
    /// (`rev-let-func-error`), the attributes (`ext-slice-invalid-attribute`).
    pub(super) fn let_slice<'e>(
        &mut self,
        name: &str,
        func: &'e Func,
        body: &'e Exp,
        scope: Rc<Scope>,
        span: Span,
        tasks: &mut Vec<Task<'e>>,
    ) -> Eval<()> {
        let FuncKind::Slice(x, ints) = &func.kind else { unreachable!("called on slice only") };
        let call = func.span;
        let x = tensor_name(x, call, "`slice` takes the name of a tensor")?;
        let x_dims = self.operand_shape(&scope, x, name, call)?;
        let shape: Vec<i64> = x_dims.iter().map(|&d| d as i64).collect();
        let y_shape =
            slice_shape(x, &shape, ints).map_err(|detail| error(ErrorKind::InvalidAttribute, call, detail))?;
        let attrs = SliceAttrs::of(ints).expect("a valid slice has its attributes");
        let y_dims: Vec<usize> = y_shape.iter().map(|&d| d as usize).collect();
        let root = self.stage.store.alloc(&y_dims, call)?;
        let sources = sources(&x_dims, attrs, &y_dims);
        let x_loc = scope.env[x];
        let done = if self.gather_slice(x_loc, &x_dims, root, &y_dims, &sources) {
            Ok(())
        } else {
            self.copy_sliced(x_loc, &x_dims, root, &y_dims, &sources, span)
        };
        self.failing_in(done, || scope.with_tensor(name, root, &y_dims))?;
        tasks.push(Task::Eval(body, scope.with_tensor(name, root, &y_dims)));
        Ok(())
    }

    /// The whole copy as one `Gather` of the plan when `X` is one run of a buffer. Whether it
    /// was.
    fn gather_slice(
        &mut self,
        x_loc: usize,
        x_dims: &[usize],
        y_root: usize,
        y_dims: &[usize],
        from: &[usize],
    ) -> bool {
        let Some((x, x_at, _)) = fuse::slot_run(&self.stage.store, x_loc, x_dims) else { return false };
        let targets = self.stage.store.leaves(y_root, y_dims);
        let from: Vec<(BufId, usize)> = from.iter().map(|&j| (x, x_at + j)).collect();
        let out = fuse::output_buffer(self.stage, &targets);
        self.stage.record(Op::Gather { out, from: Arc::from(from) });
        true
    }

    /// The helper (`ext-slice-helper-step`): `Y[I] = X[J]` for every position `k` of `Y` in
    /// row-major order, `J` its source (`sources[k]`, row-major in `X`).
    fn copy_sliced(
        &mut self,
        x_loc: usize,
        x_dims: &[usize],
        y_root: usize,
        y_dims: &[usize],
        sources: &[usize],
        span: Span,
    ) -> Eval<()> {
        let targets = self.stage.store.leaves(y_root, y_dims);
        for (target, &j) in targets.into_iter().zip(sources) {
            let x = self.stage.read(x_loc, span);
            let element = self.index(x, &row_major_index(j, x_dims), span)?;
            self.stage.write(target, element, span);
        }
        Ok(())
    }
}

/// For each position `k` of the result in row-major order, the row-major position in `X` of the
/// element it copies: `rowMajor(k, Os)` with index `A` at `B + I[A]·S`.
pub fn sources(x_dims: &[usize], attrs: SliceAttrs, y_dims: &[usize]) -> Vec<usize> {
    let count: usize = y_dims.iter().product();
    (0..count)
        .map(|k| {
            let source = slice_source(&row_major_index(k, y_dims), attrs);
            source.iter().zip(x_dims).fold(0usize, |j, (&i, &d)| j * d + i as usize)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_step_along_the_axis_in_the_result_s_row_major_order() {
        // (2, 5) columns 1 and 3: [x1, x3, x6, x8].
        let attrs = SliceAttrs { axis: 1, begin: 1, end: 5, step: 2 };
        assert_eq!(sources(&[2, 5], attrs, &[2, 2]), [1, 3, 6, 8]);
        // Row 1 of (3, 2): [x2, x3].
        let attrs = SliceAttrs { axis: 0, begin: 1, end: 2, step: 1 };
        assert_eq!(sources(&[3, 2], attrs, &[1, 2]), [2, 3]);
        assert!(sources(&[3, 2], attrs, &[0, 2]).is_empty());
    }
}
