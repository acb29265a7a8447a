//! The functions of K-NN: `let X = F(…) in E` for every `F` (`initTensor`, the scalar and
//! tensor activations, `linear`, `addTensor`; `conv2d` in `conv.rs`) and `ArgMax`. Each checks its operands in the
//! rules' order, allocates its result as `alloc` does, and runs its helper element by element in
//! the rules' order, unless the operands fit one operation of the plan (`fuse.rs`).

use std::rc::Rc;

use knn_semantics::errors::{ErrorKind, linear_mismatch_detail};
use knn_semantics::syntax::{Elements, Exp, ExpKind, Func, FuncKind, Number, Span};

use super::combine::combine;
use super::fuse;
use super::interpret::{Interpreter, ScalarFunction, Task};
use super::ops::{Activation, Arith, Eval, FOperand, Item, Op, RowError, argmax, error};
use super::scope::Scope;
use super::store::{Cell, Value};

impl Interpreter<'_> {
    /// `let name = F(…) in body`: the operands checked, the result allocated and computed, the
    /// body pushed in a scope that binds `name` (or its argument pushed first, for the scalar
    /// functions). A target that is not a name, or operands no rule accepts, are
    /// `rev-let-func-error`.
    pub(super) fn let_func<'e>(
        &mut self,
        target: &'e Exp,
        func: &'e Func,
        body: &'e Exp,
        scope: Rc<Scope>,
        span: Span,
        tasks: &mut Vec<Task<'e>>,
    ) -> Eval<()> {
        let name = match &target.kind {
            ExpKind::Id(x) => x.as_str(),
            _ => {
                return Err(error(ErrorKind::InvalidLetTarget, span, "a function's result needs a name"));
            }
        };
        // Errors about the operands point at the call `F(…)`, as the small-step rules do, not at
        // the whole `let` (`span`), which runs to the end of its body.
        let call = func.span;
        match &func.kind {
            FuncKind::InitTensor(dims) => {
                // `rev-let-init-tensor`: `defineTensor` (`rev-define-tensor`) allocates.
                let dims: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
                let root = self.stage.store.alloc(&dims, call)?;
                tasks.push(Task::Eval(body, scope.with_tensor(name, root, &dims)));
            }
            FuncKind::TensorLiteral(dims, elements) => {
                // `ext-let-tensor-literal`: `alloc`'s layout, the leaves written in row-major
                // order. The parser checked the count; a term built otherwise is diagnosed as
                // `rev-let-func-error` does.
                let dims = literal_dims(dims, elements, call)?;
                let root = match elements {
                    // Floats stay in the literal's array: the store refers to it.
                    Elements::Floats(data) if !dims.is_empty() => self.stage.store.alloc_literal(&dims, data, call)?,
                    _ => {
                        let root = self.stage.store.alloc(&dims, call)?;
                        for (target, number) in self.stage.store.leaves(root, &dims).into_iter().zip(elements.iter()) {
                            let value = match number {
                                Number::Int(n) => Value::Int(n),
                                Number::Float(x) => Value::Float(x),
                            };
                            self.stage.write(target, value, call);
                        }
                        root
                    }
                };
                tasks.push(Task::Eval(body, scope.with_tensor(name, root, &dims)));
            }
            FuncKind::Relu(arg) | FuncKind::Tanh(arg) | FuncKind::Sigmoid(arg) => {
                // `rev-let-relu`, `rev-let-tanh`, `rev-let-sigmoid`.
                let function = match func.kind {
                    FuncKind::Relu(_) => ScalarFunction::Relu,
                    FuncKind::Tanh(_) => ScalarFunction::Item(Item::Tanh),
                    _ => ScalarFunction::Item(Item::Sigmoid),
                };
                tasks.push(Task::ScalarLet { function, name, body, scope: scope.clone(), span });
                tasks.push(Task::Eval(arg, scope));
            }
            FuncKind::ReluTensor(arg) | FuncKind::TanhTensor(arg) | FuncKind::SigmoidTensor(arg) => {
                // `rev-let-relu-tensor`, `rev-let-tanh-tensor`, `rev-let-sigmoid-tensor`.
                let activation = match func.kind {
                    FuncKind::ReluTensor(_) => Activation::Relu,
                    FuncKind::TanhTensor(_) => Activation::Tanh,
                    _ => Activation::Sigmoid,
                };
                let y = tensor_name(arg, call, "a tensor function takes the name of a tensor")?;
                let dims = self.operand_shape(&scope, y, name, call)?;
                let y_loc = scope.env[y];
                let root = self.stage.store.alloc(&dims, call)?;
                let done = self.activation(activation, y_loc, root, &dims, span);
                // The rules bind the result first (`defineTensor`, `rev-bind-to`) and run the
                // helper in that scope: an error leaves it in `<env>` with the elements written
                // so far (so for `linear` and `addTensor` below).
                self.failing_in(done, || scope.with_tensor(name, root, &dims))?;
                tasks.push(Task::Eval(body, scope.with_tensor(name, root, &dims)));
            }
            FuncKind::Linear(w, x) => {
                // `rev-let-linear` reads both shapes, `rev-linear-checked` compares them (or
                // `rev-linear-shape-mismatch`).
                let (w, x) = (w.name.as_str(), x.name.as_str());
                let shapes = (scope.shape.get(w), scope.shape.get(x));
                let (Some(w_shape), Some(x_shape)) = shapes else {
                    self.operand_shape(&scope, w, name, call)?;
                    self.operand_shape(&scope, x, name, call)?;
                    unreachable!("an operand without a shape is diagnosed");
                };
                let (&[i, j], &[j2]) = (&w_shape[..], &x_shape[..]) else {
                    return Err(linear_mismatch(name, w, x, w_shape, x_shape, call));
                };
                if j != j2 || name == w || name == x {
                    return Err(linear_mismatch(name, w, x, w_shape, x_shape, call));
                }
                let (w_loc, x_loc) = (scope.env[w], scope.env[x]);
                let root = self.stage.store.alloc(&[i], call)?;
                let done = self.linear(w_loc, x_loc, root, i, j, call);
                self.failing_in(done, || scope.with_tensor(name, root, &[i]))?;
                tasks.push(Task::Eval(body, scope.with_tensor(name, root, &[i])));
            }
            FuncKind::AddTensor(y, z) => {
                // `ext-let-add-tensor` for equal shapes, Ext-8's `ext-let-elementwise` for
                // shapes that broadcast: `rev-let-func-error` diagnoses the operands left to
                // right, then `ext-add-tensor-shape-mismatch` compares the shapes
                // (`broadcast.rs`).
                self.let_elementwise(name, None, (y, z), body, scope, (call, span), tasks)?;
            }
            FuncKind::Conv2d(..) => {
                // `ext-let-conv2d` and its errors: `conv.rs`.
                self.let_conv2d(name, func, body, scope, span, tasks)?;
            }
            FuncKind::Pool2d(..) => {
                // `ext-let-pool2d` and its errors: `pool.rs`.
                self.let_pool2d(name, func, body, scope, span, tasks)?;
            }
            FuncKind::Reshape(..) => {
                // `ext-let-reshape`, `ext-let-flatten` and their errors: `reshape.rs`.
                self.let_reshape(name, func, body, scope, span, tasks)?;
            }
            FuncKind::Transpose(..) => {
                // `ext-let-transpose` and its error: `transpose.rs`.
                self.let_transpose(name, func, body, scope, span, tasks)?;
            }
            FuncKind::TensorArith(op, y, z) => {
                // `ext-let-elementwise` and its errors (`rev-let-func-error`,
                // `ext-elementwise-shape-mismatch`): `broadcast.rs`.
                self.let_elementwise(name, Some(*op), (y, z), body, scope, (call, span), tasks)?;
            }
            FuncKind::TensorMath(..) => {
                // Ext-9's and Ext-10's lets and their errors: `tensor_math.rs`.
                self.let_tensor_math(name, func, body, scope, span, tasks)?;
            }
            FuncKind::Concat(..) => {
                // `ext-let-concat` and its errors: `concat.rs`.
                self.let_concat(name, func, body, scope, span, tasks)?;
            }
            FuncKind::Slice(..) => {
                // `ext-let-slice` and its error: `slice.rs`.
                self.let_slice(name, func, body, scope, span, tasks)?;
            }
            FuncKind::Pad(..) => {
                // `ext-let-pad` and its error: `pad.rs`.
                self.let_pad(name, func, body, scope, span, tasks)?;
            }
            FuncKind::Matmul(y, z) => {
                // `ext-let-matmul` and its errors (`rev-let-func-error`,
                // `ext-matmul-shape-mismatch`): `matmul.rs`.
                self.let_matmul(name, (y, z), body, scope, (call, span), tasks)?;
            }
            FuncKind::BatchNorm(..) => {
                // `ext-let-batch-norm` and its errors (`rev-let-func-error`,
                // `ext-batch-norm-shape-mismatch`): `batch_norm.rs`.
                self.let_batch_norm(name, func, body, scope, span, tasks)?;
            }
        }
        Ok(())
    }

    /// The helper of `addTensor` (Ext-1): `X[idx] = Y[idx] + Z[idx]` for every index of `dims`
    /// in row-major order (`ext-add-helper-step`, until `ext-add-helper-done`), `Y[idx]` read
    /// before `Z[idx]` (`seqstrict`).
    pub(super) fn add_tensors(
        &mut self,
        y_loc: usize,
        z_loc: usize,
        x_root: usize,
        dims: &[usize],
        span: Span,
    ) -> Eval<()> {
        let targets = self.stage.store.leaves(x_root, dims);
        if combine(self.stage, Arith::Add, (y_loc, dims), (z_loc, dims), (&targets, dims), span) {
            return Ok(());
        }
        for (k, target) in targets.into_iter().enumerate() {
            let index = row_major_index(k, dims);
            let y = self.stage.read(y_loc, span);
            let y_element = self.index(y, &index, span)?;
            let z = self.stage.read(z_loc, span);
            let z_element = self.index(z, &index, span)?;
            let sum = self.arith(Arith::Add, y_element, z_element, span)?;
            self.stage.write(target, sum, span);
        }
        Ok(())
    }

    /// The shape of a tensor operand `y` of the function whose result is `output`, or the error
    /// `rev-let-func-error` reports (unbound, no shape, aliased output).
    /// The names of the tensor operands `xs` and their shapes, checked one after another as
    /// the rules heat them: the first that is not a tensor's name, or not bound, is the error.
    pub(super) fn tensor_operands<'e>(
        &self,
        scope: &Scope,
        xs: impl IntoIterator<Item = &'e Exp>,
        (output, call, usage): (&str, Span, &str),
    ) -> Eval<Operands<'e>> {
        let (mut names, mut dims) = (Vec::new(), Vec::new());
        for x in xs {
            let x = tensor_name(x, call, usage)?;
            dims.push(self.operand_shape(scope, x, output, call)?);
            names.push(x);
        }
        Ok((names, dims))
    }

    pub(super) fn operand_shape(&self, scope: &Scope, y: &str, output: &str, span: Span) -> Eval<Rc<[usize]>> {
        if !scope.env.contains_key(y) {
            return Err(error(ErrorKind::UnboundIdentifier, span, format!("`{y}` is not bound here")));
        }
        let Some(shape) = scope.shape.get(y) else {
            return Err(error(ErrorKind::UnknownTensor, span, format!("`{y}` is not a tensor with a known shape")));
        };
        if y == output {
            return Err(error(
                ErrorKind::AliasedOutput,
                span,
                format!("`{y}` cannot be both the input and the output"),
            ));
        }
        Ok(shape.clone())
    }

    /// The helper of `reluTensor`/`tanhTensor`/`sigmoidTensor`: `X[idx] = f(Y[idx])` for every
    /// index of `dims` in row-major order, the order in which the helpers' range rules visit
    /// them (`relu-helper-nd-range`, `relu-helper-1d-range`, `relu-helper-nd-step`,
    /// `relu-helper-range-step`, `relu-helper-nd-done`, `relu-helper-range-done`, and the same
    /// for tanh: `tanh-helper-nd-range`, `tanh-helper-1d-range`, `tanh-helper-nd-step`,
    /// `tanh-helper-range-step`, `tanh-helper-nd-done`, `tanh-helper-range-done`, and sigmoid:
    /// `sigmoid-helper-nd-range`, `sigmoid-helper-1d-range`, `sigmoid-helper-nd-step`,
    /// `sigmoid-helper-range-step`, `sigmoid-helper-nd-done`, `sigmoid-helper-range-done`), each
    /// element by its element rule: `rev-relu-helper-elem` (`max(Y[idx], 0.0)`),
    /// `rev-tanh-helper-elem`, `rev-sigmoid-helper-elem`.
    fn activation(
        &mut self,
        activation: Activation,
        y_loc: usize,
        x_root: usize,
        dims: &[usize],
        span: Span,
    ) -> Eval<()> {
        let targets = self.stage.store.leaves(x_root, dims);
        if fuse::activate(self.stage, activation, y_loc, &targets, dims, span) {
            return Ok(());
        }
        for (k, target) in targets.into_iter().enumerate() {
            let y = self.stage.read(y_loc, span);
            let element = self.index(y, &row_major_index(k, dims), span)?;
            let value = match activation {
                Activation::Relu => self.arith(Arith::Max, element, Value::Float(0.0), span)?,
                Activation::Tanh => self.stage.item(Item::Tanh, element, span)?,
                Activation::Sigmoid => self.stage.item(Item::Sigmoid, element, span)?,
                Activation::Exp => self.stage.item(Item::Exp, element, span)?,
                Activation::Log => self.stage.item(Item::Log, element, span)?,
            };
            self.stage.write(target, value, span);
        }
        Ok(())
    }

    /// The helper of `linear`: `Y[i] = Y[i] + (W[i][j] * X[j])` (`rev-linear-mac`) for each
    /// row `i` (`linear-rows-range`, `linear-rows-step`, `linear-rows-done`), then each column
    /// `j` (`linear-cols-step`, `linear-cols-done`), in order.
    fn linear(&mut self, w_loc: usize, x_loc: usize, y_root: usize, rows: usize, cols: usize, span: Span) -> Eval<()> {
        let targets = self.stage.store.leaves(y_root, &[rows]);
        if fuse::matvec(self.stage, w_loc, x_loc, &targets, rows, cols) {
            return Ok(());
        }
        for (i, &target) in targets.iter().enumerate() {
            for j in 0..cols {
                let y_i = self.stage.read(target, span);
                let w = self.stage.read(w_loc, span);
                let w_ij = self.index(w, &[i as i64, j as i64], span)?;
                let x = self.stage.read(x_loc, span);
                let x_j = self.index(x, &[j as i64], span)?;
                let product = self.arith(Arith::Mul, w_ij, x_j, span)?;
                let sum = self.arith(Arith::Add, y_i, product, span)?;
                self.stage.write(target, sum, span);
            }
        }
        Ok(())
    }

    /// `ArgMax(X)` (Rev-6): the vector is read through its header; every element must be a Float.
    /// Unbound, not a name or not a vector is `rev-argmax-error`; no element, `rev-argmax-empty`;
    /// an element that is not a Float, `rev-argmax-helper-error`. The scan is `ops::argmax`.
    pub(super) fn argmax(&mut self, arg: &Exp, scope: &Scope, span: Span) -> Eval<Value> {
        let not_a_vector = |detail: String| error(ErrorKind::ArgmaxNotAVector, span, detail);
        let ExpKind::Id(x) = &arg.kind else { return Err(not_a_vector("ArgMax takes the name of a vector".into())) };
        let loc = scope.lookup(x, span)?;
        let Cell::Tensor { loc: first, len } = self.stage.store.get(loc) else {
            return Err(not_a_vector(format!("`{x}` is not a vector of floats")));
        };
        if len == 0 {
            return Err(error(ErrorKind::ArgmaxEmpty, span, format!("`{x}` has no element")));
        }
        let is_float = |cell: Cell| matches!(cell, Cell::Float(_) | Cell::FReg(_) | Cell::Slot { .. });
        if let Some(k) = (first..first + len).position(|l| !is_float(self.stage.store.get(l))) {
            return Err(not_a_vector(format!("element {k} of `{x}` is not a Float")));
        }
        if let Some(index) = fuse::argmax_buffer(self.stage, first, len) {
            return Ok(index);
        }
        let items: Vec<FOperand> =
            (first..first + len).map(|l| self.stage.read(l, span).float_operand().expect("a Float element")).collect();
        let constants: Option<Vec<f64>> = items
            .iter()
            .map(|o| match o {
                FOperand::Const(x) => Some(*x),
                FOperand::Reg(_) => None,
            })
            .collect();
        if let Some(values) = constants {
            return Ok(Value::Int(argmax(values)));
        }
        let out = self.stage.new_ireg();
        self.stage.record(Op::ArgMaxOperands { items, out });
        Ok(Value::IReg(out))
    }
}

