//! Fusion: where the plan computes a whole tensor operation, or several, in one operation.
//!
//! - **While staging**, a tensor function whose operands are laid out the way a kernel wants is
//!   recorded as one operation instead of element by element: `linear` with constant weights
//!   and an input held in one buffer is a `MatVec`, an activation over a buffer an `Activate`,
//!   `ArgMax` over a buffer an `ArgMaxBuffer` (the interpreter falls back to scalar operations
//!   when these decline).
//! - **After staging**, peepholes over the recorded operations: bias `let`s become `AddBias`
//!   and merge into the `MatVec` before them; other chains of constant multiplications and
//!   additions of one element (`z[i] * a + b`) become `Elementwise`; a `reluTensor` of a product is computed in the product's pass.
//!
//! Every element sees the same operations, in the same order, as the rules prescribe.

use std::sync::Arc;

use knn_semantics::syntax::Span;

use super::ops::{Activation, Arith, BufId, ElementStep, FOperand, Op, ReluInto, widen};
use super::plan::{Leaf, ResultSpec};
use super::stage::Stage;
use super::store::{Cell, Store, Value};
use crate::tensor::Matrix;

/// The locations of the leaves of the tensor whose header is at `header`, row-major, if it has
/// exactly the structure `dims`.
fn leaf_locations(store: &Store, header: usize, dims: &[usize]) -> Option<Vec<usize>> {
    let mut level = vec![header];
    for &d in dims {
        let mut next = Vec::with_capacity(level.len() * d);
        for h in level {
            match store.get(h) {
                Cell::Tensor { loc, len } if len == d => next.extend(loc..loc + len),
                _ => return None,
            }
        }
        level = next;
    }
    Some(level)
}

/// The run `(buffer, first slot, length)` if the tensor whose header is at `header` has
/// exactly the structure `dims` and its leaves are consecutive slots of one buffer.
pub(super) fn slot_run(store: &Store, header: usize, dims: &[usize]) -> Option<(BufId, usize, usize)> {
    let level = leaf_locations(store, header, dims)?;
    let &first = level.first()?;
    let Cell::Slot { buf, at } = store.get(first) else { return None };
    let consecutive = level.iter().enumerate().all(|(k, &loc)| store.get(loc) == Cell::Slot { buf, at: at + k });
    consecutive.then_some((buf, at, level.len()))
}

/// The constant `rows × cols` matrix at `header` (Ints widened, as the mixed rules widen
/// them), if it is one. When its rows are the consecutive rows of one tensor literal nothing
/// has written to, the matrix is a view of the literal's array: the weights are not copied.
fn constant_matrix(store: &Store, header: usize, rows: usize, cols: usize) -> Option<Matrix> {
    let Cell::Tensor { loc, len } = store.get(header) else { return None };
    if len != rows {
        return None;
    }
    let mut row_locs = Vec::with_capacity(rows);
    for i in 0..rows {
        match store.get(loc + i) {
            Cell::Tensor { loc: row, len } if len == cols => row_locs.push(row),
            _ => return None,
        }
    }
    if let Some((data, offset)) = store.literal_rows(&row_locs, cols) {
        return Some(Matrix::shared(rows, cols, data, offset));
    }
    let mut data = Vec::with_capacity(rows * cols);
    for row in row_locs {
        if let Some(elements) = store.literal_run(row, cols) {
            // A row of a tensor literal: its Floats, as the cells would give them.
            data.extend_from_slice(elements);
            continue;
        }
        for j in 0..cols {
            match store.get(row + j) {
                Cell::Float(x) => data.push(x),
                Cell::Int(n) => data.push(widen(n)),
                _ => return None,
            }
        }
    }
    Some(Matrix::new(rows, cols, data))
}

/// The elements of the constant tensor at `header` of shape `dims`, row-major, Ints widened
/// as the mixed rules widen them, if it is one.
pub(super) fn constant_tensor(store: &Store, header: usize, dims: &[usize]) -> Option<Vec<f64>> {
    leaf_locations(store, header, dims)?
        .into_iter()
        .map(|loc| match store.get(loc) {
            Cell::Float(x) => Some(x),
            Cell::Int(n) => Some(widen(n)),
            _ => None,
        })
        .collect()
}

/// Gives the tensor whose leaves are `targets` the slots of a new buffer, in order: the
/// output of the operation just recorded.
pub(super) fn output_buffer(stage: &mut Stage, targets: &[usize]) -> BufId {
    let out = stage.new_buffer(targets.len());
    for (at, &loc) in targets.iter().enumerate() {
        stage.store.set(loc, Cell::Slot { buf: out, at });
    }
    out
}

