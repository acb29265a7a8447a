//! `let X = F(Y, …) in E` for Ext-9 (`expTensor`, `logTensor`, `softmax`, `logSoftmax`) and
//! Ext-10 (`reduceSum`, `reduceMean`, `reduceMax`, `reduceMin`): the checks of
//! `rev-let-func-error`, `ext-softmax-invalid-axis` and `ext-reduce-invalid-axes` in the rules'
//! order, the result allocated as `ext-let-exp-log-tensor`, `ext-let-softmax` and
//! `ext-let-reduce` do, and the elements computed in the rules' order through the scalar
//! operations every other construct uses; an item's element is read before the item computes
//! (`ext-heat-math-item`, then `ext-cool-math-item` once it is a value). With symbolic inputs
//! the same loops record `Read`/`Float`/`Item`/`Write` operations in the plan.

use std::rc::Rc;
use std::sync::Arc;

use knn_semantics::errors::ErrorKind;
use knn_semantics::numeric::k_max;
use knn_semantics::revisions::axes::{
    axes_detail, axis_detail, group_indices, reduced_shape, slice_count, slice_indices, valid_axes, valid_axis,
};
use knn_semantics::syntax::{Exp, Func, FuncKind, Span, TensorMath};
use knn_semantics::term::MathFn;

use super::functions::{row_major_index, tensor_name};
use super::fuse;
use super::interpret::{Interpreter, Task};
use super::ops::{Activation, Arith, Eval, Item, Op, ReduceKind, error};
use super::scope::Scope;
use super::store::Value;
use super::window_ops::MaxOfNaN;

