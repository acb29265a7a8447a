//! The plan's window operations on one row: `conv2d` with a constant kernel (Ext-3) and the
//! pools (Ext-4), element by element in the rules' order. The plan's `Conv2d` and `Pool2d`
//! run these on every lane, and the verifier reads the same taps, so there is one definition of
//! what the fused operations compute.

use std::sync::Arc;

use knn_semantics::numeric::{float_words, k_max};
use knn_semantics::syntax::Pool;
use knn_semantics::window::{Conv2dGeometry, Pool2dGeometry};

/// The pools on a group of rows (elements × lanes), as the plan runs them.
pub use super::window_lanes::pool_lanes;

/// `conv2d(X, W, B, …)` with `W` (and `B`) constant: the geometry, the kernel `O×Cg×KH×KW`
/// row-major, and the bias.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvKernel {
    pub geometry: Conv2dGeometry,
    pub weights: Arc<[f64]>,
    pub bias: Option<Arc<[f64]>>,
}

/// One tap of an output element: the element of `X` (row-major over `C×H×W`) it reads, `None`
/// for a padding position (read as the Float `0.0`), and the weight it is multiplied by.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tap {
    pub input: Option<usize>,
    pub weight: f64,
}

impl ConvKernel {
    /// The number of elements of `X` and of the output.
    pub fn input_len(&self) -> usize {
        self.geometry.input.iter().product::<i64>() as usize
    }

    pub fn output_len(&self) -> usize {
        self.geometry.output.iter().product::<i64>() as usize
    }

    /// The taps of output element `k` (row-major over `O×OH×OW`) in the order
    /// `ext-conv2d-helper-step` sums them: the channels of the group, the kernel rows, the
    /// kernel columns.
    pub fn taps(&self, k: usize) -> impl Iterator<Item = Tap> + '_ {
        let g = &self.geometry;
        let [_, oh, ow] = g.output;
        let [_, h, wd] = g.input;
        let [_, cg, kh, kw] = g.kernel;
        let k = k as i64;
        let (o, i, j) = (k / (oh * ow), (k / ow) % oh, k % ow);
        (0..cg).flat_map(move |c| {
            let channel = g.input_channel(o, c);
            (0..kh).flat_map(move |ki| {
                (0..kw).map(move |kj| {
                    let weight = self.weights[(((o * cg + c) * kh + ki) * kw + kj) as usize];
                    let input = g.input_position(i, j, ki, kj).map(|(r, s)| ((channel * h + r) * wd + s) as usize);
                    Tap { input, weight }
                })
            })
        })
    }

    /// The bias added to output element `k` last, if any.
    pub fn bias_of(&self, k: usize) -> Option<f64> {
        let [_, oh, ow] = self.geometry.output;
        self.bias.as_ref().map(|b| b[k / (oh * ow) as usize])
    }

    /// The output for the image `x`: each element from `0.0`, `+ x·w` tap by tap (`X`'s
    /// element first: `seqstrict`), a padding tap's `x` being `0.0` (so `0·∞` is NaN), then
    /// `+ b`.
    pub fn apply(&self, x: &[f64], out: &mut [f64]) {
        for (k, y) in out.iter_mut().enumerate() {
            let mut sum = 0.0;
            for tap in self.taps(k) {
                let xe = tap.input.map_or(0.0, |at| x[at]);
                sum += xe * tap.weight;
            }
            *y = self.bias_of(k).map_or(sum, |b| sum + b);
        }
    }
}

/// `max` met a NaN while pooling: the two operands, as `rev-arith-invalid` reports them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MaxOfNaN {
    pub acc: f64,
    pub element: f64,
}

impl MaxOfNaN {
    /// The error's detail, worded as the scalar `max`'s (`exec.rs`).
    pub fn detail(&self) -> String {
        format!("`max` cannot compute with {} and {}", float_words(self.acc), float_words(self.element))
    }
}

/// The input elements (row-major over `C×H×W`) of output element `k`'s window, in the
/// row-major window order of the pools' helpers, padding taps left out.
pub fn pool_taps(g: &Pool2dGeometry, k: usize) -> impl Iterator<Item = usize> + '_ {
    let [_, oh, ow] = g.output;
    let [_, h, wd] = g.input;
    let k = k as i64;
    let (o, i, j) = (k / (oh * ow), (k / ow) % oh, k % ow);
    g.taps(i, j).flatten().map(move |(r, s)| ((o * h + r) * wd + s) as usize)
}

/// What `avgPool2d` divides output element `k`'s sum by (`poolMean`).
pub fn pool_count(g: &Pool2dGeometry, k: usize) -> f64 {
    let [_, oh, ow] = g.output;
    let k = k as i64;
    g.count((k / ow) % oh, k % ow) as f64
}

/// The pool of the image `x`: for each output element, `max(acc, x)` from `-Infinity` over its
/// taps (`ext-max-pool2d-helper-step`; ties keep the earlier, a NaN is the error), or `acc + x`
/// from `0.0` then `/Float` the count (`ext-avg-pool2d-helper-step`, `ext-pool-mean`).
pub fn pool_apply(pool: Pool, g: &Pool2dGeometry, x: &[f64], out: &mut [f64]) -> Result<(), MaxOfNaN> {
    for (k, y) in out.iter_mut().enumerate() {
        *y = match pool {
            Pool::Max => {
                let mut acc = f64::NEG_INFINITY;
                for at in pool_taps(g, k) {
                    acc = k_max(acc, x[at]).ok_or(MaxOfNaN { acc, element: x[at] })?;
                }
                acc
            }
            Pool::Avg => pool_taps(g, k).fold(0.0, |acc, at| acc + x[at]) / pool_count(g, k),
        };
    }
    Ok(())
}
