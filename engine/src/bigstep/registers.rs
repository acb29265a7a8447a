//! Dense register numbers: fused operations leave registers nothing uses any more, and every
//! register costs a column per lane group when the plan runs.

use super::ops::{FOperand, IOperand, Op, Reg};
use super::plan::{Leaf, Plan, ResultSpec};

/// Renumbers the registers the operations and the result still use, densely, in order of
/// first use.
pub(super) fn compact_registers(plan: &mut Plan) {
    let mut floats = Renumbering::new(plan.fregs);
    let mut ints = Renumbering::new(plan.iregs);
    for op in &mut plan.ops {
        visit_registers(op, &mut |r, is_float| if is_float { floats.map(r) } else { ints.map(r) });
    }
    match &mut plan.result {
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
    plan.fregs = floats.next;
    plan.iregs = ints.next;
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
        Op::Widen { a, out, .. } => {
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
        Op::MatVec { .. }
        | Op::AddBias { .. }
        | Op::Elementwise { .. }
        | Op::Activate { .. }
        | Op::Conv2d { .. }
        | Op::Pool2d { .. }
        | Op::Copy { .. }
        | Op::Permute { .. }
        | Op::Raise { .. }
        | Op::Softmax { .. }
        | Op::Reduce { .. }
        | Op::Gather { .. }
        | Op::Combine { .. }
        | Op::Pad { .. }
        | Op::MatMul { .. } => {}
    }
}
