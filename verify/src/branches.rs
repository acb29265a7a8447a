//! Plans whose tensors branch and meet again: a residual connection, `addTensor` of two
//! tensors computed from the input (`knn import` writes one for each ONNX `Add` of two computed
//! values). The verifier bounds a chain of layers on one vector (network.rs), and such a sum
//! reads two vectors of the chain at once. A plan the chain cannot read (whatever operation
//! first reads the older branch stops it) is refused naming the sum when it holds one.

use std::collections::HashMap;

use knn_engine::bigstep::Plan;
use knn_engine::bigstep::ops::{Arith, BufId, FOperand, Op, Reg};
use knn_semantics::syntax::Span;

/// The span of the first sum of two elements of computed tensors at the same index (the
/// element-by-element addition `addTensor` compiles to: `Y[idx] + Z[idx]`, Ext-1's
/// `ext-add-helper-step`), if the plan has one.
pub fn residual_sum(plan: &Plan) -> Option<Span> {
    // Which register holds which element of a buffer, as the plan reads them.
    let mut read: HashMap<Reg, (BufId, usize)> = HashMap::new();
    for op in &plan.ops {
        match op {
            Op::Read { buf, at, out, .. } => {
                read.insert(*out, (*buf, *at));
            }
            Op::Float { op: Arith::Add, a: FOperand::Reg(a), b: FOperand::Reg(b), out, span } => {
                if let (Some((_, i)), Some((_, j))) = (read.get(a), read.get(b))
                    && i == j
                {
                    return Some(*span);
                }
                read.remove(out);
            }
            Op::Float { out, .. }
            | Op::Int { out, .. }
            | Op::Widen { out, .. }
            | Op::Item { out, .. }
            | Op::ArgMaxBuffer { out, .. }
            | Op::ArgMaxOperands { out, .. } => {
                read.remove(out);
            }
            _ => {}
        }
    }
    None
}