fn linear_mismatch(y: &str, w: &str, x: &str, w_shape: &[usize], x_shape: &[usize], span: Span) -> RowError {
    if y == w || y == x {
        error(ErrorKind::AliasedOutput, span, format!("`{y}` cannot be both an operand and the output of `linear`"))
    } else {
        let dims = |shape: &[usize]| shape.iter().map(|&d| d as i64).collect::<Vec<_>>();
        error(ErrorKind::ShapeMismatch, span, linear_mismatch_detail(w, x, &dims(w_shape), &dims(x_shape)))
    }
}

/// Tensor operands' names and their shapes, in order.
pub(super) type Operands<'e> = (Vec<&'e str>, Vec<Rc<[usize]>>);

/// The operand of a tensor function as a name: `unknown-tensor` (with `usage`) when it is
/// another expression, as `rev-let-func-error` says.
pub(super) fn tensor_name<'e>(arg: &'e Exp, span: Span, usage: &str) -> Eval<&'e str> {
    match &arg.kind {
        ExpKind::Id(name) => Ok(name.as_str()),
        _ => Err(error(ErrorKind::UnknownTensor, span, usage)),
    }
}

/// The `k`-th index of `dims` in row-major order.
pub(super) fn row_major_index(mut k: usize, dims: &[usize]) -> Vec<i64> {
    let mut index = vec![0i64; dims.len()];
    for (slot, &d) in index.iter_mut().zip(dims).rev() {
        *slot = (k % d) as i64;
        k /= d;
    }
    index
}

/// The shape of a tensor literal, or the error `rev-let-func-error` gives a literal whose count
/// is not its size (only a term built without the parser has one).
fn literal_dims(dims: &[i64], elements: &Elements, call: Span) -> Eval<Vec<usize>> {
    if let Some(d) = dims.iter().find(|&&d| d < 0) {
        return Err(error(ErrorKind::NegativeDimension, call, format!("a tensor dimension is {d}")));
    }
    let dims: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
    let size = dims.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
    if size != Some(elements.len()) {
        return Err(error(
            ErrorKind::ShapeMismatch,
            call,
            format!("`initTensor({dims:?})` lists {} elements, not its size", elements.len()),
        ));
    }
    Ok(dims)
}
