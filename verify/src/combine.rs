//! A `Combine` of the plan (Ext-1's `addTensor`, Ext-8's `subTensor`, `mulTensor`,
//! `divTensor`, one Float operation per element) read onto the branches of the vector:
//!
//! - with a constant operand, as the per-element operators that compute the same IEEE
//!   operation: `x + c` and `c + x` a `Bias` layer (`+` commutes), `x − c` the bias `−c` (IEEE
//!   defines `x − c` as `x + (−c)`, and `−c` is exact), `c − x` the scaling by `−1` (exact)
//!   then the bias `c`, `x · c` and `c · x` a [`Scale`], `x / c` a [`Divide`] layer (for `c`
//!   finite and not 0); a division by `0`, `±∞` or NaN, and `c / x`, are refused by name;
//! - with two computed operands, their sum or difference as a sparse layer over both segments
//!   (`fl(a + fl(±1·b))`, the sum from its first term, is `fl(a ± b)`, the engine's one
//!   rounding, signed zeros included), the operands kept
//!   when they are read again; their product or quotient as a [`Pairwise`] layer (bounded by
//!   ranges: it is not monotone);
//! - a `Gather` from two tensors on the vector (`concat` of two branches) as a gather over the
//!   whole vector, lifted;
//! - a `MatMul` of two tensors on the vector as a [`Product`] layer over the whole vector,
//!   lifted.

use std::sync::Arc;

use knn_engine::bigstep::ops::{Arith, BufId, CombineOperand, MatmulOperand, Op};
use knn_semantics::syntax::Span;

use crate::branches::{Branches, Segment, Sign, computed};
use crate::operator::{Divide, Gather, Layer, Lift, Pairwise, Product, Scale, Sparse};
use crate::unsupported::{Unsupported, unsupported};

/// Reads the `k`-th operation of the plan, a `Combine`.
pub fn read_combine(branches: &mut Branches, k: usize, op: &Op) -> Result<(), Unsupported> {
    let Op::Combine { op: arith, a, b, out, len, span } = op else { unreachable!("a Combine") };
    let constants = |o: &CombineOperand| match o {
        CombineOperand::Constants(values) => values.to_vec(),
        _ => unreachable!("a constant operand"),
    };
    match (computed(a), computed(b)) {
        (Some(_), Some(_)) => join(branches, k, *arith, (a, b), (*out, *len), *span),
        (Some(buf), None) => with_constants(branches, k, (buf, a), (*arith, true, constants(b)), (*out, *len), *span),
        (None, Some(buf)) => with_constants(branches, k, (buf, b), (*arith, false, constants(a)), (*out, *len), *span),
        (None, None) => Err(unsupported("an element-wise operation on two constant tensors", Some(*span))),
    }
}

/// The name of the Ext-8 function that computes `arith` element by element.
fn keyword(arith: Arith) -> &'static str {
    match arith {
        Arith::Add => "addTensor",
        Arith::Sub => "subTensor",
        Arith::Mul => "mulTensor",
        _ => "divTensor",
    }
}

/// `x op c` (`computed_first`) or `c op x`, element by element, as per-element layers.
fn with_constants(
    branches: &mut Branches,
    k: usize,
    (buf, operand): (BufId, &CombineOperand),
    (arith, computed_first, c): (Arith, bool, Vec<f64>),
    (out, len): (BufId, usize),
    span: Span,
) -> Result<(), Unsupported> {
    let CombineOperand::Run { at: 0, .. } = operand else {
        return Err(unsupported(
            format!("`{}` of a computed tensor broadcast against a constant one", keyword(arith)),
            Some(span),
        ));
    };
    let all = |f: &dyn Fn(f64) -> f64| c.iter().map(|&v| Some(f(v))).collect::<Vec<_>>();
    let layers = match (arith, computed_first) {
        (Arith::Add, _) => vec![Layer::bias(all(&|v| v))],
        (Arith::Sub, true) => vec![Layer::bias(all(&|v| -v))],
        (Arith::Sub, false) => vec![Layer::scale(Scale::new(vec![Some(-1.0); len])), Layer::bias(all(&|v| v))],
        (Arith::Mul, _) => vec![Layer::scale(Scale::new(all(&|v| v)))],
        (Arith::Div, true) if c.iter().all(|&v| Divide::reads(v)) => vec![Layer::divide(all(&|v| v))],
        (Arith::Div, true) => {
            return Err(unsupported("`divTensor` of a computed tensor by 0, ±∞ or NaN", Some(span)));
        }
        _ => {
            return Err(unsupported(format!("`{}` of a constant by a computed tensor", keyword(arith)), Some(span)));
        }
    };
    branches.read(k, buf, |chain| {
        if chain.len != len {
            return Err(unsupported(
                format!("`{}` of part of a tensor, or of one not on the vector", keyword(arith)),
                Some(span),
            ));
        }
        chain.layers.extend(layers);
        chain.current = out;
        Ok(())
    })
}

