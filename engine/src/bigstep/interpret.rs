//! The big-step evaluator of revised K-NN: one pass over the program that computes what it can
//! and stages the rest (`stage.rs`).
//!
//! It mirrors the revised rules (docs/semantics.md §4) construct by construct, over the store
//! layout those rules produce (`store.rs`), evaluating operands in the rules' order and raising
//! the error kinds the rules raise, where they raise them. It is a loop over an explicit task
//! stack: programs 100,000 levels deep evaluate without deep recursion. The functions of
//! `let X = F(…) in E` and `ArgMax` are in `functions.rs`.

use std::borrow::Cow;
use std::rc::Rc;

use knn_semantics::errors::ErrorKind;
use knn_semantics::syntax::{Exp, ExpKind, Span};

use super::ops::{Arith, Eval, IOperand, Item, RowError, error};
use super::scope::Scope;
use super::stage::Stage;
use super::store::{Cell, Value};

/// What is left to do: evaluate an expression, or finish a construct whose operands are on the
/// value stack. The constructs waiting for their operands are what heating leaves on `<k>`
/// (`HOLE ~> □ + K1`), and finishing one is what cooling does: a task stack has no holes to
/// move, so the strictness rules are cited on the tasks that do their work.
pub(super) enum Task<'e> {
    Eval(&'e Exp, Rc<Scope>),
    /// Pops `b`, then `a`: `□ op K1` while `a` is evaluated (`heat-add-1`, `heat-mul-1`,
    /// `heat-max-1`, `heat-min-1`), then `K0 op □` while `b` is, once `a` is a value (Rev-11:
    /// `rev-heat-add-2`, `rev-heat-mul-2`, `rev-heat-max-2`, `rev-heat-min-2`), each value put
    /// back as it comes (`cool-add-1`, `cool-add-2`, `cool-mul-1`, `cool-mul-2`, `cool-max-1`,
    /// `cool-max-2`, `cool-min-1`, `cool-min-2`); likewise Ext-7's `-` and `/`
    /// (`ext-heat-sub-1`, `ext-heat-sub-2`, `ext-cool-sub-1`, `ext-cool-sub-2`, `ext-heat-div-1`,
    /// `ext-heat-div-2`, `ext-cool-div-1`, `ext-cool-div-2`).
    /// The scope is the expression's, where an error leaves `<env>`.
    Arith(Arith, Span, Rc<Scope>),
    /// Pops the base: `□ [ Is ]` while it is evaluated (`heat-index-1`, `cool-index-1`).
    Index(&'e [i64], Span, Rc<Scope>),
    /// Pops the value, binds `name` in `body` (`rev-let-value`). The value is evaluated first,
    /// here and for `Assign` (`strict(2)`: `heat-let-2`, `cool-let-2`).
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
    /// Pops the argument of `relu`/`tanh`/`sigmoid`, binds the result (Rev-9: `rev-let-relu`
    /// rewrites to `max(E, 0.0)`, `rev-let-tanh` and `rev-let-sigmoid` to `tanhItem(E)` and
    /// `sigmoidItem(E)`, whose argument is evaluated first: `ctx-tanh-item`, `heat-tanh-item`,
    /// `cool-tanh-item`, `ctx-sigmoid-item`, `heat-sigmoid-item`, `cool-sigmoid-item`).
    ScalarLet {
        function: ScalarFunction,
        name: &'e str,
        body: &'e Exp,
        scope: Rc<Scope>,
        span: Span,
    },
}

#[derive(Clone, Copy)]
pub(super) enum ScalarFunction {
    Relu,
    Item(Item),
}

/// The evaluator over a compilation's store and recording.
pub(super) struct Interpreter<'s> {
    pub(super) stage: &'s mut Stage,
    /// The scope an error happened in: `<env>` when the rules raise it, which
    /// `rev-error-abort` leaves as it is (the `restoreScope` items are discarded with `<k>`).
    pub(super) failed_in: Option<Rc<Scope>>,
}