/// `linear`'s helper (`rev-linear-mac` for each row, then each column: `linear-rows-step`,
/// `linear-cols-step`) as one `MatVec` when the weights at `w_loc` are a constant matrix and
/// the input at `x_loc` is one run of a buffer: its output becomes a buffer whose slots are
/// `targets`. Whether it did.
pub(super) fn matvec(
    stage: &mut Stage,
    w_loc: usize,
    x_loc: usize,
    targets: &[usize],
    rows: usize,
    cols: usize,
) -> bool {
    let (Some(w), Some((x, x_at, _))) =
        (constant_matrix(&stage.store, w_loc, rows, cols), slot_run(&stage.store, x_loc, &[cols]))
    else {
        return false;
    };
    let out = stage.new_buffer(rows);
    stage.record(Op::MatVec { out, w: Arc::new(w), x, x_at, bias: None, relu: None });
    for (at, &loc) in targets.iter().enumerate() {
        stage.store.set(loc, Cell::Slot { buf: out, at });
    }
    true
}

/// An activation's helper as one `Activate` when the tensor at `y_loc` (shape `dims`) is one
/// run of a buffer: its output becomes a buffer whose slots are `targets`. Whether it did.
pub(super) fn activate(
    stage: &mut Stage,
    activation: Activation,
    y_loc: usize,
    targets: &[usize],
    dims: &[usize],
    span: Span,
) -> bool {
    let Some((input, in_at, len)) = slot_run(&stage.store, y_loc, dims) else { return false };
    let out = stage.new_buffer(len);
    stage.record(Op::Activate { activation, input, in_at, out, len, span });
    for (at, &loc) in targets.iter().enumerate() {
        stage.store.set(loc, Cell::Slot { buf: out, at });
    }
    true
}

/// `ArgMax` of the `len > 0` Float elements from `first` as one `ArgMaxBuffer` when they are
/// consecutive slots of one buffer: the Int register it writes.
pub(super) fn argmax_buffer(stage: &mut Stage, first: usize, len: usize) -> Option<Value> {
    let cells: Vec<Cell> = stage.store.cells(first, len);
    let Cell::Slot { buf, at } = cells[0] else { return None };
    if !cells.iter().enumerate().all(|(k, c)| *c == Cell::Slot { buf, at: at + k }) {
        return None;
    }
    let out = stage.new_ireg();
    stage.record(Op::ArgMaxBuffer { buf, at, len, out });
    Some(Value::IReg(out))
}

/// The peepholes over a recorded plan: bias `let`s first, then relus into the products.
pub(super) fn fuse_recorded(ops: Vec<Op>, result: &ResultSpec) -> Vec<Op> {
    fuse_relus(fuse_biases(ops, result))
}

/// How many times each Float register is read by `ops` or the result.
fn float_uses(ops: &[Op], result: &ResultSpec, registers: usize) -> Vec<u32> {
    let mut uses = vec![0u32; registers];
    let use_operand = |o: &FOperand, uses: &mut Vec<u32>| {
        if let FOperand::Reg(r) = o {
            uses[*r as usize] += 1;
        }
    };
    for op in ops {
        match op {
            Op::Float { a, b, .. } => {
                use_operand(a, &mut uses);
                use_operand(b, &mut uses);
            }
            Op::Item { a, .. } => uses[*a as usize] += 1,
            Op::Write { value, .. } => use_operand(value, &mut uses),
            Op::ArgMaxOperands { items, .. } => items.iter().for_each(|o| use_operand(o, &mut uses)),
            _ => {}
        }
    }
    match result {
        ResultSpec::Float(o) => use_operand(o, &mut uses),
        ResultSpec::Tensor { leaves, .. } => {
            for leaf in leaves {
                if let Leaf::Reg(r) = leaf {
                    uses[*r as usize] += 1;
                }
            }
        }
        _ => {}
    }
    uses
}

/// Fuses the bias `let`s of a network. `let z[i] = z[i] + b in …` on a buffer compiles to
/// `Read → Float(+ b) → Write` with registers used nowhere else: one `AddBias` element. Runs
/// of them on one buffer become one `AddBias`, which merges into the `MatVec` right before it
/// when that produced the buffer. Every element sees the same additions in the same order.
fn fuse_biases(ops: Vec<Op>, result: &ResultSpec) -> Vec<Op> {
    let registers = ops
        .iter()
        .filter_map(|op| match op {
            Op::Float { out, .. } | Op::Read { out, .. } | Op::Widen { out, .. } | Op::Item { out, .. } => {
                Some(*out + 1)
            }
            _ => None,
        })
        .max()
        .unwrap_or(0) as usize;
    let uses = float_uses(&ops, result, registers.max(1));
    let mut fused: Vec<Op> = Vec::with_capacity(ops.len());
    let mut k = 0;
    while k < ops.len() {
        if let Some((buf, at, chain, taken)) = element_chain(&ops[k..], &uses) {
            add_element_chain(&mut fused, buf, at, chain);
            k += taken;
        } else if let [
            Op::Read { buf, at, out: r1, .. },
            Op::Float { op: Arith::Add, a: FOperand::Reg(a), b: FOperand::Const(c), out: r2, .. },
            Op::Write { buf: wbuf, at: wat, value: FOperand::Reg(v), .. },
            ..,
        ] = &ops[k..]
            && a == r1
            && v == r2
            && wbuf == buf
            && wat == at
            && uses[*r1 as usize] == 1
            && uses[*r2 as usize] == 1
        {
            add_bias(&mut fused, *buf, *at, *c);
            k += 3;
        } else {
            fused.push(ops[k].clone());
            k += 1;
        }
    }
    fused
}