impl Interpreter<'_> {
    /// `ext-let-exp-log-tensor`, `ext-let-softmax`, `ext-let-reduce`, or the error of the first
    /// check that fails: the operand (`rev-let-func-error`), the axes
    /// (`ext-softmax-invalid-axis`, `ext-reduce-invalid-axes`).
    pub(super) fn let_tensor_math<'e>(
        &mut self,
        name: &str,
        func: &'e Func,
        body: &'e Exp,
        scope: Rc<Scope>,
        span: Span,
        tasks: &mut Vec<Task<'e>>,
    ) -> Eval<()> {
        let FuncKind::TensorMath(f, y, axes) = &func.kind else { unreachable!("called on Ext-9 and Ext-10 only") };
        let (f, call) = (*f, func.span);
        let y = tensor_name(y, call, &format!("`{}` takes the name of a tensor", f.keyword()))?;
        let y_dims = self.operand_shape(&scope, y, name, call)?;
        let shape: Vec<i64> = y_dims.iter().map(|&d| d as i64).collect();
        // The parser writes one axis for the softmax; a term built otherwise without one reads
        // axis 0, as the rules' `softmax_axis` does.
        let axis = axes.first().copied().unwrap_or(0);
        let x_dims: Vec<usize> = match f {
            TensorMath::ExpTensor | TensorMath::LogTensor => y_dims.to_vec(),
            TensorMath::Softmax | TensorMath::LogSoftmax => {
                if !valid_axis(axis, shape.len()) {
                    return Err(error(ErrorKind::InvalidAttribute, call, axis_detail(f.keyword(), y, &shape, axis)));
                }
                y_dims.to_vec()
            }
            _ => {
                if !valid_axes(axes, shape.len()) {
                    return Err(error(ErrorKind::InvalidAttribute, call, axes_detail(f.keyword(), y, &shape, axes)));
                }
                reduced_shape(&shape, axes).into_iter().map(|d| d as usize).collect()
            }
        };
        let root = self.stage.store.alloc(&x_dims, call)?;
        let y_loc = scope.env[y];
        let done = match f {
            TensorMath::ExpTensor | TensorMath::LogTensor => self.exp_log(f, y_loc, root, &x_dims, span),
            TensorMath::Softmax | TensorMath::LogSoftmax => {
                if self.softmax_op(f, y_loc, &y_dims, root, axis as usize, span) {
                    Ok(())
                } else {
                    self.softmax(f, y_loc, root, &shape, axis, span)
                }
            }
            _ => self.reduce(f, y_loc, root, &shape, axes, &x_dims, span),
        };
        self.failing_in(done, || scope.with_tensor(name, root, &x_dims))?;
        tasks.push(Task::Eval(body, scope.with_tensor(name, root, &x_dims)));
        Ok(())
    }

    /// `ext-exp-log-helper-step` (until `ext-math-helper-done`): `X[idx] = expItem(Y[idx])` or
    /// `logItem(Y[idx])` in row-major order (`ext-exp-item`, `ext-log-item`; a value that is not
    /// a Float, `ext-math-item-invalid`).
    fn exp_log(&mut self, f: TensorMath, y_loc: usize, x_root: usize, dims: &[usize], span: Span) -> Eval<()> {
        let (item, activation) =
            if f == TensorMath::ExpTensor { (Item::Exp, Activation::Exp) } else { (Item::Log, Activation::Log) };
        let targets = self.stage.store.leaves(x_root, dims);
        // One run of a buffer: one `Activate` computes every element's item in the same order
        // (an element of a buffer is a Float, so `ext-math-item-invalid` cannot apply).
        if fuse::activate(self.stage, activation, y_loc, &targets, dims, span) {
            return Ok(());
        }
        for (k, target) in targets.into_iter().enumerate() {
            let y = self.stage.read(y_loc, span);
            let element = self.index(y, &row_major_index(k, dims), span)?;
            let value = self.stage.item(item, element, span)?;
            self.stage.write(target, value, span);
        }
        Ok(())
    }

    /// The whole softmax as one `Softmax` of the plan when `Y` is one run of a buffer: every
    /// element sees the same operations in the same order ([`softmax_apply`]). Whether it was.
    fn softmax_op(
        &mut self,
        f: TensorMath,
        y_loc: usize,
        dims: &[usize],
        x_root: usize,
        axis: usize,
        span: Span,
    ) -> bool {
        let Some((x, x_at, _)) = fuse::slot_run(&self.stage.store, y_loc, dims) else { return false };
        let targets = self.stage.store.leaves(x_root, dims);
        let out = fuse::output_buffer(self.stage, &targets);
        let log = f == TensorMath::LogSoftmax;
        self.stage.record(Op::Softmax { log, out, x, x_at, dims: Arc::from(dims), axis, span });
        true
    }

    /// A reduction of one run of a buffer as one `Reduce` of the plan: every group's sum, max
    /// or min in the helper's order ([`Interpreter::reduce`]), a NaN met by `max`/`min` the
    /// row's error at `span` as the scalar operation reports it. Whether it was.
    #[allow(clippy::too_many_arguments, reason = "the helper's operands, as the rule has them")]
    fn reduce_op(
        &mut self,
        kind: ReduceKind,
        y_loc: usize,
        x_root: usize,
        shape: &[i64],
        axes: &[i64],
        x_dims: &[usize],
        span: Span,
    ) -> bool {
        let y_dims: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
        let Some((x, x_at, input_len)) = fuse::slot_run(&self.stage.store, y_loc, &y_dims) else { return false };
        let targets = self.stage.store.leaves(x_root, x_dims);
        let position =
            |index: &Vec<i64>| index.iter().zip(shape).fold(0usize, |k, (&i, &d)| k * d as usize + i as usize);
        let (mut from, mut group) = (Vec::new(), 0);
        for k in 0..targets.len() {
            let indices = group_indices(shape, axes, k as i64);
            group = indices.len();
            from.extend(indices.iter().map(position));
        }
        let outputs = targets.len();
        let out = fuse::output_buffer(self.stage, &targets);
        self.stage.record(Op::Reduce { kind, out, x, x_at, input_len, outputs, group, from: Arc::from(from), span });
        true
    }

    /// `Y`'s element at `index`, read through the indexing.
    pub(super) fn element(&mut self, y_loc: usize, index: &[i64], span: Span) -> Eval<Value> {
        let y = self.stage.read(y_loc, span);
        self.index(y, index, span)
    }

    /// `a -Float b` as `a + (b * -1.0)`: the same bits for every `b` that is not NaN (IEEE
    /// defines `a − b` as `a + (−b)`, and `b * -1.0` is `−b` exactly); the slice's max never is.
    fn minus(&mut self, a: Value, b: Value, span: Span) -> Eval<Value> {
        let negated = self.arith(Arith::Mul, b, Value::Float(-1.0), span)?;
        self.arith(Arith::Add, a, negated, span)
    }

    /// The softmax's helper, slice by slice in row-major order of the other indices
    /// (`ext-softmax-helper-step`, until `ext-math-helper-done`): the max from `-Infinity` by the
    /// scalar `max` (`ext-softmax-max` takes it), the sum from `0.0` of `expShiftItem(yk, M)`
    /// (`ext-exp-shift-item`: `expFloat(yk -Float M)`; `ext-softmax-sum` takes it), then each
    /// element `softmaxItem(yk, M, S)` = `expFloat(yk -Float M) /Float S` (`ext-softmax-item`) or
    /// `logSoftmaxItem(yk, M, S)` = `(yk -Float M) -Float logFloat(S)`
    /// (`ext-log-softmax-item`), each element read again at each pass, as the rules read it.
    fn softmax(
        &mut self,
        f: TensorMath,
        y_loc: usize,
        x_root: usize,
        shape: &[i64],
        axis: i64,
        span: Span,
    ) -> Eval<()> {
        let axis = axis as usize;
        let dims: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
        let targets = self.stage.store.leaves(x_root, &dims);
        let position = |index: &[i64]| index.iter().zip(&dims).fold(0usize, |k, (&i, &d)| k * d + i as usize);
        for k in 0..slice_count(shape, axis) {
            let slice = slice_indices(shape, axis, k);
            let mut max = Value::Float(f64::NEG_INFINITY);
            for index in &slice {
                let element = self.element(y_loc, index, span)?;
                max = self.arith(Arith::Max, max, element, span)?;
            }
            let mut sum = Value::Float(0.0);
            for index in &slice {
                let element = self.element(y_loc, index, span)?;
                let shifted = self.minus(element, max, span)?;
                let term = self.stage.item(Item::Exp, shifted, span)?;
                sum = self.arith(Arith::Add, sum, term, span)?;
            }
            let log_sum = if f == TensorMath::LogSoftmax { Some(self.stage.item(Item::Log, sum, span)?) } else { None };
            for index in &slice {
                let element = self.element(y_loc, index, span)?;
                let shifted = self.minus(element, max, span)?;
                let value = match log_sum {
                    None => {
                        let e = self.stage.item(Item::Exp, shifted, span)?;
                        self.arith(Arith::Div, e, sum, span)?
                    }
                    Some(log_sum) => self.minus(shifted, log_sum, span)?,
                };
                self.stage.write(targets[position(index)], value, span);
            }
        }
        Ok(())
    }

    /// The reductions' helper (`ext-reduce-helper-step`, until `ext-reduce-helper-done`): each
    /// output in row-major order from its group in row-major order of the reduced indices:
    /// `0.0 + y1 + …` (the mean then `/Float` the count, `ext-pool-mean`), `max(…max(-Infinity,
    /// y1)…)`, `min(…min(Infinity, y1)…)`.
    #[allow(clippy::too_many_arguments, reason = "the helper's operands, as the rule has them")]
    fn reduce(
        &mut self,
        f: TensorMath,
        y_loc: usize,
        x_root: usize,
        shape: &[i64],
        axes: &[i64],
        x_dims: &[usize],
        span: Span,
    ) -> Eval<()> {
        let kind = match f {
            TensorMath::ReduceMax => ReduceKind::Max,
            TensorMath::ReduceMin => ReduceKind::Min,
            TensorMath::ReduceMean => ReduceKind::Mean,
            _ => ReduceKind::Sum,
        };
        if self.reduce_op(kind, y_loc, x_root, shape, axes, x_dims, span) {
            return Ok(());
        }
        let (op, start) = match f {
            TensorMath::ReduceMax => (Arith::Max, f64::NEG_INFINITY),
            TensorMath::ReduceMin => (Arith::Min, f64::INFINITY),
            _ => (Arith::Add, 0.0),
        };
        let targets = self.stage.store.leaves(x_root, x_dims);
        for (k, target) in targets.into_iter().enumerate() {
            let group = group_indices(shape, axes, k as i64);
            let count = group.len();
            let mut value = Value::Float(start);
            for index in &group {
                let element = self.element(y_loc, index, span)?;
                value = self.arith(op, value, element, span)?;
            }
            if f == TensorMath::ReduceMean {
                value = self.arith(Arith::Div, value, Value::Float(count as f64), span)?;
            }
            self.stage.write(target, value, span);
        }
        Ok(())
    }
}