/// `a op b` of two tensors on the vector: a sum or difference as a sparse layer over the whole
/// vector, a product or quotient as a [`Pairwise`] one, appended after the segments still read.
fn join(
    branches: &mut Branches,
    k: usize,
    arith: Arith,
    (a, b): (&CombineOperand, &CombineOperand),
    (out, len): (BufId, usize),
    span: Span,
) -> Result<(), Unsupported> {
    settle_all(branches, [a, b].map(|o| computed(o).expect("a computed operand")), || {
        unsupported(format!("`{}` of a tensor not on the vector", keyword(arith)), Some(span))
    })?;
    // Settling one operand may move the other: positions are read once both are settled.
    let mut at = Vec::new();
    for operand in [a, b] {
        let j = branches.find(computed(operand).expect("a computed operand")).expect("settled on the vector");
        let (offset, seg_len) = (branches.offset(j), branches.segments[j].len);
        let elements: Vec<usize> = match operand {
            CombineOperand::Run { at: start, .. } => (*start..start + len).collect(),
            CombineOperand::Gather { from, .. } => from.to_vec(),
            CombineOperand::Constants(_) => unreachable!("a computed operand"),
        };
        if elements.iter().any(|&e| e >= seg_len) {
            return Err(unsupported(format!("`{}` reading past a tensor", keyword(arith)), Some(span)));
        }
        at.push(elements.into_iter().map(|e| offset + e).collect::<Vec<usize>>());
    }
    let width = branches.width();
    let layer = match arith {
        Arith::Add | Arith::Sub => {
            let sign = if arith == Arith::Add { 1.0 } else { -1.0 };
            let rows = (0..len).map(|i| vec![(at[0][i], 1.0), (at[1][i], sign)]).collect();
            Layer::sparse(Sparse::exact_rows(keyword(arith), width, rows))
        }
        _ => Layer::pairwise(Pairwise::new(arith, (0..len).map(|i| (at[0][i], at[1][i])).collect(), width)),
    };
    push_over_all(branches, k, layer, Segment { buf: out, len, sign: Sign::Any });
    Ok(())
}

/// Every segment of `bufs` as its values (a sign pair summed back), or `off_vector` when one is
/// not on the vector.
fn settle_all<const N: usize>(
    branches: &mut Branches,
    bufs: [BufId; N],
    off_vector: impl Fn() -> Unsupported,
) -> Result<(), Unsupported> {
    for buf in bufs {
        let j = branches.find(buf).ok_or_else(&off_vector)?;
        branches.settle(j);
    }
    Ok(())
}

/// `layer` on the whole vector, lifted with the segments read after the `k`-th operation; its
/// output the segment `new`.
fn push_over_all(branches: &mut Branches, k: usize, layer: Layer, new: Segment) {
    let width = branches.width();
    let live = branches.live(k, None);
    let (kept_positions, kept) = branches.kept(&live);
    branches.push(Lift::new(Some(layer), 0..width, kept_positions), kept, new);
}

/// A `MatMul` of two tensors on the vector (Ext-15's `matmul` of two computed tensors): a
/// [`Product`] over the whole vector, lifted, its terms in the engine's order
/// (`MatmulGeometry`: element `e`'s left operand at `bases[e].0 + p`, right at `bases[e].1 +
/// p·right_step`).
pub fn read_matmul_across(branches: &mut Branches, k: usize, op: &Op) -> Result<(), Unsupported> {
    let Op::MatMul { out, a, b, geometry, span } = op else { unreachable!("a MatMul") };
    let (MatmulOperand::Buffer { buf: left, at: left_at }, MatmulOperand::Buffer { buf: right, at: right_at }) = (a, b)
    else {
        unreachable!("two buffer operands")
    };
    settle_all(branches, [*left, *right], || unsupported("`matmul` of a tensor not on the vector", Some(*span)))?;
    // Settling one operand may move the other: positions are read once both are settled.
    let place = |buf: BufId, at: usize, len: usize| {
        let j = branches.find(buf).expect("settled on the vector");
        (at + len <= branches.segments[j].len).then(|| branches.offset(j) + at)
    };
    let (Some(l0), Some(r0)) =
        (place(*left, *left_at, geometry.left_len), place(*right, *right_at, geometry.right_len))
    else {
        return Err(unsupported("`matmul` reading past a tensor", Some(*span)));
    };
    if geometry.inner == 0 {
        return Err(unsupported("`matmul` over an empty axis (every element 0.0: nothing to verify)", Some(*span)));
    }
    let terms = geometry
        .bases
        .iter()
        .flat_map(|&(lb, rb)| (0..geometry.inner).map(move |p| (l0 + lb + p, r0 + rb + p * geometry.right_step)))
        .collect();
    let layer = Layer::product(Product::new(terms, geometry.inner, branches.width()));
    push_over_all(branches, k, layer, Segment { buf: *out, len: geometry.bases.len(), sign: Sign::Any });
    Ok(())
}

/// A `Gather` from two or more tensors on the vector (Ext-11's `concat` of two branches):
/// a [`Gather`] over the whole vector, moving bits (exact), lifted with the segments still
/// read; an element taken twice is refused by name, as the gather of one tensor does.
pub fn read_concat_across(branches: &mut Branches, k: usize, op: &Op) -> Result<(), Unsupported> {
    let Op::Gather { out, from } = op else { unreachable!("a Gather") };
    let mut sources: Vec<BufId> = from.iter().map(|&(buf, _)| buf).collect();
    sources.dedup();
    for &buf in &sources {
        settle_all(branches, [buf], || {
            unsupported("`concat` of a tensor that is not computed from the input with one that is", None)
        })?;
    }
    // Settling one source may move another: positions are read once all are settled.
    let mut positions = Vec::with_capacity(from.len());
    for &(buf, at) in from.iter() {
        let j = branches.find(buf).expect("settled on the vector");
        if at >= branches.segments[j].len {
            return Err(unsupported("`concat` reading past a tensor", None));
        }
        positions.push(branches.offset(j) + at);
    }
    let mut seen = positions.clone();
    seen.sort_unstable();
    if seen.windows(2).any(|w| w[0] == w[1]) {
        return Err(unsupported(
            "`concat` of a computed tensor with itself (an element read twice: no operator bounds it yet)",
            None,
        ));
    }
    let joined = Layer::gather(Gather::new(Arc::from(positions), branches.width()));
    push_over_all(branches, k, joined, Segment { buf: *out, len: from.len(), sign: Sign::Any });
    Ok(())
}
