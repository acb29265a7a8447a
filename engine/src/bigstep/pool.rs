//! `let Y = maxPool2d(X, …) in E` and `let Y = avgPool2d(X, …) in E` (Ext-4): the checks of
//! `rev-let-func-error`, `ext-pool2d-invalid-attribute` and `ext-pool2d-shape-mismatch` in the
//! rules' order, the result allocated as `ext-let-pool2d` does, and the elements of
//! `ext-max-pool2d-helper-step` and `ext-avg-pool2d-helper-step` (until
//! `ext-pool2d-helper-done`) computed in the rules' order, through the scalar `max` and `+`
//! every other construct uses, and `poolMean`'s `/Float` (`ext-heat-pool-mean`, then
//! `ext-cool-pool-mean` once the sum is a value, then `ext-pool-mean`). With symbolic inputs
//! an image held in one buffer makes one `Pool2d` of the plan; otherwise the same loop records
//! `Read`/`Float`/`Write` operations.

use std::rc::Rc;

use knn_semantics::errors::ErrorKind;
use knn_semantics::syntax::{Exp, Func, FuncKind, Pool, Span};
use knn_semantics::window::{Pool2dGeometry, WindowAttrs};

use super::functions::{row_major_index, tensor_name};
use super::fuse;
use super::interpret::{Interpreter, Task};
use super::ops::{Arith, Eval, Op, error};
use super::scope::Scope;
use super::store::Value;

impl Interpreter<'_> {
    /// `ext-let-pool2d`, or the error of the first check that fails: the operand
    /// (`rev-let-func-error`), the attributes (`ext-pool2d-invalid-attribute`), the shape
    /// (`ext-pool2d-shape-mismatch`). Errors point at the call `F(…)`; the elements' at `span`,
    /// the whole `let`'s.
    pub(super) fn let_pool2d<'e>(
        &mut self,
        name: &str,
        func: &'e Func,
        body: &'e Exp,
        scope: Rc<Scope>,
        span: Span,
        tasks: &mut Vec<Task<'e>>,
    ) -> Eval<()> {
        let FuncKind::Pool2d(pool, x, attrs) = &func.kind else { unreachable!("called on the pools only") };
        let (pool, call) = (*pool, func.span);
        let usage = format!("`{}` takes the name of a tensor", pool.keyword());
        let x = tensor_name(x, call, &usage)?;
        let x_dims = self.operand_shape(&scope, x, name, call)?;
        let attrs = WindowAttrs::of(attrs);
        if let Some(detail) = attrs.invalid(pool.keyword()) {
            return Err(error(ErrorKind::InvalidAttribute, call, detail));
        }
        let dims: Vec<i64> = x_dims.iter().map(|&d| d as i64).collect();
        let geometry = Pool2dGeometry::check(pool.keyword(), x, &dims, attrs)
            .map_err(|detail| error(ErrorKind::ShapeMismatch, call, detail))?;
        let y_dims: Vec<usize> = geometry.output.iter().map(|&d| d as usize).collect();
        let root = self.stage.store.alloc(&y_dims, call)?;
        let done = if self.pool2d_op(pool, scope.env[x], &geometry, root, &y_dims, span) {
            Ok(())
        } else {
            self.pool(pool, scope.env[x], root, &geometry, &y_dims, span)
        };
        self.failing_in(done, || scope.with_tensor(name, root, &y_dims))?;
        tasks.push(Task::Eval(body, scope.with_tensor(name, root, &y_dims)));
        Ok(())
    }

    /// The whole helper as one `Pool2d` of the plan when `X` is one run of a buffer: every
    /// element sees the same operations in the same order (`window_ops::pool_apply`). Whether
    /// it was.
    fn pool2d_op(
        &mut self,
        pool: Pool,
        x_loc: usize,
        geometry: &Pool2dGeometry,
        y_root: usize,
        dims: &[usize],
        span: Span,
    ) -> bool {
        let x_dims: Vec<usize> = geometry.input.iter().map(|&n| n as usize).collect();
        let Some((x, x_at, _)) = fuse::slot_run(&self.stage.store, x_loc, &x_dims) else { return false };
        let targets = self.stage.store.leaves(y_root, dims);
        let out = fuse::output_buffer(self.stage, &targets);
        self.stage.record(Op::Pool2d { pool, out, x, x_at, geometry: *geometry, span });
        true
    }

    /// The helpers of the pools: for each output `(o, i, j)` in row-major order, over the
    /// window's taps inside the input in row-major window order, `max(acc, X[o, r, s])` from
    /// `-Infinity` (`ext-max-pool2d-helper-step`), or `acc + X[o, r, s]` from `0.0` divided by
    /// the count (`ext-avg-pool2d-helper-step`, `ext-pool-mean`: `F /Float Int2Float(N)`).
    fn pool(
        &mut self,
        pool: Pool,
        x_loc: usize,
        y_root: usize,
        g: &Pool2dGeometry,
        dims: &[usize],
        span: Span,
    ) -> Eval<()> {
        let targets = self.stage.store.leaves(y_root, dims);
        for (k, target) in targets.into_iter().enumerate() {
            let index = row_major_index(k, dims);
            let (o, i, j) = (index[0], index[1], index[2]);
            let (op, mut value) = match pool {
                Pool::Max => (Arith::Max, Value::Float(f64::NEG_INFINITY)),
                Pool::Avg => (Arith::Add, Value::Float(0.0)),
            };
            for (r, s) in g.taps(i, j).flatten() {
                let x = self.stage.read(x_loc, span);
                let element = self.index(x, &[o, r, s], span)?;
                value = self.arith(op, value, element, span)?;
            }
            if pool == Pool::Avg {
                value = self.arith(Arith::Div, value, Value::Float(g.count(i, j) as f64), span)?;
            }
            self.stage.write(target, value, span);
        }
        Ok(())
    }
}
