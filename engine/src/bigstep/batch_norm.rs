//! `let Y = batchNorm(X, S, B, M, V, epsilon = E) in Body` (Ext-14): the checks of
//! `rev-let-func-error` (the five operands, left to right) and `ext-batch-norm-shape-mismatch`
//! in the rules' order, the result allocated as `ext-let-batch-norm` does, and the element lets
//! of `ext-batch-norm-helper-step` (until `ext-batch-norm-helper-done`): for each element of
//! `Y` in row-major order, channel `c` its first index, `((X[I] - M[c]) / sqrtItem(V[c] + E)) *
//! S[c] + B[c]` through the indexing, the scalar operators and the item every other construct
//! uses (`ext-sqrt-item`), so the bits and the errors are the reference's. When `X` is one run
//! of a buffer and the parameters are constants, the whole helper is a copy of `X` into `Y`'s
//! buffer and one `Elementwise` of the plan.

use std::rc::Rc;

use knn_semantics::errors::ErrorKind;
use knn_semantics::revisions::ext14_batch_norm::parameter_mismatch;
use knn_semantics::syntax::{Exp, Func, FuncKind, Span};

use super::functions::row_major_index;
use super::fuse;
use super::interpret::{Interpreter, Task};
use super::ops::{Arith, ElementStep, Eval, Item, Op, error, float_arith, item};
use super::scope::Scope;
use super::store::Value;

/// Where the operands are: the store locations of `X`, `S`, `B`, `M`, `V`, and `X`'s shape.
struct Operands {
    x: usize,
    scale: usize,
    bias: usize,
    mean: usize,
    variance: usize,
    dims: Rc<[usize]>,
}

impl Interpreter<'_> {
    /// `ext-let-batch-norm`, or the error of the first check that fails: the operands
    /// (`rev-let-func-error`), the parameters' shapes (`ext-batch-norm-shape-mismatch`).
    pub(super) fn let_batch_norm<'e>(
        &mut self,
        name: &str,
        func: &'e Func,
        body: &'e Exp,
        scope: Rc<Scope>,
        span: Span,
        tasks: &mut Vec<Task<'e>>,
    ) -> Eval<()> {
        let FuncKind::BatchNorm(xs, epsilon) = &func.kind else { unreachable!("called on batchNorm only") };
        let call = func.span;
        let (names, dims) =
            self.tensor_operands(&scope, xs.iter(), (name, call, "`batchNorm` takes the names of five tensors"))?;
        let shapes: Vec<Vec<i64>> = dims.iter().map(|d| d.iter().map(|&n| n as i64).collect()).collect();
        let parameters = [1, 2, 3, 4].map(|k| (names[k], shapes[k].as_slice()));
        if let Some(detail) = parameter_mismatch(names[0], &shapes[0], parameters) {
            return Err(error(ErrorKind::ShapeMismatch, call, detail));
        }
        let dims = scope.shape[names[0]].clone();
        let root = self.stage.store.alloc(&dims, call)?;
        let [x, scale, bias, mean, variance] = [0, 1, 2, 3, 4].map(|k| scope.env[names[k]]);
        let operands = Operands { x, scale, bias, mean, variance, dims: dims.clone() };
        let done = if self.batch_norm_op(&operands, root, *epsilon) {
            Ok(())
        } else {
            self.batch_norm_elements(&operands, root, *epsilon, span)
        };
        self.failing_in(done, || scope.with_tensor(name, root, &dims))?;
        tasks.push(Task::Eval(body, scope.with_tensor(name, root, &dims)));
        Ok(())
    }

    /// The whole helper as a copy of `X` into `Y`'s buffer and one `Elementwise` when `X` is
    /// one run of a buffer and `S`, `B`, `M`, `V` are constant tensors (Ints widened, as the
    /// mixed rules widen an Int that meets a Float: `X`'s elements are Floats). Element `k`, of
    /// channel `c`, takes the steps `[Sub(M[c]), Div(d), Mul(S[c]), Add(B[c])]` with `d =
    /// sqrtFloat(V[c] +Float E)` computed here, once per channel: `ext-batch-norm-helper-step`
    /// and `ext-sqrt-item` compute the same `d` for every element of the channel, from the same
    /// Floats by the same operations, so its bits are the reference's. Whether it was.
    fn batch_norm_op(&mut self, operands: &Operands, y_root: usize, epsilon: f64) -> bool {
        let dims = &operands.dims;
        let Some((x, x_at, len)) = fuse::slot_run(&self.stage.store, operands.x, dims) else { return false };
        let channels = [dims[0]];
        let constant = |loc: usize| fuse::constant_tensor(&self.stage.store, loc, &channels);
        let (Some(scale), Some(bias), Some(mean), Some(variance)) =
            (constant(operands.scale), constant(operands.bias), constant(operands.mean), constant(operands.variance))
        else {
            return false;
        };
        let per_channel: Vec<Vec<ElementStep>> = (0..dims[0])
            .map(|c| {
                let sum = float_arith(Arith::Add, variance[c], epsilon).expect("`+` of Floats has a result");
                let divisor = item(Item::Sqrt, sum);
                vec![
                    ElementStep::Sub(mean[c]),
                    ElementStep::Div(divisor),
                    ElementStep::Mul(scale[c]),
                    ElementStep::Add(bias[c]),
                ]
            })
            .collect();
        // Row-major: the channel is the first index, so each channel's elements are one run.
        let per_element = len / dims[0];
        let steps: Vec<Vec<ElementStep>> = (0..len).map(|k| per_channel[k / per_element].clone()).collect();
        let targets = self.stage.store.leaves(y_root, dims);
        let out = fuse::output_buffer(self.stage, &targets);
        self.stage.record(Op::Copy { out, x, x_at, len });
        self.stage.record(Op::Elementwise { buf: out, at: 0, steps });
        true
    }

    /// `ext-batch-norm-helper-step` for every position of `Y` in row-major order (until
    /// `ext-batch-norm-helper-done`): `Y[I] = ((X[I] - M[c]) / sqrtItem(V[c] + E)) * S[c] + B[c]`,
    /// `c = I[0]`, the operands read and the operations done in that order (`seqstrict`; the
    /// item's argument computed before it, `ext-heat-math-item`).
    fn batch_norm_elements(&mut self, operands: &Operands, y_root: usize, epsilon: f64, span: Span) -> Eval<()> {
        let targets = self.stage.store.leaves(y_root, &operands.dims);
        for (k, target) in targets.into_iter().enumerate() {
            let at = row_major_index(k, &operands.dims);
            let channel = [at[0]];
            let x = self.element(operands.x, &at, span)?;
            let mean = self.element(operands.mean, &channel, span)?;
            let centred = self.arith(Arith::Sub, x, mean, span)?;
            let variance = self.element(operands.variance, &channel, span)?;
            let sum = self.arith(Arith::Add, variance, Value::Float(epsilon), span)?;
            let divisor = self.stage.item(Item::Sqrt, sum, span)?;
            let normalised = self.arith(Arith::Div, centred, divisor, span)?;
            let scale = self.element(operands.scale, &channel, span)?;
            let scaled = self.arith(Arith::Mul, normalised, scale, span)?;
            let bias = self.element(operands.bias, &channel, span)?;
            let value = self.arith(Arith::Add, scaled, bias, span)?;
            self.stage.write(target, value, span);
        }
        Ok(())
    }
}
