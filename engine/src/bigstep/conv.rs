//! `let Y = conv2d(X, W, B, …) in E` (Ext-3): the checks of `rev-let-func-error`,
//! `ext-conv2d-invalid-attribute` and `ext-conv2d-shape-mismatch` in the rules' order, the result
//! allocated as `ext-let-conv2d` does, and the elements of `ext-conv2d-helper-step` (until
//! `ext-conv2d-helper-done`) computed in the rules' order, through the scalar `+` and `*` every
//! other construct uses. With symbolic inputs, an image held in one buffer and a constant
//! kernel make one `Conv2d` of the plan; otherwise the same loop records `Read`/`Float`/`Write`
//! operations.

use std::rc::Rc;
use std::sync::Arc;

use knn_semantics::errors::ErrorKind;
use knn_semantics::syntax::{Exp, Func, FuncKind, Span};
use knn_semantics::window::{Conv2dGeometry, WindowAttrs};

use super::functions::{row_major_index, tensor_name};
use super::fuse;
use super::interpret::{Interpreter, Task};
use super::ops::{Arith, ConvKernel, Eval, Op, error};
use super::scope::Scope;
use super::store::Value;

impl Interpreter<'_> {
    /// `ext-let-conv2d`, or the error of the first check that fails: the operands left to right
    /// (`rev-let-func-error`), the attributes (`ext-conv2d-invalid-attribute`), the shapes
    /// (`ext-conv2d-shape-mismatch`). Errors point at the call `F(…)`; the elements' at `span`,
    /// the whole `let`'s.
    pub(super) fn let_conv2d<'e>(
        &mut self,
        name: &str,
        func: &'e Func,
        body: &'e Exp,
        scope: Rc<Scope>,
        span: Span,
        tasks: &mut Vec<Task<'e>>,
    ) -> Eval<()> {
        const USAGE: &str = "`conv2d` takes the names of tensors: its input, kernel and optional bias";
        let FuncKind::Conv2d(x, w, b, attrs) = &func.kind else { unreachable!("called on conv2d only") };
        let call = func.span;
        let x = tensor_name(x, call, USAGE)?;
        let x_dims = self.operand_shape(&scope, x, name, call)?;
        let w = tensor_name(w, call, USAGE)?;
        let w_dims = self.operand_shape(&scope, w, name, call)?;
        let b = match b {
            Some(b) => {
                let b = tensor_name(b, call, USAGE)?;
                Some((b, self.operand_shape(&scope, b, name, call)?))
            }
            None => None,
        };
        let attrs = WindowAttrs::of(attrs);
        if let Some(detail) = attrs.invalid("conv2d") {
            return Err(error(ErrorKind::InvalidAttribute, call, detail));
        }
        let dims = |shape: &[usize]| shape.iter().map(|&d| d as i64).collect::<Vec<_>>();
        let b_dims = b.as_ref().map(|(_, shape)| dims(shape));
        let geometry = Conv2dGeometry::check(
            (x, w, b.as_ref().map(|(b, _)| *b)),
            &dims(&x_dims),
            &dims(&w_dims),
            b_dims.as_deref(),
            attrs,
        )
        .map_err(|detail| error(ErrorKind::ShapeMismatch, call, detail))?;
        let y_dims: Vec<usize> = geometry.output.iter().map(|&d| d as usize).collect();
        let root = self.stage.store.alloc(&y_dims, call)?;
        let operands = (scope.env[x], scope.env[w], b.as_ref().map(|(b, _)| scope.env[*b]));
        let b_len = b.as_ref().map(|(_, shape)| shape.iter().product());
        let done = if self.conv2d_op(operands, b_len, &geometry, root, &y_dims) {
            Ok(())
        } else {
            self.convolve(operands, root, &geometry, &y_dims, span)
        };
        self.failing_in(done, || scope.with_tensor(name, root, &y_dims))?;
        tasks.push(Task::Eval(body, scope.with_tensor(name, root, &y_dims)));
        Ok(())
    }

    /// The whole helper as one `Conv2d` of the plan when `X` is one run of a buffer and the
    /// kernel (and the bias, `b_len` elements) are constants: every element sees the same
    /// operations in the same order ([`ConvKernel::apply`]). Whether it was.
    fn conv2d_op(
        &mut self,
        (x_loc, w_loc, b_loc): (usize, usize, Option<usize>),
        b_len: Option<usize>,
        g: &Conv2dGeometry,
        y_root: usize,
        dims: &[usize],
    ) -> bool {
        let shape = |d: &[i64]| d.iter().map(|&n| n as usize).collect::<Vec<usize>>();
        let store = &self.stage.store;
        let Some((x, x_at, _)) = fuse::slot_run(store, x_loc, &shape(&g.input)) else { return false };
        let Some(weights) = fuse::constant_tensor(store, w_loc, &shape(&g.kernel)) else { return false };
        let bias = match (b_loc, b_len) {
            (Some(b_loc), Some(len)) => match fuse::constant_tensor(store, b_loc, &[len]) {
                Some(bias) => Some(bias.into()),
                None => return false,
            },
            _ => None,
        };
        let targets = store.leaves(y_root, dims);
        let out = fuse::output_buffer(self.stage, &targets);
        let conv = Arc::new(ConvKernel { geometry: *g, weights: weights.into(), bias });
        self.stage.record(Op::Conv2d { out, x, x_at, conv });
        true
    }

    /// The helper of `conv2d` (`ext-conv2d-helper-step`): for each output `(o, i, j)` in
    /// row-major order, from the Float `0.0`, `+ X[c, r, s] * W[o, c', ki, kj]` over the input
    /// channels `c'` of `o`'s group, the kernel rows `ki`, the kernel columns `kj`, a padding
    /// position's `X[c, r, s]` being the Float `0.0` (the product is computed); then `+ B[o]`.
    /// `X`'s element is read before `W`'s (`seqstrict`).
    fn convolve(
        &mut self,
        (x_loc, w_loc, b_loc): (usize, usize, Option<usize>),
        y_root: usize,
        g: &Conv2dGeometry,
        dims: &[usize],
        span: Span,
    ) -> Eval<()> {
        let [_, cg, kh, kw] = g.kernel;
        let targets = self.stage.store.leaves(y_root, dims);
        for (k, target) in targets.into_iter().enumerate() {
            let index = row_major_index(k, dims);
            let (o, i, j) = (index[0], index[1], index[2]);
            let mut sum = Value::Float(0.0);
            for c in 0..cg {
                for ki in 0..kh {
                    for kj in 0..kw {
                        let x_element = match g.input_position(i, j, ki, kj) {
                            Some((r, s)) => {
                                let x = self.stage.read(x_loc, span);
                                self.index(x, &[g.input_channel(o, c), r, s], span)?
                            }
                            None => Value::Float(0.0),
                        };
                        let w = self.stage.read(w_loc, span);
                        let w_element = self.index(w, &[o, c, ki, kj], span)?;
                        let product = self.arith(Arith::Mul, x_element, w_element, span)?;
                        sum = self.arith(Arith::Add, sum, product, span)?;
                    }
                }
            }
            if let Some(b_loc) = b_loc {
                let b = self.stage.read(b_loc, span);
                let b_element = self.index(b, &[o], span)?;
                sum = self.arith(Arith::Add, sum, b_element, span)?;
            }
            self.stage.write(target, sum, span);
        }
        Ok(())
    }
}
