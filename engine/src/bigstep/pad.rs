//! `let Y = pad(X, V, Ps) in E` (Ext-13): the checks of `rev-let-func-error` and
//! `ext-pad-invalid-pads` in the rules' order, the result allocated as `ext-let-pad` does, and
//! the element writes of `ext-pad-helper-copy` and `ext-pad-helper-fill` (until
//! `ext-pad-helper-done`) in the result's row-major order, each copy read through the indexing
//! every other construct uses; a tensor held in one buffer is one `Pad` of the plan.

use std::rc::Rc;
use std::sync::Arc;

use knn_semantics::errors::ErrorKind;
use knn_semantics::revisions::ext13_pad::{padded, pads_detail, source_index};
use knn_semantics::syntax::{Exp, Func, FuncKind, Span};

use super::functions::{row_major_index, tensor_name};
use super::fuse;
use super::interpret::{Interpreter, Task};
use super::ops::{Eval, Op, error};
use super::scope::Scope;
use super::store::Value;

impl Interpreter<'_> {
    /// `ext-let-pad`, or the error of the first check that fails: the operand
    /// (`rev-let-func-error`), the pads (`ext-pad-invalid-pads`).
    pub(super) fn let_pad<'e>(
        &mut self,
        name: &str,
        func: &'e Func,
        body: &'e Exp,
        scope: Rc<Scope>,
        span: Span,
        tasks: &mut Vec<Task<'e>>,
    ) -> Eval<()> {
        let FuncKind::Pad(x, value, pads) = &func.kind else { unreachable!("called on pad only") };
        let call = func.span;
        let x = tensor_name(x, call, "`pad` takes the name of a tensor")?;
        let x_dims = self.operand_shape(&scope, x, name, call)?;
        let shape: Vec<i64> = x_dims.iter().map(|&d| d as i64).collect();
        let Some(y_shape) = padded(&shape, pads) else {
            return Err(error(ErrorKind::InvalidAttribute, call, pads_detail(x, &shape, pads)));
        };
        // An extent beyond the address space cannot be allocated: `alloc` refuses it as
        // `defineTensor` does.
        let y_dims: Vec<usize> = y_shape.iter().map(|&d| usize::try_from(d).unwrap_or(usize::MAX)).collect();
        let root = self.stage.store.alloc(&y_dims, call)?;
        let sources = sources(&x_dims, pads, &y_dims);
        let done = if self.pad_op(scope.env[x], &x_dims, root, &y_dims, &sources, *value) {
            Ok(())
        } else {
            self.copy_padded(scope.env[x], &x_dims, root, &y_dims, &sources, *value, span)
        };
        self.failing_in(done, || scope.with_tensor(name, root, &y_dims))?;
        tasks.push(Task::Eval(body, scope.with_tensor(name, root, &y_dims)));
        Ok(())
    }

    /// The whole helper as one `Pad` of the plan when `X` is one run of a buffer. Whether it
    /// was.
    fn pad_op(
        &mut self,
        x_loc: usize,
        x_dims: &[usize],
        y_root: usize,
        y_dims: &[usize],
        from: &[Option<usize>],
        value: f64,
    ) -> bool {
        let Some((x, x_at, x_len)) = fuse::slot_run(&self.stage.store, x_loc, x_dims) else { return false };
        let targets = self.stage.store.leaves(y_root, y_dims);
        let out = fuse::output_buffer(self.stage, &targets);
        self.stage.record(Op::Pad { out, x, x_at, x_len, from: Arc::from(from), value });
        true
    }

    /// The helper: for every position `k` of `Y` in row-major order, `Y[I] = X[J]` when the
    /// position is inside (`ext-pad-helper-copy`, `J` row-major in `X` at `sources[k]`), else
    /// `Y[I] = V` (`ext-pad-helper-fill`).
    #[allow(clippy::too_many_arguments)]
    fn copy_padded(
        &mut self,
        x_loc: usize,
        x_dims: &[usize],
        y_root: usize,
        y_dims: &[usize],
        sources: &[Option<usize>],
        value: f64,
        span: Span,
    ) -> Eval<()> {
        let targets = self.stage.store.leaves(y_root, y_dims);
        debug_assert_eq!(targets.len(), sources.len());
        for (target, source) in targets.into_iter().zip(sources) {
            let element = match source {
                Some(j) => {
                    let x = self.stage.read(x_loc, span);
                    self.index(x, &row_major_index(*j, x_dims), span)?
                }
                None => Value::Float(value),
            };
            self.stage.write(target, element, span);
        }
        Ok(())
    }
}

/// For each position `k` of the result (of shape `y_dims`) in row-major order, the row-major
/// position in `X` of the element it copies (`inside`), or `None` for the border.
pub fn sources(x_dims: &[usize], pads: &[i64], y_dims: &[usize]) -> Vec<Option<usize>> {
    let shape: Vec<i64> = x_dims.iter().map(|&d| d as i64).collect();
    let begins = &pads[..shape.len()];
    let count: usize = y_dims.iter().product();
    (0..count)
        .map(|k| {
            let at = row_major_index(k, y_dims);
            let j = source_index(&at, begins, &shape)?;
            Some(j.iter().zip(x_dims).fold(0usize, |n, (&i, &d)| n * d + i as usize))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::sources;

    #[test]
    fn sources_follow_the_result_in_row_major_order() {
        // (2, 2) = [[x0, x1], [x2, x3]] with begins (1, 0), ends (0, 1): the (3, 3) result is
        // [[V, V, V], [x0, x1, V], [x2, x3, V]].
        let (o, v) = (Some, None);
        assert_eq!(sources(&[2, 2], &[1, 0, 0, 1], &[3, 3]), [v, v, v, o(0), o(1), v, o(2), o(3), v]);
        // Rank 1, begins 2, ends 1: [V, V, x0, x1, V].
        assert_eq!(sources(&[2], &[2, 1], &[5]), [v, v, o(0), o(1), v]);
        assert_eq!(sources(&[3], &[0, 0], &[3]), [o(0), o(1), o(2)], "no pad is a copy");
        assert_eq!(sources(&[0], &[1, 1], &[2]), [v, v], "an empty axis is all border");
    }
}
