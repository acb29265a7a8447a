//! The plan's `MatMul` (Ext-15): the product of two tensors, at least one held in a buffer,
//! computed as `ext-matmul-helper-step` prescribes. A buffer by a constant of rank 2 or more
//! (`x·W`), and such a constant by a buffer that is a vector or columns (`W·x`), run on the
//! tensor core's `MatVec` kernels, which keep this order (`matmul_rows.rs`); otherwise (two
//! buffers, a constant vector on the left, a constant by a buffer of several columns) no kernel
//! does (`MatVec`'s read a constant matrix by a run of a buffer), and this is a plain loop in the
//! reference's order: for each element of the result in row-major order, `0.0`, then
//! `acc + left * right` for each product in increasing `P`, the lanes of a group side by side;
//! no fused multiply-add.

use std::sync::Arc;

use knn_semantics::matmul::{inner_extent, left_index, right_index};

pub use super::matmul_rows::MatmulRows;

/// An operand of `MatMul`: a run of a buffer (one value per lane), or a constant tensor (Ints
/// widened, as the mixed rules widen them), row-major. (`buf` is an `ops::BufId`, spelt `u32`:
/// `ops.rs` re-exports this module's types, which may not import it back.)
#[derive(Clone, Debug, PartialEq)]
pub enum MatmulOperand {
    Buffer { buf: u32, at: usize },
    Const(Arc<[f64]>),
}

impl MatmulOperand {
    /// The buffer it reads, if any.
    pub fn buffer(&self) -> Option<u32> {
        match self {
            MatmulOperand::Buffer { buf, .. } => Some(*buf),
            MatmulOperand::Const(_) => None,
        }
    }

    /// How its values are laid out: element `k` of lane `l` is `values[k * step + l * lane]`.
    pub(super) fn view<'a>(&self, values: &'a [f64], lanes: usize) -> View<'a> {
        match self {
            MatmulOperand::Buffer { .. } => View { values, step: lanes, lane: 1 },
            MatmulOperand::Const(_) => View { values, step: 1, lane: 0 },
        }
    }
}

/// An operand's values and their layout (see [`MatmulOperand::view`]).
pub(super) struct View<'a> {
    values: &'a [f64],
    step: usize,
    lane: usize,
}

/// Where the products of each element of the result are: its left operand's elements are
/// `bases[e].0 + p` (the left operand's last axis), its right operand's `bases[e].1 + p *
/// right_step` (the right operand's second-to-last axis, or its only one), for `p < inner`,
/// positions row-major in each operand (`leftIndex`, `rightIndex` of the rules).
#[derive(Clone, Debug, PartialEq)]
pub struct MatmulGeometry {
    pub inner: usize,
    pub right_step: usize,
    pub left_len: usize,
    pub right_len: usize,
    /// One per element of the result, in row-major order.
    pub bases: Vec<(usize, usize)>,
    /// A buffer by a constant of rank 2 or more (`x·W`), or such a constant by a vector or
    /// columns (`W·x`): the result's rows as the tensor core's products, which keep this order
    /// ([`MatmulRows`]).
    pub by_rows: Option<MatmulRows>,
}

impl MatmulGeometry {
    /// The geometry of `matmul` of shapes `is` and `js` whose result has shape `os`.
    pub fn new(is: &[i64], js: &[i64], os: &[i64]) -> MatmulGeometry {
        let flat = |index: &[i64], dims: &[i64]| {
            index.iter().zip(dims).fold(0usize, |k, (&i, &d)| k * d as usize + i as usize)
        };
        let count = os.iter().product::<i64>() as usize;
        let mut o = vec![0i64; os.len()];
        let mut bases = Vec::with_capacity(count);
        for _ in 0..count {
            bases.push((flat(&left_index(&o, 0, is, js), is), flat(&right_index(&o, 0, is, js), js)));
            // The next index in row-major order, last axis fastest.
            for (slot, &d) in o.iter_mut().zip(os).rev() {
                *slot += 1;
                if *slot < d {
                    break;
                }
                *slot = 0;
            }
        }
        let right_step = if js.len() >= 2 { js[js.len() - 1] as usize } else { 1 };
        MatmulGeometry {
            inner: inner_extent(is) as usize,
            right_step,
            left_len: is.iter().product::<i64>() as usize,
            right_len: js.iter().product::<i64>() as usize,
            bases,
            by_rows: None,
        }
    }

    /// The one operand held in a buffer beside a constant: its buffer, first slot and length.
    pub(super) fn buffer_run(&self, a: &MatmulOperand, b: &MatmulOperand) -> Option<(u32, usize, usize)> {
        match (a, b) {
            (MatmulOperand::Buffer { buf, at }, MatmulOperand::Const(_)) => Some((*buf, *at, self.left_len)),
            (MatmulOperand::Const(_), MatmulOperand::Buffer { buf, at }) => Some((*buf, *at, self.right_len)),
            _ => None,
        }
    }
}

/// `MatMul` over `lanes` rows: `out` holds the result's elements × lanes.
pub(super) fn matmul_apply(
    geometry: &MatmulGeometry,
    (left, right): (View<'_>, View<'_>),
    out: &mut [f64],
    lanes: usize,
) {
    for (e, &(left_base, right_base)) in geometry.bases.iter().enumerate() {
        let acc = &mut out[e * lanes..(e + 1) * lanes];
        // `defineTensor`'s 0.0, then `X[O] = X[O] + (Y[…] * Z[…])` for each product.
        acc.fill(0.0);
        for p in 0..geometry.inner {
            let (l, r) = (left_base + p, right_base + p * geometry.right_step);
            for (lane, x) in acc.iter_mut().enumerate() {
                let product =
                    left.values[l * left.step + lane * left.lane] * right.values[r * right.step + lane * right.lane];
                *x += product;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_geometry_finds_each_elements_first_products() {
        // (2, 3) by (3, 2): element (1, 0) starts at a[1, 0] = 3 and b[0, 0] = 0, b's step 2.
        let g = MatmulGeometry::new(&[2, 3], &[3, 2], &[2, 2]);
        assert_eq!(g.bases, [(0, 0), (0, 1), (3, 0), (3, 1)]);
        assert_eq!((g.inner, g.right_step, g.left_len, g.right_len), (3, 2, 6, 6));
        // A batch (2, 1, 2) by a column (2): element (1, 0) starts at a[1, 0, 0] = 2, b[0].
        let g = MatmulGeometry::new(&[2, 1, 2], &[2], &[2, 1]);
        assert_eq!(g.bases, [(0, 0), (2, 0)]);
        assert_eq!(g.right_step, 1);
    }

    #[test]
    fn products_are_summed_from_zero_in_increasing_order() {
        // [1, 1e16, -1e16]·[1, 1, 1]: ((0 + 1) + 1e16) - 1e16 = 0 in both lanes; the second
        // lane's left operand is [2, 3, 4]: 0 + 2 + 3 + 4 = 9.
        let g = MatmulGeometry::new(&[3], &[3], &[1]);
        let left = [1.0, 2.0, 1e16, 3.0, -1e16, 4.0];
        let right = [1.0, 1.0, 1.0];
        let (a, b) = (MatmulOperand::Buffer { buf: 0, at: 0 }, MatmulOperand::Const(Arc::from(&right[..])));
        let mut out = [f64::NAN; 2];
        matmul_apply(&g, (a.view(&left, 2), b.view(&right, 2)), &mut out, 2);
        assert_eq!(out, [0.0, 9.0]);
    }
}
