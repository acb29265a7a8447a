//! The big-step evaluator of revised K-NN, and the compiler of plans: one pass over the
//! program that computes what it can and records the rest.
//!
//! It mirrors the revised rules (docs/semantics.md §4) construct by construct, over the store
//! layout those rules produce (headers `tensor(T, N)`, sub-tensors allocated by `alloc`/`fill`,
//! aliases as header copies, lexical scopes), evaluating operands in the rules' order and
//! raising the error kinds the rules raise, where they raise them. It is a loop over an explicit
//! task stack: programs 100,000 levels deep evaluate without deep recursion.
//!
//! Values are constants or **registers**. Inputs bound symbolically put *slots* of an input
//! buffer in the store; reading a slot, or computing with a register, records an operation in
//! the plan instead of computing it. Everything that does not depend on the inputs (weights
//! written by element lets, constants) is computed once, here. `linear` with constant weights
//! and an input held in one buffer becomes one `MatVec`; an activation over a buffer one
//! `Activate`; `ArgMax` over a buffer one `ArgMaxBuffer`; anything else falls back to scalar
//! operations, element by element, in the rules' order. With concrete inputs nothing is
//! recorded and the evaluator is a plain big-step interpreter.

use std::rc::Rc;
use std::sync::Arc;

use imbl::HashMap;
use knn_semantics::errors::{ErrorKind, linear_mismatch_detail};
use knn_semantics::memory;
use knn_semantics::rules::tensor_cells;
use knn_semantics::syntax::{Exp, ExpKind, Func, FuncKind, Span};

use super::ops::{
    Activation, Arith, BufId, FOperand, IOperand, Item, Op, Reg, RowError, argmax, float_arith, int_arith, item, widen,
};
use super::plan::{Leaf, Plan, PlanInput, ResultSpec};
use crate::tensor::Matrix;

/// The bytes a store cell is counted for by the memory budget: the cell, and the leaf and the
/// Float it becomes when a tensor result is read out.
const CELL_BYTES: usize = std::mem::size_of::<Cell>() + std::mem::size_of::<Leaf>() + std::mem::size_of::<f64>();

/// A store cell: a value, or a slot of a buffer (a Float known only when the plan runs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cell {
    Float(f64),
    Int(i64),
    /// `tensor(L, N)`: element 0 at `loc`, `len` elements.
    Tensor {
        loc: usize,
        len: usize,
    },
    FReg(Reg),
    IReg(Reg),
    Slot {
        buf: BufId,
        at: usize,
    },
}

/// A value: a constant, a register, or a tensor header.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Float(f64),
    Int(i64),
    Tensor { loc: usize, len: usize },
    FReg(Reg),
    IReg(Reg),
}

impl Value {
    fn cell(self) -> Cell {
        match self {
            Value::Float(x) => Cell::Float(x),
            Value::Int(n) => Cell::Int(n),
            Value::Tensor { loc, len } => Cell::Tensor { loc, len },
            Value::FReg(r) => Cell::FReg(r),
            Value::IReg(r) => Cell::IReg(r),
        }
    }

    fn float_operand(self) -> Option<FOperand> {
        match self {
            Value::Float(x) => Some(FOperand::Const(x)),
            Value::FReg(r) => Some(FOperand::Reg(r)),
            _ => None,
        }
    }

    fn describe(self) -> String {
        match self {
            Value::Float(x) => format!("{x:?}"),
            Value::Int(n) => n.to_string(),
            Value::Tensor { .. } => "a tensor".to_string(),
            Value::FReg(_) => "a Float".to_string(),
            Value::IReg(_) => "an Int".to_string(),
        }
    }
}

/// What an input binding holds.
#[derive(Clone, Debug)]
pub enum InputData {
    /// Known now: the evaluator computes with it.
    Concrete(Vec<f64>),
    /// Known when the plan runs: a buffer of the plan.
    Symbolic,
}

/// A tensor bound before the program, as `--input` binds it.
#[derive(Clone, Debug)]
pub struct Binding {
    pub name: String,
    pub shape: Vec<usize>,
    pub data: InputData,
}

/// Names in scope (Rev-12): `<env>` and `<shape>`, restored after each binding's body.
#[derive(Clone, Default)]
struct Scope {
    env: HashMap<Rc<str>, usize>,
    shape: HashMap<Rc<str>, Rc<[usize]>>,
}