impl<'s> Interpreter<'s> {
    pub(super) fn new(stage: &'s mut Stage) -> Interpreter<'s> {
        Interpreter { stage, failed_in: None }
    }

    /// `result`, noting the scope `scope` builds (only then) as where it failed.
    pub(super) fn failing_in<T>(&mut self, result: Eval<T>, scope: impl FnOnce() -> Rc<Scope>) -> Eval<T> {
        if result.is_err() && self.failed_in.is_none() {
            self.failed_in = Some(scope());
        }
        result
    }

    /// `result`, noting `scope` as where it failed.
    fn in_scope<T>(&mut self, result: Eval<T>, scope: &Rc<Scope>) -> Eval<T> {
        self.failing_in(result, || scope.clone())
    }

    pub(super) fn run(&mut self, program: &Exp, scope: Scope) -> Eval<Value> {
        let mut tasks = vec![Task::Eval(program, Rc::new(scope))];
        let mut values: Vec<Value> = Vec::new();
        let pop = |values: &mut Vec<Value>| values.pop().expect("an operand on the value stack");
        while let Some(task) = tasks.pop() {
            match task {
                Task::Eval(e, scope) => match &e.kind {
                    ExpKind::Float(x) => values.push(Value::Float(*x)),
                    ExpKind::Int(n) => values.push(Value::Int(*n)),
                    ExpKind::Id(x) => {
                        // `lookup-id`; unbound, `rev-unbound-identifier`.
                        let loc = self.in_scope(scope.lookup(x, e.span), &scope)?;
                        values.push(self.stage.read(loc, e.span));
                    }
                    ExpKind::Index(base, ints) => {
                        tasks.push(Task::Index(ints, e.span, scope.clone()));
                        tasks.push(Task::Eval(base, scope));
                    }
                    ExpKind::Max(a, b)
                    | ExpKind::Min(a, b)
                    | ExpKind::Mul(a, b)
                    | ExpKind::Add(a, b)
                    | ExpKind::Sub(a, b)
                    | ExpKind::Div(a, b) => {
                        let op = match &e.kind {
                            ExpKind::Max(..) => Arith::Max,
                            ExpKind::Min(..) => Arith::Min,
                            ExpKind::Mul(..) => Arith::Mul,
                            ExpKind::Sub(..) => Arith::Sub,
                            ExpKind::Div(..) => Arith::Div,
                            _ => Arith::Add,
                        };
                        // `seqstrict` (Rev-11; Ext-7's `ext-heat-sub-2`, `ext-heat-div-2`): the left
                        // operand first.
                        tasks.push(Task::Arith(op, e.span, scope.clone()));
                        tasks.push(Task::Eval(b, scope.clone()));
                        tasks.push(Task::Eval(a, scope));
                    }
                    ExpKind::ArgMax(arg) => {
                        let index = self.argmax(arg, &scope, e.span);
                        values.push(self.in_scope(index, &scope)?);
                    }
                    ExpKind::Let { target, value, body } => {
                        // `strict(2)`: the value first, whatever the target.
                        match &target.kind {
                            ExpKind::Id(x) => tasks.push(Task::Bind { name: x, body, scope: scope.clone() }),
                            _ => tasks.push(Task::Assign { target, body, scope: scope.clone() }),
                        }
                        tasks.push(Task::Eval(value, scope));
                    }
                    ExpKind::LetFunc { target, func, body } => {
                        let done = self.let_func(target, func, body, scope.clone(), e.span, &mut tasks);
                        self.in_scope(done, &scope)?;
                    }
                },
                Task::Arith(op, span, scope) => {
                    let b = pop(&mut values);
                    let a = pop(&mut values);
                    let value = self.arith(op, a, b, span);
                    values.push(self.in_scope(value, &scope)?);
                }
                Task::Index(ints, span, scope) => {
                    let base = pop(&mut values);
                    let value = self.index(base, ints, span);
                    values.push(self.in_scope(value, &scope)?);
                }
                Task::Bind { name, body, scope } => {
                    let value = pop(&mut values);
                    tasks.push(Task::Eval(body, self.bind(name, value, &scope)));
                }
                Task::Assign { target, body, scope } => {
                    let value = pop(&mut values);
                    let written = self.assign(target, value, &scope);
                    self.in_scope(written, &scope)?;
                    tasks.push(Task::Eval(body, scope));
                }
                Task::ScalarLet { function, name, body, scope, span } => {
                    let arg = pop(&mut values);
                    let value = match function {
                        ScalarFunction::Relu => self.arith(Arith::Max, arg, Value::Float(0.0), span),
                        ScalarFunction::Item(item) => self.stage.item(item, arg, span),
                    };
                    let value = self.in_scope(value, &scope)?;
                    tasks.push(Task::Eval(body, self.bind(name, value, &scope)));
                }
            }
        }
        Ok(pop(&mut values))
    }

    /// `rev-let-value`: a fresh cell holds the value; the name's shape entry is dropped.
    fn bind(&mut self, name: &str, value: Value, scope: &Scope) -> Rc<Scope> {
        let loc = self.stage.store.push(value.cell());
        scope.with_value(name, loc)
    }

    /// `op(a, b)`: the Float rules, the Int and mixed rules of Rev-10 and Ext-7 (an Int divided
    /// by `0` is `ext-div-int-zero`'s `division-by-zero`), or `invalid-operands`
    /// (`rev-arith-invalid`, `ext-sub-div-invalid`).
    pub(super) fn arith(&mut self, op: Arith, a: Value, b: Value, span: Span) -> Eval<Value> {
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
            (Some(x), Some(y), _, _) => self.stage.float_op(op, x, y, span).ok_or_else(invalid),
            (_, _, Some(x), Some(y)) => match op {
                Arith::Add | Arith::Mul | Arith::Sub | Arith::Div => self.stage.int_op(op, x, y, span),
                Arith::Max | Arith::Min => Err(invalid()),
            },
            // Mixed: the Int is widened, the operands keep their order (`rev-add-float-int`,
            // `rev-mul-float-int`, `ext-sub-float-int`, `ext-div-float-int`, then
            // `rev-add-int-float`, `rev-mul-int-float`, `ext-sub-int-float`, `ext-div-int-float`).
            (Some(x), None, None, Some(y)) if op.is_arithmetic() => {
                let y = self.stage.widen(y, span);
                self.stage.float_op(op, x, y, span).ok_or_else(invalid)
            }
            (None, Some(y), Some(x), None) if op.is_arithmetic() => {
                let x = self.stage.widen(x, span);
                self.stage.float_op(op, x, y, span).ok_or_else(invalid)
            }
            _ => Err(invalid()),
        }
    }