/// The softmax (or, with `log`, the logSoftmax) of `x`, of shape `dims`, along `axis` into `out`,
/// in the rules' order (`ext-softmax-helper-step`, `ext-softmax-max`, `ext-softmax-sum`): for
/// each slice, its max from `-Infinity` by the scalar `max`, its sum from `0.0` of
/// `expShiftItem`, then each element by `softmaxItem` or `logSoftmaxItem`, the items' own
/// functions (`MathFn::apply`). A NaN stops it at the `max` that meets it, the slices before
/// written, as the helper leaves them.
pub fn softmax_apply(log: bool, dims: &[usize], axis: usize, x: &[f64], out: &mut [f64]) -> Result<(), MaxOfNaN> {
    let shape: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
    let position = |index: &Vec<i64>| index.iter().zip(dims).fold(0usize, |k, (&i, &d)| k * d + i as usize);
    for k in 0..slice_count(&shape, axis) {
        let slice: Vec<usize> = slice_indices(&shape, axis, k).iter().map(position).collect();
        let mut max = f64::NEG_INFINITY;
        for &j in &slice {
            max = k_max(max, x[j]).ok_or(MaxOfNaN { acc: max, element: x[j] })?;
        }
        let sum = slice.iter().fold(0.0, |sum, &j| sum + MathFn::ExpShift { max }.apply(x[j]));
        let item = if log { MathFn::LogSoftmax { max, sum } } else { MathFn::Softmax { max, sum } };
        for &j in &slice {
            out[j] = item.apply(x[j]);
        }
    }
    Ok(())
}

/// [`softmax_apply`] on each lane of a group (element `k` of lane `l` at `k * lanes + l`); the
/// lanes that met a NaN, with it.
pub(super) fn softmax_lanes(
    log: bool,
    dims: &[usize],
    axis: usize,
    input: &[f64],
    result: &mut [f64],
    lanes: usize,
) -> Vec<(usize, MaxOfNaN)> {
    let len = dims.iter().product::<usize>();
    let (mut x, mut out) = (vec![0.0; len], vec![0.0; len]);
    let mut failed = Vec::new();
    for lane in 0..lanes {
        for (k, v) in x.iter_mut().enumerate() {
            *v = input[k * lanes + lane];
        }
        out.fill(0.0);
        if let Err(nan) = softmax_apply(log, dims, axis, &x, &mut out) {
            failed.push((lane, nan));
        }
        for (k, v) in out.iter().enumerate() {
            result[k * lanes + lane] = *v;
        }
    }
    failed
}
