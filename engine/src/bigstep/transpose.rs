//! `let Y = transpose(X, Ps) in E` (Ext-6): the checks of `rev-let-func-error` and
//! `ext-transpose-invalid-permutation` in the rules' order, the result allocated as
//! `ext-let-transpose` does, and the element copies of `ext-transpose-helper-step` (until
//! `ext-transpose-helper-done`) in the result's row-major order, each read through the indexing
//! every other construct uses; a tensor held in one buffer is one `Permute` of the plan.

use std::rc::Rc;
use std::sync::Arc;

use knn_semantics::errors::ErrorKind;
use knn_semantics::revisions::ext6_transpose::{is_permutation, permutation_detail, permute, unpermute};
use knn_semantics::syntax::{Exp, Func, FuncKind, Span};

use super::functions::{row_major_index, tensor_name};
use super::fuse;
use super::interpret::{Interpreter, Task};
use super::ops::{Eval, Op, error};
use super::scope::Scope;

impl Interpreter<'_> {
    /// `ext-let-transpose`, or the error of the first check that fails: the operand
    /// (`rev-let-func-error`), the axes (`ext-transpose-invalid-permutation`).
    pub(super) fn let_transpose<'e>(
        &mut self,
        name: &str,
        func: &'e Func,
        body: &'e Exp,
        scope: Rc<Scope>,
        span: Span,
        tasks: &mut Vec<Task<'e>>,
    ) -> Eval<()> {
        let FuncKind::Transpose(x, perm) = &func.kind else { unreachable!("called on transpose only") };
        let call = func.span;
        let x = tensor_name(x, call, "`transpose` takes the name of a tensor")?;
        let x_dims = self.operand_shape(&scope, x, name, call)?;
        let shape: Vec<i64> = x_dims.iter().map(|&d| d as i64).collect();
        if !is_permutation(perm, shape.len()) {
            return Err(error(ErrorKind::InvalidAttribute, call, permutation_detail(x, &shape, perm)));
        }
        let y_dims: Vec<usize> = permute(&shape, perm).into_iter().map(|d| d as usize).collect();
        let root = self.stage.store.alloc(&y_dims, call)?;
        let sources = sources(&x_dims, perm);
        let done = if self.permute_op(scope.env[x], &x_dims, root, &y_dims, &sources) {
            Ok(())
        } else {
            self.copy_transposed(scope.env[x], &x_dims, root, &y_dims, &sources, span)
        };
        self.failing_in(done, || scope.with_tensor(name, root, &y_dims))?;
        tasks.push(Task::Eval(body, scope.with_tensor(name, root, &y_dims)));
        Ok(())
    }

    /// The whole copy as one `Permute` of the plan when `X` is one run of a buffer. Whether it
    /// was.
    fn permute_op(&mut self, x_loc: usize, x_dims: &[usize], y_root: usize, y_dims: &[usize], from: &[usize]) -> bool {
        let Some((x, x_at, _)) = fuse::slot_run(&self.stage.store, x_loc, x_dims) else { return false };
        let targets = self.stage.store.leaves(y_root, y_dims);
        let out = fuse::output_buffer(self.stage, &targets);
        self.stage.record(Op::Permute { out, x, x_at, from: Arc::from(from) });
        true
    }

    /// The helper (`ext-transpose-helper-step`): `Y[I] = X[J]` for every position `k` of `Y`
    /// in row-major order, `I = rowMajor(k, SH[Y])` and `J` its source (`sources[k]`, row-major
    /// in `X`).
    fn copy_transposed(
        &mut self,
        x_loc: usize,
        x_dims: &[usize],
        y_root: usize,
        y_dims: &[usize],
        sources: &[usize],
        span: Span,
    ) -> Eval<()> {
        let targets = self.stage.store.leaves(y_root, y_dims);
        debug_assert_eq!(targets.len(), sources.len());
        for (target, &j) in targets.into_iter().zip(sources) {
            let x = self.stage.read(x_loc, span);
            let element = self.index(x, &row_major_index(j, x_dims), span)?;
            self.stage.write(target, element, span);
        }
        Ok(())
    }
}

/// For each position `k` of the result in row-major order, the row-major position in `X` of the
/// element it copies: `J` with `J[Ps[i]] = rowMajor(k, permute(SH[X], Ps))[i]`.
pub fn sources(x_dims: &[usize], perm: &[i64]) -> Vec<usize> {
    let shape: Vec<i64> = x_dims.iter().map(|&d| d as i64).collect();
    let y_shape = permute(&shape, perm);
    let count: usize = x_dims.iter().product();
    (0..count)
        .map(|k| {
            let mut rest = k as i64;
            let mut at = vec![0i64; y_shape.len()];
            for (slot, &d) in at.iter_mut().zip(&y_shape).rev() {
                *slot = rest % d;
                rest /= d;
            }
            unpermute(&at, perm).iter().zip(&shape).fold(0usize, |j, (&i, &d)| j * d as usize + i as usize)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::sources;

    #[test]
    fn sources_follow_the_result_in_row_major_order() {
        // (2, 3) transposed: the result (3, 2) is [[x0, x3], [x1, x4], [x2, x5]].
        assert_eq!(sources(&[2, 3], &[1, 0]), [0, 3, 1, 4, 2, 5]);
        assert_eq!(sources(&[2, 3], &[0, 1]), [0, 1, 2, 3, 4, 5]);
        // (1, 2, 2) to channels last (2, 2, 1): one channel, the same order.
        assert_eq!(sources(&[1, 2, 2], &[1, 2, 0]), [0, 1, 2, 3]);
        // (2, 1, 2) with perm (2, 0, 1): shape (2, 2, 1), element (c, a, b) is x[a, b, c].
        assert_eq!(sources(&[2, 1, 2], &[2, 0, 1]), [0, 2, 1, 3]);
        assert!(sources(&[0, 3], &[1, 0]).is_empty());
    }
}