/// An error found while compiling: every row fails with it where it occurs.
type Eval<T> = Result<T, RowError>;

fn error(kind: ErrorKind, span: Span, detail: impl Into<Arc<str>>) -> RowError {
    RowError { kind, span, detail: detail.into() }
}

enum Task<'e> {
    Eval(&'e Exp, Rc<Scope>),
    /// Pops `b`, then `a`.
    Arith(Arith, Span),
    /// Pops the base.
    Index(&'e [i64], Span),
    /// Pops the value, binds `name` in `body` (`rev-let-value`).
    Bind {
        name: &'e str,
        body: &'e Exp,
        scope: Rc<Scope>,
    },
    /// Pops the value, writes it through `target` (`rev-let-index-assign`).
    Assign {
        target: &'e Exp,
        body: &'e Exp,
        scope: Rc<Scope>,
    },
    /// Pops the argument of `relu`/`tanh`/`sigmoid`, binds the result (Rev-9).
    ScalarLet {
        function: ScalarFunction,
        name: &'e str,
        body: &'e Exp,
        scope: Rc<Scope>,
        span: Span,
    },
}

#[derive(Clone, Copy)]
enum ScalarFunction {
    Relu,
    Item(Item),
}

/// The evaluator's state: the store and the plan being recorded.
pub struct Evaluator {
    store: Vec<Cell>,
    ops: Vec<Op>,
    fregs: u32,
    iregs: u32,
    buffers: Vec<usize>,
}

/// Compiles `program` with `bindings` bound: the plan computes the program's result for any
/// values of the symbolic inputs (and is a constant when there are none).
pub fn compile(program: &Exp, bindings: &[Binding]) -> Plan {
    let mut ev = Evaluator { store: Vec::new(), ops: Vec::new(), fregs: 0, iregs: 0, buffers: Vec::new() };
    let mut scope = Scope::default();
    let mut inputs = Vec::new();
    for binding in bindings {
        let root = match ev.alloc(&binding.shape, Span::default()) {
            Ok(root) => root,
            Err(error) => {
                return Plan::new(vec![Op::Raise { error }], 0, 0, Vec::new(), Vec::new(), ResultSpec::Failed);
            }
        };
        let leaves = ev.leaves(root, &binding.shape);
        match &binding.data {
            InputData::Concrete(values) => {
                for (loc, &v) in leaves.iter().zip(values) {
                    ev.store[*loc] = Cell::Float(v);
                }
            }
            InputData::Symbolic => {
                let buf = ev.new_buffer(leaves.len());
                for (at, loc) in leaves.iter().enumerate() {
                    ev.store[*loc] = Cell::Slot { buf, at };
                }
                inputs.push(PlanInput { name: binding.name.clone(), buf, len: leaves.len() });
            }
        }
        let name: Rc<str> = Rc::from(binding.name.as_str());
        scope.env.insert(name.clone(), root);
        scope.shape.insert(name, Rc::from(binding.shape.as_slice()));
    }
    let result = match ev.run(program, scope) {
        Ok(value) => ev.result_spec(value),
        Err(e) => {
            ev.ops.push(Op::Raise { error: e });
            ResultSpec::Failed
        }
    };
    Plan::new(ev.ops, ev.fregs, ev.iregs, ev.buffers, inputs, result)
}

impl Evaluator {
    fn new_freg(&mut self) -> Reg {
        self.fregs += 1;
        self.fregs - 1
    }

    fn new_ireg(&mut self) -> Reg {
        self.iregs += 1;
        self.iregs - 1
    }

    fn new_buffer(&mut self, len: usize) -> BufId {
        self.buffers.push(len);
        (self.buffers.len() - 1) as BufId
    }

    /// `alloc(dims)` (Rev-4): each vector is its header then its elements, allocated before its
    /// sub-tensors, which are allocated in order. Returns the location of the root header; a
    /// `memory-limit` error at `span` when the store would grow past the memory budget.
    fn alloc(&mut self, dims: &[usize], span: Span) -> Eval<usize> {
        let cells = tensor_cells(dims.iter().map(|&d| i64::try_from(d).unwrap_or(i64::MAX)))
            .and_then(|c| c.checked_add(self.store.len() as u64));
        if let Err(too_large) = memory::check(cells.and_then(|c| memory::bytes_for(c, CELL_BYTES))) {
            let shape: Vec<String> = dims.iter().map(usize::to_string).collect();
            return Err(error(
                ErrorKind::MemoryLimit,
                span,
                format!("a tensor of shape ({}) {too_large}", shape.join(", ")),
            ));
        }
        let root = self.store.len();
        // (the parent element that receives this vector's header, depth)
        let mut pending: Vec<(Option<usize>, usize)> = vec![(None, 0)];
        while let Some((parent, depth)) = pending.pop() {
            let n = dims[depth];
            let header = self.store.len();
            let cell = Cell::Tensor { loc: header + 1, len: n };
            self.store.push(cell);
            self.store.extend(std::iter::repeat_n(Cell::Float(0.0), n));
            if let Some(parent) = parent {
                self.store[parent] = cell;
            }
            if depth + 1 < dims.len() {
                pending.extend((0..n).rev().map(|i| (Some(header + 1 + i), depth + 1)));
            }
        }
        Ok(root)
    }

    /// The locations of the leaves of the tensor whose header is at `root`, row-major, along
    /// `dims` (a freshly allocated, regular tensor).
    fn leaves(&self, root: usize, dims: &[usize]) -> Vec<usize> {
        let mut level = vec![root];
        for _ in dims {
            let mut next = Vec::new();
            for header in level {
                if let Cell::Tensor { loc, len } = self.store[header] {
                    next.extend(loc..loc + len);
                }
            }
            level = next;
        }
        level
    }

    /// The value in a cell; a slot is read into a register (a snapshot).
    fn read(&mut self, loc: usize) -> Value {
        match self.store[loc] {
            Cell::Float(x) => Value::Float(x),
            Cell::Int(n) => Value::Int(n),
            Cell::Tensor { loc, len } => Value::Tensor { loc, len },
            Cell::FReg(r) => Value::FReg(r),
            Cell::IReg(r) => Value::IReg(r),
            Cell::Slot { buf, at } => {
                let out = self.new_freg();
                self.ops.push(Op::Read { buf, at, out });
                Value::FReg(out)
            }
        }
    }

    /// `loc |-> (_ => V)`: a Float written into a slot stays in the buffer.
    fn write(&mut self, loc: usize, value: Value) {
        match (self.store[loc], value.float_operand()) {
            (Cell::Slot { buf, at }, Some(value)) => self.ops.push(Op::Write { buf, at, value }),
            _ => self.store[loc] = value.cell(),
        }
    }

    fn lookup(&self, scope: &Scope, x: &str, span: Span) -> Eval<usize> {
        scope
            .env
            .get(x)
            .copied()
            .ok_or_else(|| error(ErrorKind::UnboundIdentifier, span, format!("`{x}` is not bound here")))
    }

    fn run(&mut self, program: &Exp, scope: Scope) -> Eval<Value> {
        let mut tasks = vec![Task::Eval(program, Rc::new(scope))];
        let mut values: Vec<Value> = Vec::new();
        let pop = |values: &mut Vec<Value>| values.pop().expect("an operand on the value stack");
        while let Some(task) = tasks.pop() {
            match task {
                Task::Eval(e, scope) => match &e.kind {
                    ExpKind::Float(x) => values.push(Value::Float(*x)),
                    ExpKind::Int(n) => values.push(Value::Int(*n)),
                    ExpKind::Id(x) => {
                        let loc = self.lookup(&scope, x, e.span)?;
                        values.push(self.read(loc));
                    }
                    ExpKind::Index(base, ints) => {
                        tasks.push(Task::Index(ints, e.span));
                        tasks.push(Task::Eval(base, scope));
                    }
                    ExpKind::Max(a, b) | ExpKind::Min(a, b) | ExpKind::Mul(a, b) | ExpKind::Add(a, b) => {
                        let op = match &e.kind {
                            ExpKind::Max(..) => Arith::Max,
                            ExpKind::Min(..) => Arith::Min,
                            ExpKind::Mul(..) => Arith::Mul,
                            _ => Arith::Add,
                        };
                        // `seqstrict` (Rev-11): the left operand first.
                        tasks.push(Task::Arith(op, e.span));
                        tasks.push(Task::Eval(b, scope.clone()));
                        tasks.push(Task::Eval(a, scope));
                    }
                    ExpKind::ArgMax(arg) => values.push(self.argmax(arg, &scope, e.span)?),
                    ExpKind::Let { target, value, body } => {
                        // `strict(2)`: the value first, whatever the target.
                        match &target.kind {
                            ExpKind::Id(x) => tasks.push(Task::Bind { name: x, body, scope: scope.clone() }),
                            _ => tasks.push(Task::Assign { target, body, scope: scope.clone() }),
                        }
                        tasks.push(Task::Eval(value, scope));
                    }
                    ExpKind::LetFunc { target, func, body } => {
                        self.let_func(target, func, body, scope, e.span, &mut tasks)?;
                    }
                },
                Task::Arith(op, span) => {
                    let b = pop(&mut values);
                    let a = pop(&mut values);
                    values.push(self.arith(op, a, b, span)?);
                }
                Task::Index(ints, span) => {
                    let base = pop(&mut values);
                    values.push(self.index(base, ints, span)?);
                }
                Task::Bind { name, body, scope } => {
                    let value = pop(&mut values);
                    tasks.push(Task::Eval(body, self.bind(name, value, &scope)));
                }
                Task::Assign { target, body, scope } => {
                    let value = pop(&mut values);
                    self.assign(target, value, &scope)?;
                    tasks.push(Task::Eval(body, scope));
                }
                Task::ScalarLet { function, name, body, scope, span } => {
                    let arg = pop(&mut values);
                    let value = match function {
                        ScalarFunction::Relu => self.arith(Arith::Max, arg, Value::Float(0.0), span)?,
                        ScalarFunction::Item(item) => self.item(item, arg, span)?,
                    };
                    tasks.push(Task::Eval(body, self.bind(name, value, &scope)));
                }
            }
        }
        Ok(pop(&mut values))
    }

    /// `rev-let-value`: a fresh cell holds the value; the name's shape entry is dropped.
    fn bind(&mut self, name: &str, value: Value, scope: &Scope) -> Rc<Scope> {
        let loc = self.store.len();
        self.store.push(value.cell());
        let name: Rc<str> = Rc::from(name);
        let mut inner = scope.clone();
        inner.shape.remove(&name);
        inner.env.insert(name, loc);
        Rc::new(inner)
    }

    /// `op(a, b)`: the Float rules, the Int and mixed rules of Rev-10, or `invalid-operands`.
    fn arith(&mut self, op: Arith, a: Value, b: Value, span: Span) -> Eval<Value> {
        let invalid = || {
            error(
                ErrorKind::InvalidOperands,
                span,
                format!("`{}` cannot compute with {} and {}", op.symbol(), a.describe(), b.describe()),
            )
        };
        let ints = |v: Value| match v {
            Value::Int(n) => Some(IOperand::Const(n)),
            Value::IReg(r) => Some(IOperand::Reg(r)),
            _ => None,
        };
        match (a.float_operand(), b.float_operand(), ints(a), ints(b)) {
            (Some(x), Some(y), _, _) => self.float_op(op, x, y, span).ok_or_else(invalid),
            (_, _, Some(x), Some(y)) => match op {
                Arith::Add | Arith::Mul => self.int_op(op, x, y, span),
                Arith::Max | Arith::Min => Err(invalid()),
            },
            // Mixed: the Int is widened, the operands keep their order.
            (Some(x), None, None, Some(y)) if matches!(op, Arith::Add | Arith::Mul) => {
                let y = self.widen(y);
                self.float_op(op, x, y, span).ok_or_else(invalid)
            }
            (None, Some(y), Some(x), None) if matches!(op, Arith::Add | Arith::Mul) => {
                let x = self.widen(x);
                self.float_op(op, x, y, span).ok_or_else(invalid)
            }
            _ => Err(invalid()),
        }
    }

    /// A Float operation: folded when both operands are constants (`None` for a NaN in
    /// `max`/`min`), recorded otherwise.
    fn float_op(&mut self, op: Arith, a: FOperand, b: FOperand, span: Span) -> Option<Value> {
        if let (FOperand::Const(x), FOperand::Const(y)) = (a, b) {
            return float_arith(op, x, y).map(Value::Float);
        }
        let out = self.new_freg();
        self.ops.push(Op::Float { op, a, b, out, span });
        Some(Value::FReg(out))
    }

    fn int_op(&mut self, op: Arith, a: IOperand, b: IOperand, span: Span) -> Eval<Value> {
        if let (IOperand::Const(x), IOperand::Const(y)) = (a, b) {
            return int_arith(op, x, y).map(Value::Int).ok_or_else(|| {
                error(ErrorKind::IntegerOverflow, span, format!("{x} and {y}: the result does not fit in 64 bits"))
            });
        }
        let out = self.new_ireg();
        self.ops.push(Op::Int { op, a, b, out, span });
        Ok(Value::IReg(out))
    }

    fn widen(&mut self, a: IOperand) -> FOperand {
        match a {
            IOperand::Const(n) => FOperand::Const(widen(n)),
            IOperand::Reg(r) => {
                let out = self.new_freg();
                self.ops.push(Op::Widen { a: r, out });
                FOperand::Reg(out)
            }
        }
    }

    /// `tanhItem(V)` / `sigmoidItem(V)`: a Float, or `rev-item-invalid`.
    fn item(&mut self, which: Item, v: Value, span: Span) -> Eval<Value> {
        match v {
            Value::Float(x) => Ok(Value::Float(item(which, x))),
            Value::FReg(a) => {
                let out = self.new_freg();
                self.ops.push(Op::Item { item: which, a, out });
                Ok(Value::FReg(out))
            }
            _ => Err(error(
                ErrorKind::InvalidOperands,
                span,
                format!("a scalar function takes a Float, not {}", v.describe()),
            )),
        }
    }

    /// `base [ ints ]` with the revised `[anywhere]` rules: each index is checked against the
    /// header it goes through; indexing a scalar is `too-many-indices`.
    fn index(&mut self, base: Value, ints: &[i64], span: Span) -> Eval<Value> {
        let mut value = base;
        for &i in ints {
            let Value::Tensor { loc, len } = value else {
                return Err(error(ErrorKind::TooManyIndices, span, format!("{} cannot be indexed", value.describe())));
            };
            let i = usize::try_from(i).unwrap_or(usize::MAX);
            if i >= len {
                return Err(out_of_bounds(i, len, span));
            }
            value = self.read(loc + i);
        }
        Ok(value)
    }

    /// `let target = value in …` for a target that is not a name: flatten `X[i][j]…` into
    /// `X[i, j, …]` (`rev-let-index-flatten`), then write through `X` (`rev-let-index-assign`).
    fn assign(&mut self, target: &Exp, value: Value, scope: &Scope) -> Eval<()> {
        let invalid =
            || error(ErrorKind::InvalidLetTarget, target.span, "a `let` binds a name or assigns an element `t[i, …]`");
        let ExpKind::Index(base, first) = &target.kind else { return Err(invalid()) };
        let mut base: &Exp = base;
        let mut ints: Vec<i64> = first.clone();
        while let ExpKind::Index(inner, is) = &base.kind
            && is.len() == 1
        {
            ints.insert(0, is[0]);
            base = inner;
        }
        let ExpKind::Id(x) = &base.kind else { return Err(invalid()) };
        let loc = self.lookup(scope, x, target.span)?;
        let span = target.span;
        let mut cell = loc;
        for (k, &i) in ints.iter().enumerate() {
            let Cell::Tensor { loc: elements, len } = self.store[cell] else {
                let what = if k == 0 { format!("`{x}` holds a scalar") } else { "a scalar".to_string() };
                return Err(error(ErrorKind::TooManyIndices, span, format!("{what}: it cannot be indexed")));
            };
            let i = usize::try_from(i).unwrap_or(usize::MAX);
            if i >= len {
                return Err(out_of_bounds(i, len, span));
            }
            cell = elements + i;
        }
        self.write(cell, value);
        Ok(())
    }

    fn let_func<'e>(
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
                let dims: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
                let root = self.alloc(&dims, call)?;
                tasks.push(Task::Eval(body, tensor_scope(&scope, name, root, &dims)));
            }
            FuncKind::Relu(arg) | FuncKind::Tanh(arg) | FuncKind::Sigmoid(arg) => {
                let function = match func.kind {
                    FuncKind::Relu(_) => ScalarFunction::Relu,
                    FuncKind::Tanh(_) => ScalarFunction::Item(Item::Tanh),
                    _ => ScalarFunction::Item(Item::Sigmoid),
                };
                tasks.push(Task::ScalarLet { function, name, body, scope: scope.clone(), span });
                tasks.push(Task::Eval(arg, scope));
            }
            FuncKind::ReluTensor(arg) | FuncKind::TanhTensor(arg) | FuncKind::SigmoidTensor(arg) => {
                let activation = match func.kind {
                    FuncKind::ReluTensor(_) => Activation::Relu,
                    FuncKind::TanhTensor(_) => Activation::Tanh,
                    _ => Activation::Sigmoid,
                };
                let y = tensor_name(arg, call, "a tensor function takes the name of a tensor")?;
                let dims = self.operand_shape(&scope, y, name, call)?;
                let y_loc = scope.env[y];
                let root = self.alloc(&dims, call)?;
                self.activation(activation, y_loc, root, &dims, span)?;
                tasks.push(Task::Eval(body, tensor_scope(&scope, name, root, &dims)));
            }
            FuncKind::Linear(w, x) => {
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
                let root = self.alloc(&[i], call)?;
                self.linear(w_loc, x_loc, root, i, j, call)?;
                tasks.push(Task::Eval(body, tensor_scope(&scope, name, root, &[i])));
            }
            FuncKind::AddTensor(y, z) => {
                // `rev-let-func-error` diagnoses the operands left to right, then
                // `ext-add-tensor-shape-mismatch` compares the shapes.
                const USAGE: &str = "`addTensor` takes the names of two tensors";
                let y = tensor_name(y, call, USAGE)?;
                let y_dims = self.operand_shape(&scope, y, name, call)?;
                let z = tensor_name(z, call, USAGE)?;
                let z_dims = self.operand_shape(&scope, z, name, call)?;
                if y_dims != z_dims {
                    return Err(error(
                        ErrorKind::ShapeMismatch,
                        call,
                        format!(
                            "addTensor({y}, {z}) needs two tensors of the same shape; {y} has shape {:?} and {z} has shape {:?}",
                            &y_dims[..],
                            &z_dims[..]
                        ),
                    ));
                }
                let (y_loc, z_loc) = (scope.env[y], scope.env[z]);
                let root = self.alloc(&y_dims, call)?;
                self.add_tensors(y_loc, z_loc, root, &y_dims, span)?;
                tasks.push(Task::Eval(body, tensor_scope(&scope, name, root, &y_dims)));
            }
        }
        Ok(())
    }

    /// The helper of `addTensor` (Ext-1): `X[idx] = Y[idx] + Z[idx]` for every index of `dims`
    /// in row-major order (`ext-add-helper-step`), `Y[idx]` read before `Z[idx]` (`seqstrict`).
    fn add_tensors(&mut self, y_loc: usize, z_loc: usize, x_root: usize, dims: &[usize], span: Span) -> Eval<()> {
        let targets = self.leaves(x_root, dims);
        for (k, target) in targets.into_iter().enumerate() {
            let index = row_major_index(k, dims);
            let y = self.read(y_loc);
            let y_element = self.index(y, &index, span)?;
            let z = self.read(z_loc);
            let z_element = self.index(z, &index, span)?;
            let sum = self.arith(Arith::Add, y_element, z_element, span)?;
            self.write(target, sum);
        }
        Ok(())
    }

    /// The shape of a tensor operand `y` of the function whose result is `output`, or the error
    /// `rev-let-func-error` reports (unbound, no shape, aliased output).
    fn operand_shape(&self, scope: &Scope, y: &str, output: &str, span: Span) -> Eval<Rc<[usize]>> {
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

    /// The run `(buffer, first slot, length)` if the tensor whose header is at `header` has
    /// exactly the structure `dims` and its leaves are consecutive slots of one buffer.
    fn slot_run(&self, header: usize, dims: &[usize]) -> Option<(BufId, usize, usize)> {
        let mut level = vec![header];
        for &d in dims {
            let mut next = Vec::with_capacity(level.len() * d);
            for h in level {
                match self.store[h] {
                    Cell::Tensor { loc, len } if len == d => next.extend(loc..loc + len),
                    _ => return None,
                }
            }
            level = next;
        }
        let &first = level.first()?;
        let Cell::Slot { buf, at } = self.store[first] else { return None };
        let consecutive = level.iter().enumerate().all(|(k, &loc)| self.store[loc] == Cell::Slot { buf, at: at + k });
        consecutive.then_some((buf, at, level.len()))
    }

    /// The Floats of a constant `rows × cols` matrix at `header` (Ints widened, as the mixed
    /// rules widen them), if it is one.
    fn constant_matrix(&self, header: usize, rows: usize, cols: usize) -> Option<Vec<f64>> {
        let Cell::Tensor { loc, len } = self.store[header] else { return None };
        if len != rows {
            return None;
        }
        let mut data = Vec::with_capacity(rows * cols);
        for i in 0..rows {
            let Cell::Tensor { loc: row, len } = self.store[loc + i] else { return None };
            if len != cols {
                return None;
            }
            for j in 0..cols {
                match self.store[row + j] {
                    Cell::Float(x) => data.push(x),
                    Cell::Int(n) => data.push(widen(n)),
                    _ => return None,
                }
            }
        }
        Some(data)
    }

    /// The helper of `reluTensor`/`tanhTensor`/`sigmoidTensor`: `X[idx] = f(Y[idx])` for every
    /// index of `dims` in row-major order (R24/R25 and the revised element rules).
    fn activation(
        &mut self,
        activation: Activation,
        y_loc: usize,
        x_root: usize,
        dims: &[usize],
        span: Span,
    ) -> Eval<()> {
        let targets = self.leaves(x_root, dims);
        if let Some((input, in_at, len)) = self.slot_run(y_loc, dims) {
            let out = self.new_buffer(len);
            self.ops.push(Op::Activate { activation, input, in_at, out, len, span });
            for (at, loc) in targets.into_iter().enumerate() {
                self.store[loc] = Cell::Slot { buf: out, at };
            }
            return Ok(());
        }
        for (k, target) in targets.into_iter().enumerate() {
            let y = self.read(y_loc);
            let element = self.index(y, &row_major_index(k, dims), span)?;
            let value = match activation {
                Activation::Relu => self.arith(Arith::Max, element, Value::Float(0.0), span)?,
                Activation::Tanh => self.item(Item::Tanh, element, span)?,
                Activation::Sigmoid => self.item(Item::Sigmoid, element, span)?,
            };
            self.write(target, value);
        }
        Ok(())
    }

    /// The helper of `linear`: `Y[i] = Y[i] + (W[i][j] * X[j])` for `i`, then `j`, in order.
    fn linear(&mut self, w_loc: usize, x_loc: usize, y_root: usize, rows: usize, cols: usize, span: Span) -> Eval<()> {
        let targets = self.leaves(y_root, &[rows]);
        if let (Some(data), Some((x, x_at, _))) =
            (self.constant_matrix(w_loc, rows, cols), self.slot_run(x_loc, &[cols]))
        {
            let out = self.new_buffer(rows);
            self.ops.push(Op::MatVec {
                out,
                w: Arc::new(Matrix::new(rows, cols, data)),
                x,
                x_at,
                bias: None,
                relu: None,
            });
            for (at, loc) in targets.into_iter().enumerate() {
                self.store[loc] = Cell::Slot { buf: out, at };
            }
            return Ok(());
        }
        for (i, &target) in targets.iter().enumerate() {
            for j in 0..cols {
                let y_i = self.read(target);
                let w = self.read(w_loc);
                let w_ij = self.index(w, &[i as i64, j as i64], span)?;
                let x = self.read(x_loc);
                let x_j = self.index(x, &[j as i64], span)?;
                let product = self.arith(Arith::Mul, w_ij, x_j, span)?;
                let sum = self.arith(Arith::Add, y_i, product, span)?;
                self.write(target, sum);
            }
        }
        Ok(())
    }

    /// `ArgMax(X)` (Rev-6): the vector is read through its header; every element must be a Float.
    fn argmax(&mut self, arg: &Exp, scope: &Scope, span: Span) -> Eval<Value> {
        let not_a_vector = |detail: String| error(ErrorKind::ArgmaxNotAVector, span, detail);
        let ExpKind::Id(x) = &arg.kind else { return Err(not_a_vector("ArgMax takes the name of a vector".into())) };
        let loc = self.lookup(scope, x, span)?;
        let Cell::Tensor { loc: first, len } = self.store[loc] else {
            return Err(not_a_vector(format!("`{x}` is not a vector of floats")));
        };
        if len == 0 {
            return Err(error(ErrorKind::ArgmaxEmpty, span, format!("`{x}` has no element")));
        }
        let is_float = |cell: Cell| matches!(cell, Cell::Float(_) | Cell::FReg(_) | Cell::Slot { .. });
        if let Some(k) = (first..first + len).position(|l| !is_float(self.store[l])) {
            return Err(not_a_vector(format!("element {k} of `{x}` is not a Float")));
        }
        let cells: Vec<Cell> = self.store[first..first + len].to_vec();
        if let Cell::Slot { buf, at } = cells[0]
            && cells.iter().enumerate().all(|(k, c)| *c == Cell::Slot { buf, at: at + k })
        {
            let out = self.new_ireg();
            self.ops.push(Op::ArgMaxBuffer { buf, at, len, out });
            return Ok(Value::IReg(out));
        }
        let items: Vec<FOperand> =
            (first..first + len).map(|l| self.read(l).float_operand().expect("a Float element")).collect();
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
        let out = self.new_ireg();
        self.ops.push(Op::ArgMaxOperands { items, out });
        Ok(Value::IReg(out))
    }

    /// What the plan returns: a constant, a register, or a tensor read through the store the
    /// way `observables::read_tensor` reads it.
    fn result_spec(&self, value: Value) -> ResultSpec {
        match value {
            Value::Float(x) => ResultSpec::Float(FOperand::Const(x)),
            Value::FReg(r) => ResultSpec::Float(FOperand::Reg(r)),
            Value::Int(n) => ResultSpec::Int(IOperand::Const(n)),
            Value::IReg(r) => ResultSpec::Int(IOperand::Reg(r)),
            Value::Tensor { loc, len } => self.tensor_spec(loc, len),
        }
    }

    fn tensor_spec(&self, loc: usize, len: usize) -> ResultSpec {
        const MAX_RANK: usize = 16;
        let mut shape = Vec::new();
        let mut level = vec![(loc, len)];
        loop {
            shape.push(level[0].1);
            let (mut leaves, mut headers) = (Vec::new(), Vec::new());
            for &(start, count) in &level {
                for l in start..start + count {
                    match self.store[l] {
                        Cell::Float(x) => leaves.push(Leaf::Const(x)),
                        Cell::FReg(r) => leaves.push(Leaf::Reg(r)),
                        Cell::Slot { buf, at } => leaves.push(Leaf::Slot(buf, at)),
                        Cell::Tensor { loc, len } => headers.push((loc, len)),
                        Cell::Int(_) | Cell::IReg(_) => {
                            return ResultSpec::Malformed(format!("location {l} holds an Int"));
                        }
                    }
                }
            }
            match (leaves.is_empty(), headers.is_empty()) {
                (_, true) => return ResultSpec::Tensor { shape, leaves },
                (true, false) if headers.iter().all(|h| h.1 == headers[0].1) && shape.len() < MAX_RANK => {
                    level = headers
                }
                _ => return ResultSpec::Malformed("not a dense tensor".to_string()),
            }
        }
    }
}