    /// `base [ ints ]` with the revised `[anywhere]` rules, one index at a time
    /// (`index-tensor-split-anywhere`): each index is checked against the header it goes through
    /// (`rev-index-anywhere` reads the element, `lookup-loc`; out of bounds,
    /// `rev-index-out-of-bounds-anywhere`); indexing a scalar is `too-many-indices`
    /// (`rev-index-scalar`).
    pub(super) fn index(&mut self, base: Value, ints: &[i64], span: Span) -> Eval<Value> {
        let mut value = base;
        for &i in ints {
            let Value::Tensor { loc, len } = value else {
                return Err(error(ErrorKind::TooManyIndices, span, "a scalar: it cannot be indexed"));
            };
            let i = usize::try_from(i).unwrap_or(usize::MAX);
            if i >= len {
                return Err(out_of_bounds(i, len, span));
            }
            value = self.stage.read(loc + i, span);
        }
        Ok(value)
    }

    /// `let target = value in …` for a target that is not a name: flatten `X[i][j]…` into
    /// `X[i, j, …]` (`rev-let-index-flatten`), then write through `X` (`rev-let-index-assign`);
    /// any other target is `rev-let-target-error`.
    ///
    /// The write walks down from `X`'s header, each index checked against the header it goes
    /// through, which gives the writes and the errors of the rules' steps. With one index,
    /// `rev-storeval-id` writes, or `rev-storeval-id-out-of-bounds`, `rev-storeval-id-scalar`,
    /// `rev-storeval-id-unbound` fail. With more, `X[i]` is evaluated first as an element
    /// reference (`rev-ctx-storeval-base-id`, `rev-heat-storeval-base`, `cool-storeval-base`;
    /// an unbound `X` or an `i` out of bounds ends the write with its error:
    /// `rev-storeval-error`), then `rev-storeval-walk` goes down the headers and
    /// `rev-storeval-lookup` with `store-at-val` writes the element, or
    /// `rev-storeval-lookup-out-of-bounds`, `rev-storeval-scalar` fail.
    fn assign(&mut self, target: &Exp, value: Value, scope: &Scope) -> Eval<()> {
        let invalid =
            || error(ErrorKind::InvalidLetTarget, target.span, "a `let` binds a name or assigns an element `t[i, …]`");
        let ExpKind::Index(base, first) = &target.kind else { return Err(invalid()) };
        let mut base: &Exp = base;
        // `X[i, j]`, the form of every weight an imported network writes, is read in place;
        // only `X[i][j]…` is flattened into a list of its own.
        let mut ints: Cow<[i64]> = Cow::Borrowed(first);
        while let ExpKind::Index(inner, is) = &base.kind
            && is.len() == 1
        {
            ints.to_mut().insert(0, is[0]);
            base = inner;
        }
        let ExpKind::Id(x) = &base.kind else { return Err(invalid()) };
        let loc = scope.lookup(x, target.span)?;
        let span = target.span;
        let mut cell = loc;
        for (k, &i) in ints.iter().enumerate() {
            let Cell::Tensor { loc: elements, len } = self.stage.store.get(cell) else {
                let what = if k == 0 { format!("`{x}` holds a scalar") } else { "a scalar".to_string() };
                return Err(error(ErrorKind::TooManyIndices, span, format!("{what}: it cannot be indexed")));
            };
            let i = usize::try_from(i).unwrap_or(usize::MAX);
            if i >= len {
                return Err(out_of_bounds(i, len, span));
            }
            cell = elements + i;
        }
        self.stage.write(cell, value, span);
        Ok(())
    }
}

fn out_of_bounds(i: usize, len: usize, span: Span) -> RowError {
    error(ErrorKind::IndexOutOfBounds, span, format!("index {i} is out of bounds for a dimension of length {len}"))
}
