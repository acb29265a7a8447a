//! Ext-1's `addTensor` and Ext-8's element-wise tensor functions as one `Combine` of the plan
//! when each operand is one run of a buffer or a constant tensor: element `k` of the result is
//! `Y[operandIndex(I, Is)] op Z[operandIndex(I, Js)]` with `I` the `k`-th index in row-major
//! order (`ext-add-helper-step`, `ext-broadcast-helper-step`), the same Float operation on the
//! same operands as the element loop records one by one, so the bits are the reference's. A
//! Float `+ - * /` has no error, so nothing about the order of the elements can be observed
//! but the result.

use knn_semantics::broadcast::operand_index;
use knn_semantics::syntax::Span;

use super::fuse::{constant_tensor, output_buffer, slot_run};
use super::ops::{Arith, CombineOperand, Op};
use super::stage::Stage;
use super::store::Store;

/// Records `X = Y op Z` (shapes `y_dims`, `z_dims` broadcast to `x_dims`, leaves `targets`) as
/// one `Combine` when it can: neither operand a mixture of slots and constants, and not both
/// constant (then the element loop folds it). Whether it did.
pub(super) fn combine(
    stage: &mut Stage,
    op: Arith,
    (y_loc, y_dims): (usize, &[usize]),
    (z_loc, z_dims): (usize, &[usize]),
    (targets, x_dims): (&[usize], &[usize]),
    span: Span,
) -> bool {
    if !matches!(op, Arith::Add | Arith::Sub | Arith::Mul | Arith::Div) {
        return false;
    }
    let (Some(a), Some(b)) =
        (operand(&stage.store, y_loc, y_dims, x_dims), operand(&stage.store, z_loc, z_dims, x_dims))
    else {
        return false;
    };
    if matches!((&a, &b), (CombineOperand::Constants(_), CombineOperand::Constants(_))) {
        return false;
    }
    let out = output_buffer(stage, targets);
    stage.record(Op::Combine { op, a, b, out, len: targets.len(), span });
    true
}

/// Where the result's elements read the operand at `loc` (shape `dims`, broadcast to
/// `x_dims`), if it is one run of a buffer or a constant tensor.
fn operand(store: &Store, loc: usize, dims: &[usize], x_dims: &[usize]) -> Option<CombineOperand> {
    if let Some((buf, at, _)) = slot_run(store, loc, dims) {
        if dims == x_dims {
            return Some(CombineOperand::Run { buf, at });
        }
        let from = broadcast_positions(dims, x_dims).into_iter().map(|j| at + j).collect();
        return Some(CombineOperand::Gather { buf, from });
    }
    let values = constant_tensor(store, loc, dims)?;
    Some(CombineOperand::Constants(broadcast_positions(dims, x_dims).into_iter().map(|j| values[j]).collect()))
}

/// For each element of a tensor of shape `x_dims` in row-major order, the row-major position
/// of the element of the operand of shape `dims` that broadcasting reads (`operandIndex`).
fn broadcast_positions(dims: &[usize], x_dims: &[usize]) -> Vec<usize> {
    let dims_i64: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
    let len: usize = x_dims.iter().product();
    (0..len)
        .map(|k| {
            // The k-th index of `x_dims` in row-major order.
            let mut index = vec![0i64; x_dims.len()];
            let mut rest = k;
            for (slot, &d) in index.iter_mut().zip(x_dims).rev() {
                *slot = (rest % d) as i64;
                rest /= d;
            }
            let index = operand_index(&index, &dims_i64);
            index.iter().zip(dims).fold(0usize, |flat, (&i, &d)| flat * d + i as usize)
        })
        .collect()
}

/// Every lane of a `Combine`'s result: `result[k·lanes + l] = a op b` with the operands read
/// from `data` through `position` (a run or a gather: the index in `data` of element `k`'s
/// slot in lane 0) or the constants. The result's own space is not in `data`'s reach.
fn combine_lanes(
    op: Arith,
    (a, b): (Operand<'_>, Operand<'_>),
    read: impl Fn(usize) -> f64,
    result: &mut [f64],
    lanes: usize,
) {
    let apply: fn(f64, f64) -> f64 = match op {
        Arith::Add => |x, y| x + y,
        Arith::Sub => |x, y| x - y,
        Arith::Mul => |x, y| x * y,
        Arith::Div => |x, y| x / y,
        Arith::Max | Arith::Min => unreachable!("a Combine is + - * /"),
    };
    for (k, row) in result.chunks_exact_mut(lanes).enumerate() {
        for (l, slot) in row.iter_mut().enumerate() {
            *slot = apply(a.at(k, l, lanes, &read), b.at(k, l, lanes, &read));
        }
    }
}

/// A `Combine` in a frame's `data` (buffer `b` from `offsets[b]`, `lanes` values per
/// element): its result, `len` elements, in buffer `out`. The operands may share a buffer with
/// each other, never with the result (`layout.rs`).
pub(super) fn combine_in(
    data: &mut [f64],
    offsets: &[usize],
    (out, len): (u32, usize),
    op: Arith,
    (a, b): (&CombineOperand, &CombineOperand),
    lanes: usize,
) {
    let offset = |buf: u32| offsets[buf as usize];
    let target = offset(out)..offset(out) + len * lanes;
    let operands = (resolve(a, offset, lanes), resolve(b, offset, lanes));
    let (before, rest) = data.split_at_mut(target.start);
    let (result, after) = rest.split_at_mut(target.len());
    let read = |i: usize| if i < target.start { before[i] } else { after[i - target.end] };
    combine_lanes(op, operands, read, result, lanes);
}

/// A `CombineOperand` resolved against a frame: where element `k` of lane `l` is.
#[derive(Clone, Copy)]
enum Operand<'a> {
    /// Element `k` of lane `l` at `start + k·lanes + l`.
    Run(usize),
    /// Element `k` of lane `l` at `start + from[k]·lanes + l`.
    Gather(usize, &'a [usize]),
    Constants(&'a [f64]),
}

impl Operand<'_> {
    #[inline]
    fn at(self, k: usize, l: usize, lanes: usize, read: &impl Fn(usize) -> f64) -> f64 {
        match self {
            Operand::Run(start) => read(start + k * lanes + l),
            Operand::Gather(start, from) => read(start + from[k] * lanes + l),
            Operand::Constants(values) => values[k],
        }
    }
}

/// The frame's view of an operand: `offset` is where its buffer starts in the frame.
fn resolve(operand: &CombineOperand, offset: impl Fn(u32) -> usize, lanes: usize) -> Operand<'_> {
    match operand {
        CombineOperand::Run { buf, at } => Operand::Run(offset(*buf) + at * lanes),
        CombineOperand::Gather { buf, from } => Operand::Gather(offset(*buf), from),
        CombineOperand::Constants(values) => Operand::Constants(values),
    }
}

/// The buffers a `Combine` operand reads.
pub(super) fn operand_buffer(operand: &CombineOperand) -> Option<u32> {
    match operand {
        CombineOperand::Run { buf, .. } | CombineOperand::Gather { buf, .. } => Some(*buf),
        CombineOperand::Constants(_) => None,
    }
}
