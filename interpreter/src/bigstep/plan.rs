//! A compiled program: the operations that depend on the inputs, in evaluation order, with the
//! registers and buffers they use, and where the result is.

use std::sync::Arc;

use super::layout::{Layout, layout};
use super::ops::{Activation, Arith, BufId, FOperand, IOperand, Op, Reg, ReluInto};

/// A symbolic input: its name and the buffer that receives its elements (row-major).
#[derive(Clone, Debug, PartialEq)]
pub struct PlanInput {
    pub name: String,
    pub buf: BufId,
    pub len: usize,
}

/// An element of a tensor result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Leaf {
    Const(f64),
    Reg(Reg),
    Slot(BufId, usize),
}

/// Where the result of a row is.
#[derive(Clone, Debug, PartialEq)]
pub enum ResultSpec {
    Float(FOperand),
    Int(IOperand),
    /// A dense tensor: its shape and its elements, row-major.
    Tensor {
        shape: Vec<usize>,
        leaves: Vec<Leaf>,
    },
    /// A tensor value whose store is not a dense tensor of Floats.
    Malformed(String),
    /// The program fails for every row (the last operation raises).
    Failed,
}

#[derive(Clone, Debug)]
pub struct Plan {
    pub ops: Vec<Op>,
    pub fregs: u32,
    pub iregs: u32,
    /// The length of each buffer.
    pub buffers: Vec<usize>,
    /// Where each buffer lives in a frame (buffers that are not live at once share space).
    pub layout: Layout,
    pub inputs: Vec<PlanInput>,
    pub result: ResultSpec,
}

impl Plan {
    pub fn new(
        ops: Vec<Op>,
        fregs: u32,
        iregs: u32,
        buffers: Vec<usize>,
        inputs: Vec<PlanInput>,
        result: ResultSpec,
    ) -> Plan {
        let ops = fuse_relus(fuse_biases(ops, &result));
        let layout = layout(&ops, &inputs, &result, &buffers);
        let mut plan = Plan { ops, fregs, iregs, buffers, layout, inputs, result };
        plan.compact_registers();
        plan
    }

    /// Renumbers the registers the operations and the result still use, densely: fused
    /// operations leave unused ones, and every register costs a column per lane group.
    fn compact_registers(&mut self) {
        let mut floats = Renumbering::new(self.fregs);
        let mut ints = Renumbering::new(self.iregs);
        for op in &mut self.ops {
            visit_registers(op, &mut |r, is_float| if is_float { floats.map(r) } else { ints.map(r) });
        }
        match &mut self.result {
            ResultSpec::Float(FOperand::Reg(r)) => *r = floats.map(*r),
            ResultSpec::Int(IOperand::Reg(r)) => *r = ints.map(*r),
            ResultSpec::Tensor { leaves, .. } => {
                for leaf in leaves {
                    if let Leaf::Reg(r) = leaf {
                        *r = floats.map(*r);
                    }
                }
            }
            _ => {}
        }
        self.fregs = floats.next;
        self.iregs = ints.next;
    }

    /// Whether the result is the same for every input (nothing to run).
    pub fn is_constant(&self) -> bool {
        self.ops.is_empty()
    }
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
        if let [
            Op::Read { buf, at, out: r1 },
            Op::Float { op: Arith::Add, a: FOperand::Reg(a), b: FOperand::Const(c), out: r2, .. },
            Op::Write { buf: wbuf, at: wat, value: FOperand::Reg(v) },
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

/// Old register numbers to new, dense ones, in order of first use.
struct Renumbering {
    map: Vec<Option<Reg>>,
    next: Reg,
}

impl Renumbering {
    fn new(registers: u32) -> Renumbering {
        Renumbering { map: vec![None; registers as usize], next: 0 }
    }

    fn map(&mut self, r: Reg) -> Reg {
        *self.map[r as usize].get_or_insert_with(|| {
            self.next += 1;
            self.next - 1
        })
    }
}

/// Calls `f(register, is_float)` on every register `op` names and stores what it returns.
fn visit_registers(op: &mut Op, f: &mut impl FnMut(Reg, bool) -> Reg) {
    let float = |o: &mut FOperand, f: &mut dyn FnMut(Reg, bool) -> Reg| {
        if let FOperand::Reg(r) = o {
            *r = f(*r, true);
        }
    };
    match op {
        Op::Float { a, b, out, .. } => {
            float(a, f);
            float(b, f);
            *out = f(*out, true);
        }
        Op::Int { a, b, out, .. } => {
            for o in [a, b] {
                if let IOperand::Reg(r) = o {
                    *r = f(*r, false);
                }
            }
            *out = f(*out, false);
        }
        Op::Widen { a, out } => {
            *a = f(*a, false);
            *out = f(*out, true);
        }
        Op::Item { a, out, .. } => {
            *a = f(*a, true);
            *out = f(*out, true);
        }
        Op::Read { out, .. } => *out = f(*out, true),
        Op::Write { value, .. } => float(value, f),
        Op::ArgMaxBuffer { out, .. } => *out = f(*out, false),
        Op::ArgMaxOperands { items, out } => {
            for item in items {
                float(item, f);
            }
            *out = f(*out, false);
        }
        Op::MatVec { .. } | Op::AddBias { .. } | Op::Activate { .. } | Op::Raise { .. } => {}
    }
}
