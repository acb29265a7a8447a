//! Staging: the evaluator's values are constants or **registers**. Inputs bound symbolically
//! put *slots* of an input buffer in the store; reading a slot, or computing with a register,
//! records an operation of the plan instead of computing it. Everything that does not depend
//! on the inputs (weights written by element lets, constants) is computed once, here, with the
//! functions the plan runs (`ops.rs`). With concrete inputs nothing is recorded.

use std::collections::BTreeMap;

use knn_semantics::engine::EnvTensors;
use knn_semantics::errors::ErrorKind;
use knn_semantics::observables::{DenseTensor, MAX_RANK};
use knn_semantics::syntax::Span;

use super::ops::{
    Arith, BufId, Eval, FOperand, IOperand, Item, Op, Reg, error, float_arith, int_arith, int_arith_error, item, widen,
};
use super::plan::{Leaf, ResultSpec};
use super::scope::Scope;
use super::store::{Cell, Store, Value};

/// The state of a compilation: the store, and the plan being recorded.
#[derive(Default)]
pub(super) struct Stage {
    pub(super) store: Store,
    ops: Vec<Op>,
    fregs: u32,
    iregs: u32,
    buffers: Vec<usize>,
}

/// What staging recorded: the operations, how many registers of each kind they use, and the
/// length of each buffer.
pub(super) struct Recording {
    pub ops: Vec<Op>,
    pub fregs: u32,
    pub iregs: u32,
    pub buffers: Vec<usize>,
}

impl Stage {
    pub(super) fn into_recording(self) -> Recording {
        Recording { ops: self.ops, fregs: self.fregs, iregs: self.iregs, buffers: self.buffers }
    }

    #[inline]
    pub(super) fn record(&mut self, op: Op) {
        self.ops.push(op);
    }

    #[inline]
    pub(super) fn new_freg(&mut self) -> Reg {
        self.fregs += 1;
        self.fregs - 1
    }

    #[inline]
    pub(super) fn new_ireg(&mut self) -> Reg {
        self.iregs += 1;
        self.iregs - 1
    }

    #[inline]
    pub(super) fn new_buffer(&mut self, len: usize) -> BufId {
        self.buffers.push(len);
        (self.buffers.len() - 1) as BufId
    }

    /// The value in a cell; a slot is read into a register (a snapshot).
    #[inline]
    pub(super) fn read(&mut self, loc: usize, span: Span) -> Value {
        match self.store.get(loc) {
            Cell::Float(x) => Value::Float(x),
            Cell::Int(n) => Value::Int(n),
            Cell::Tensor { loc, len } => Value::Tensor { loc, len },
            Cell::FReg(r) => Value::FReg(r),
            Cell::IReg(r) => Value::IReg(r),
            Cell::Slot { buf, at } => {
                let out = self.new_freg();
                self.ops.push(Op::Read { buf, at, out, span });
                Value::FReg(out)
            }
        }
    }

    /// `loc |-> (_ => V)`: a Float written into a slot stays in the buffer.
    #[inline]
    pub(super) fn write(&mut self, loc: usize, value: Value, span: Span) {
        match (self.store.get(loc), value.float_operand()) {
            (Cell::Slot { buf, at }, Some(value)) => self.ops.push(Op::Write { buf, at, value, span }),
            _ => self.store.set(loc, value.cell()),
        }
    }

    /// A Float operation: folded when both operands are constants (`None` for a NaN in
    /// `max`/`min`), recorded otherwise.
    #[inline]
    pub(super) fn float_op(&mut self, op: Arith, a: FOperand, b: FOperand, span: Span) -> Option<Value> {
        if let (FOperand::Const(x), FOperand::Const(y)) = (a, b) {
            return float_arith(op, x, y).map(Value::Float);
        }
        let out = self.new_freg();
        self.ops.push(Op::Float { op, a, b, out, span });
        Some(Value::FReg(out))
    }

    /// An Int operation (`rev-add-int`, `rev-mul-int`): folded when both operands are
    /// constants, an `integer-overflow` beyond 64 bits; recorded otherwise.
    #[inline]
    pub(super) fn int_op(&mut self, op: Arith, a: IOperand, b: IOperand, span: Span) -> Eval<Value> {
        if let (IOperand::Const(x), IOperand::Const(y)) = (a, b) {
            return int_arith(op, x, y).map(Value::Int).ok_or_else(|| {
                let (kind, detail) = int_arith_error(op, x, y);
                error(kind, span, detail)
            });
        }
        let out = self.new_ireg();
        self.ops.push(Op::Int { op, a, b, out, span });
        Ok(Value::IReg(out))
    }