/// The scope of a binding's body: the name bound to a tensor header, its shape recorded.
fn tensor_scope(scope: &Scope, name: &str, root: usize, dims: &[usize]) -> Rc<Scope> {
    let name: Rc<str> = Rc::from(name);
    let mut inner = scope.clone();
    inner.env.insert(name.clone(), root);
    inner.shape.insert(name, Rc::from(dims));
    Rc::new(inner)
}

fn out_of_bounds(i: usize, len: usize, span: Span) -> RowError {
    error(ErrorKind::IndexOutOfBounds, span, format!("index {i} is out of bounds for a dimension of length {len}"))
}

fn linear_mismatch(y: &str, w: &str, x: &str, w_shape: &[usize], x_shape: &[usize], span: Span) -> RowError {
    if y == w || y == x {
        error(ErrorKind::AliasedOutput, span, format!("`{y}` cannot be both an operand and the output of `linear`"))
    } else {
        let dims = |shape: &[usize]| shape.iter().map(|&d| d as i64).collect::<Vec<_>>();
        error(ErrorKind::ShapeMismatch, span, linear_mismatch_detail(w, x, &dims(w_shape), &dims(x_shape)))
    }
}

/// The operand of a tensor function as a name: `unknown-tensor` (with `usage`) when it is
/// another expression, as `rev-let-func-error` says.
fn tensor_name<'e>(arg: &'e Exp, span: Span, usage: &str) -> Eval<&'e str> {
    match &arg.kind {
        ExpKind::Id(name) => Ok(name.as_str()),
        _ => Err(error(ErrorKind::UnknownTensor, span, usage)),
    }
}

/// The `k`-th index of `dims` in row-major order.
fn row_major_index(mut k: usize, dims: &[usize]) -> Vec<i64> {
    let mut index = vec![0i64; dims.len()];
    for (slot, &d) in index.iter_mut().zip(dims).rev() {
        *slot = (k % d) as i64;
        k /= d;
    }
    index
}