/// `Read → Float(op c) → … → Write` of one element with at least one step other than an
/// addition or two steps (a single addition is a bias), its registers used nowhere else, at the
/// start of `ops`: the buffer, the element, the steps and the number of operations. The steps
/// are `*`, `+`, and Ext-7's `-` and `/` by a constant, each computed as the `Float` operation it
/// replaces.
fn element_chain(ops: &[Op], uses: &[u32]) -> Option<(BufId, usize, Vec<ElementStep>, usize)> {
    let Some(Op::Read { buf, at, out, .. }) = ops.first() else { return None };
    let mut value = *out;
    let mut chain = Vec::new();
    for (k, op) in ops.iter().enumerate().skip(1) {
        if uses[value as usize] != 1 {
            return None;
        }
        match op {
            Op::Float {
                op: arith @ (Arith::Mul | Arith::Add | Arith::Sub | Arith::Div),
                a: FOperand::Reg(x),
                b: FOperand::Const(c),
                out,
                ..
            } if *x == value => {
                chain.push(match arith {
                    Arith::Mul => ElementStep::Mul(*c),
                    Arith::Add => ElementStep::Add(*c),
                    Arith::Sub => ElementStep::Sub(*c),
                    _ => ElementStep::Div(*c),
                });
                value = *out;
            }
            Op::Write { buf: b, at: a, value: FOperand::Reg(v), .. } if b == buf && a == at && *v == value => {
                let fused = chain.len() > 1
                    || matches!(chain.first(), Some(ElementStep::Mul(_) | ElementStep::Sub(_) | ElementStep::Div(_)));
                return fused.then_some((*buf, *at, chain, k + 1));
            }
            _ => return None,
        }
    }
    None
}

/// Appends element `at`'s chain, extending the `Elementwise` just before when it is the same
/// buffer and the element has no steps there yet.
fn add_element_chain(ops: &mut Vec<Op>, buf: BufId, at: usize, chain: Vec<ElementStep>) {
    if let Some(Op::Elementwise { buf: b, at: start, steps }) = ops.last_mut()
        && *b == buf
        && at >= *start
        && at < *start + steps.len() + 64
    {
        let k = at - *start;
        if k >= steps.len() {
            steps.resize(k + 1, Vec::new());
        }
        if steps[k].is_empty() {
            steps[k] = chain;
            return;
        }
    }
    ops.push(Op::Elementwise { buf, at, steps: vec![chain] });
}

/// Appends `buf[at] += c`, extending the `AddBias` or `MatVec` just before when it is the same
/// buffer and `at` is past every element it biases.
fn add_bias(ops: &mut Vec<Op>, buf: BufId, at: usize, c: f64) {
    match ops.last_mut() {
        Some(Op::AddBias { buf: b, at: start, values })
            if *b == buf && at >= *start && at < *start + values.len() + 64 =>
        {
            let k = at - *start;
            if k >= values.len() {
                values.resize(k + 1, None);
            }
            if values[k].is_none() {
                values[k] = Some(c);
                return;
            }
        }
        Some(Op::MatVec { out, w, bias, .. }) if *out == buf && at < w.rows() => {
            let bias = bias.get_or_insert_with(|| vec![None; w.rows()].into());
            if bias[at].is_none() {
                Arc::make_mut(bias)[at] = Some(c);
                return;
            }
        }
        _ => {}
    }
    ops.push(Op::AddBias { buf, at, values: vec![Some(c)] });
}

/// Fuses `reluTensor` into the `MatVec` right before it when it reads exactly that product:
/// the product is still written (later code may read it) and relu computed from it in the
/// same pass, element for element the same operations.
fn fuse_relus(ops: Vec<Op>) -> Vec<Op> {
    let mut fused: Vec<Op> = Vec::with_capacity(ops.len());
    for op in ops {
        if let Op::Activate { activation: Activation::Relu, input, in_at: 0, out, len, span } = op
            && let Some(Op::MatVec { out: product, w, relu: relu @ None, .. }) = fused.last_mut()
            && *product == input
            && w.rows() == len
        {
            *relu = Some(ReluInto { out, span });
            continue;
        }
        fused.push(op);
    }
    fused
}