    /// `Int2Float(I, 53, 11)` of the Int operand of a mixed operation.
    #[inline]
    pub(super) fn widen(&mut self, a: IOperand, span: Span) -> FOperand {
        match a {
            IOperand::Const(n) => FOperand::Const(widen(n)),
            IOperand::Reg(r) => {
                let out = self.new_freg();
                self.ops.push(Op::Widen { a: r, out, span });
                FOperand::Reg(out)
            }
        }
    }

    /// `tanhItem(V)` / `sigmoidItem(V)`: a Float, or `rev-item-invalid`.
    #[inline]
    pub(super) fn item(&mut self, which: Item, v: Value, span: Span) -> Eval<Value> {
        match v {
            Value::Float(x) => Ok(Value::Float(item(which, x))),
            Value::FReg(a) => {
                let out = self.new_freg();
                self.ops.push(Op::Item { item: which, a, out, span });
                Ok(Value::FReg(out))
            }
            _ => Err(error(
                ErrorKind::InvalidOperands,
                span,
                format!("`{}` takes a Float, not {}", which.name(), v.describe()),
            )),
        }
    }

    /// What the plan returns: a constant, a register, or a tensor read through the store the
    /// way `observables::read_tensor` reads it.
    pub(super) fn result_spec(&self, value: Value) -> ResultSpec {
        match value {
            Value::Float(x) => ResultSpec::Float(FOperand::Const(x)),
            Value::FReg(r) => ResultSpec::Float(FOperand::Reg(r)),
            Value::Int(n) => ResultSpec::Int(IOperand::Const(n)),
            Value::IReg(r) => ResultSpec::Int(IOperand::Reg(r)),
            Value::Tensor { loc, len } => match self.dense(loc, len) {
                Ok((shape, leaves)) => ResultSpec::Tensor { shape, leaves },
                Err(why) => ResultSpec::Malformed(why),
            },
        }
    }

    /// Every name of `scope` with its tensor, read as `observables::env_tensors` reads `<env>`
    /// (in the order of the names; a scalar's cell is not a header); `None` if an element is
    /// known only when the plan runs.
    pub(super) fn env_tensors(&self, scope: &Scope) -> Option<EnvTensors> {
        let names: BTreeMap<&str, usize> = scope.env.iter().map(|(x, &loc)| (&**x, loc)).collect();
        let constant = |leaf: &Leaf| if let Leaf::Const(v) = leaf { Some(*v) } else { None };
        names
            .into_iter()
            .map(|(x, loc)| {
                let tensor = match self.store.get(loc) {
                    Cell::Tensor { loc, len } => match self.dense(loc, len) {
                        Ok((shape, leaves)) => {
                            Ok(DenseTensor { shape, data: leaves.iter().map(constant).collect::<Option<_>>()? })
                        }
                        Err(why) => Err(why),
                    },
                    _ => Err(format!("the header cell {loc} was overwritten")),
                };
                Some((x.to_string(), tensor))
            })
            .collect()
    }

    /// The shape and elements of the tensor at `loc` as `observables::read_tensor` reads them,
    /// or, in its words, why it is not a dense tensor.
    fn dense(&self, loc: usize, len: usize) -> Result<(Vec<usize>, Vec<Leaf>), String> {
        let mut shape = Vec::new();
        let mut level = vec![(loc, len)];
        loop {
            shape.push(level[0].1);
            let (mut leaves, mut headers) = (Vec::new(), Vec::new());
            for &(start, count) in &level {
                for l in start..start + count {
                    match self.store.get(l) {
                        Cell::Float(x) => leaves.push(Leaf::Const(x)),
                        Cell::FReg(r) => leaves.push(Leaf::Reg(r)),
                        Cell::Slot { buf, at } => leaves.push(Leaf::Slot(buf, at)),
                        Cell::Tensor { loc, len } => headers.push((loc, len)),
                        Cell::Int(n) => return Err(format!("location {l} holds \"the Int {n}\"")),
                        Cell::IReg(_) => return Err(format!("location {l} holds an Int")),
                    }
                }
            }
            match (leaves.is_empty(), headers.is_empty()) {
                (_, true) => return Ok((shape, leaves)),
                (true, false) if headers.iter().all(|h| h.1 == headers[0].1) => {
                    if shape.len() >= MAX_RANK {
                        return Err(format!("more than {MAX_RANK} levels of sub-tensors"));
                    }
                    level = headers;
                }
                (true, false) => return Err("sub-tensors of different lengths".to_string()),
                (false, false) => return Err("a level mixes Floats and sub-tensors".to_string()),
            }
        }
    }
}
