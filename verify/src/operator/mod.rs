//! The operators a network is made of, one module each (as auto_LiRPA keeps one file per
//! operator): everything the verifier knows about a layer kind lives in its module — how it is
//! read from the plan, what the engine computes, its interval bounds in the engine's order, its
//! relaxation, its back-substitution step with the rounding it charges, and the falsifier's
//! gradient through it — behind the one trait [`Operator`]. The analyses (interval bounds,
//! back-substitution, tightening, slope optimisation, branch and bound, the falsifier) are
//! written once against the trait and never ask which operator they hold, except that relu
//! splitting is about relus ([`Operator::splits_at_zero`]).
//!
//! A new operator is a new module here with its `impl Operator` and its reading of its plan
//! operation onto a [`Chain`], a constructor on [`Layer`], and the line of
//! [`crate::network::Network::from_plan`] that hands it the operation
//! (docs/changing-the-language.md, "The verifier"). Its soundness argument is a section of
//! docs/verification.md, "Operators".

mod activation;
mod bias;
mod dense;
mod divide;
mod gather;
mod lift;
mod matmul;
mod max_pool;
mod monotone;
#[cfg(test)]
mod monotone_tests;
mod pad;
mod pairwise;
mod partial;
mod per_element;
mod permute;
mod product;
mod ranges;
mod reduce;
mod relu;
mod scale;
mod softmax;
mod sparse;
mod window;
#[cfg(test)]
mod window_tests;

use std::any::Any;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use knn_engine::bigstep::ops::{Activation, BufId};
#[cfg(doc)]
use knn_engine::tensor::LANE_GROUP;
use knn_engine::tensor::Matrix;

use crate::float::Interval;
use crate::judge::RunError;
use crate::relax::{Line, LowerSlope};

pub use activation::{Relaxed, read_activation};
pub use bias::Bias;
pub use dense::Dense;
pub use divide::Divide;
pub use gather::Gather;
pub use lift::Lift;
pub use matmul::read_matmul;
pub use max_pool::MaxPool;
pub use monotone::Monotone;
pub use pad::Pad;
pub use pairwise::Pairwise;
pub use partial::Partial;
pub use permute::Permute;
pub use product::Product;
pub use reduce::read_reduce;
pub use relu::Relu;
pub use scale::Scale;
pub use softmax::{Softmax, read_softmax};
pub use sparse::Sparse;
pub use window::{read_conv2d, read_pool2d};

/// What an operator keeps from [`Operator::prepare`] for its back-substitution steps on one
/// box: its own type, which only it reads back (an activation's is [`Relaxed`]).
pub type Prepared = Box<dyn Any + Send + Sync>;

/// Everything the verifier needs of one kind of layer on one vector.
pub trait Operator: fmt::Debug + Send + Sync {
    /// A short description for tests and messages (`Dense 2x3 [..]`, `Relu`).
    fn describe(&self) -> String;

    /// The length of the vector this layer makes from one of length `len`.
    fn output_len(&self, len: usize) -> usize {
        len
    }

    /// The number of weights (the multiply-adds of one evaluation).
    fn weights(&self) -> usize {
        0
    }

    /// What the engine computes on one vector: the same scalar operations in the same order.
    fn apply(&self, v: &[f64]) -> Vec<f64>;

    /// The error the engine raises on `v` instead of computing the layer, if any (a NaN
    /// reaching a relu: the `max` rules refuse it).
    fn failure(&self, _v: &[f64]) -> Option<RunError> {
        None
    }

    /// An enclosure of the layer's output for every input in `v`, as the engine computes it,
    /// or `None` when the engine may compute a NaN at some point of the box (then nothing is
    /// bounded). Inputs in `v` are never NaN.
    fn interval(&self, v: &[Interval]) -> Option<Vec<Interval>>;

    /// Whether an output is never negative when no input is (a relu, a permutation, a max
    /// pool): a tensor kept beside it across a relu needs no sign split (`crate::branches`).
    fn keeps_non_negative(&self) -> bool {
        false
    }

    /// Whether this is an activation: back-substitution goes through its relaxation lines, and
    /// tightening the bounds of its input pays.
    fn is_activation(&self) -> bool {
        false
    }

    /// Whether the layer is piecewise linear with one kink at 0 (relu): an element whose input
    /// range holds both signs is *unstable*, its lower line may be any `α·z` with `α ∈ [0, 1]`
    /// (α-CROWN), and splitting its input at 0 makes both halves exact (β-CROWN).
    fn splits_at_zero(&self) -> bool {
        false
    }

    /// Whether the layer's interval bounds on an input box are already its exact range up to
    /// rounding (each output an affine function of independent inputs): back-substitution
    /// from it as a first layer cannot do better.
    fn exact_on_box(&self) -> bool {
        false
    }

    /// The lower and upper lines of an activation on `[z.lo, z.hi]`: `lower(x) ≤ f̂(x) ≤
    /// upper(x)` for every binary64 `x` there, `f̂` as the engine computes it, the lines in
    /// exact arithmetic. `None` for layers that are not activations.
    fn relaxation(&self, _z: Interval, _slope: LowerSlope) -> Option<(Line, Line)> {
        None
    }

    /// What back-substitution through this layer needs on one box, from the bounds of its
    /// input: computed once and read by [`Operator::substitute`].
    fn prepare(&self, input: &[Interval]) -> Prepared;

    /// One step of back-substitution: carries every row of `pass` from this layer's output to
    /// its input, and lowers each row's constant by what the step adds and by every rounding it
    /// must charge (docs/verification.md, "Linear bounds in floating point").
    fn substitute(&self, prepared: &Prepared, pass: &mut Pass, lower: LowerChoice<'_>);

    /// [`Operator::substitute`] for the rows of several parts of a box at once (a batch of
    /// subdomains): the first `counts[0]` rows of `pass` belong to a part whose layer is
    /// prepared as `prepared[0]`, the next `counts[1]` to the next, and so on. Each row gets
    /// the bits `substitute` gives it among its part's rows alone. By default one part after
    /// the other; a layer with work the rows share (a dense layer's `G·W`) does it once.
    fn substitute_parts(&self, prepared: &[&Prepared], counts: &[usize], pass: &mut Pass, lower: LowerChoice<'_>) {
        let (width, total) = (pass.width, pass.count);
        let (mut g, mut acc, mut out_width) = (Vec::with_capacity(pass.g.len()), Vec::with_capacity(total), width);
        let mut first = 0;
        for (prepared, &count) in prepared.iter().zip(counts) {
            let rows = first..first + count;
            let mut part = Pass {
                g: pass.g[rows.start * width..rows.end * width].to_vec(),
                width,
                count,
                acc: pass.acc[rows].to_vec(),
            };
            let lower = match lower {
                LowerChoice::PerRow(lines) => {
                    let w = lines.len() / total.max(1);
                    LowerChoice::PerRow(&lines[first * w..(first + count) * w])
                }
                shared => shared,
            };
            self.substitute(prepared, &mut part, lower);
            out_width = part.width;
            g.extend(part.g);
            acc.extend(part.acc);
            first += count;
        }
        *pass = Pass { g, width: out_width, count: total, acc };
    }

    /// The falsifier's gradient: `g` over this layer's output carried to its input, at the point
    /// where the layer's input was `input` and its output `output`.
    fn backpropagate(&self, g: Vec<f64>, input: &[f64], output: &[f64]) -> Vec<f64>;

    /// [`Operator::apply`] on `lanes` vectors at once, feature-major (element `i` of vector `l`
    /// at `v[i * lanes + l]`, `lanes` a multiple of [`LANE_GROUP`]): the same bits as `apply`
    /// on each vector (the engine's batched kernels in exact mode), for the falsifier's attack.
    fn apply_lanes(&self, v: &[f64], lanes: usize) -> Vec<f64>;

    /// [`Operator::backpropagate`] on `lanes` gradients at once, laid out as in
    /// [`Operator::apply_lanes`]. It only steers the attack: sums in any order, fused or not.
    fn backpropagate_lanes(&self, g: Vec<f64>, input: &[f64], output: &[f64], lanes: usize) -> Vec<f64>;

    /// The layer's output at the point where a linear bound's minimum is, for the slope
    /// optimiser: exact (in any order: it only steers) for affine layers; through the
    /// relaxation `lines` chose for an activation.
    fn relaxed_forward(&self, d: Vec<f64>, lines: &ChosenLines<'_>) -> Vec<f64>;

    /// [`Operator::relaxed_forward`] of `rows` points at once (row-major), each with its own
    /// coefficients and, for an activation, its own lower lines (`lines`: row-major too; the
    /// upper lines shared, or row-major as well for rows of different parts of a box).
    fn relaxed_forward_rows(&self, d: Vec<f64>, rows: usize, lines: &ChosenLines<'_>) -> Vec<f64> {
        let (input, output) = (d.len() / rows.max(1), lines.coefficients.len() / rows.max(1));
        let upper = |r: usize| {
            let all = lines.upper;
            if all.len() == rows * output && rows > 1 { &all[r * output..(r + 1) * output] } else { all }
        };
        (0..rows)
            .flat_map(|r| {
                let lower = if lines.lower.is_empty() { &[][..] } else { &lines.lower[r * output..(r + 1) * output] };
                let chosen = ChosenLines {
                    coefficients: &lines.coefficients[r * output..(r + 1) * output],
                    lower,
                    upper: upper(r),
                };
                self.relaxed_forward(d[r * input..(r + 1) * input].to_vec(), &chosen)
            })
            .collect()
    }
}

/// The rows being carried back by back-substitution: `count` rows of coefficients over the
/// current layer's output (row-major, `width` each), and each row's constant so far.
pub struct Pass {
    pub g: Vec<f64>,
    pub width: usize,
    pub count: usize,
    pub acc: Vec<f64>,
}

/// Which lower lines an activation's step uses.
#[derive(Clone, Copy)]
pub enum LowerChoice<'a> {
    /// The ones prepared for a choice of relu slope.
    Prepared(LowerSlope),
    /// Lines given for this layer, each below the activation on its input's range.
    Given(&'a [Line]),
    /// Lines given for each row of the pass (row-major, the layer's width a row), each below
    /// the activation on its input's range.
    PerRow(&'a [Line]),
}

/// The relaxation a linear bound chose at an activation, for [`Operator::relaxed_forward`]:
/// the lower line where the coefficient met there (`coefficients[i]`) is ≥ 0, else the upper.
pub struct ChosenLines<'a> {
    pub coefficients: &'a [f64],
    pub lower: &'a [Line],
    pub upper: &'a [Line],
}

/// The chain being read from a plan, operation by operation: its layers so far, and the
/// buffer and the length of the vector the last of them computes (at first, the input's).
pub struct Chain {
    pub layers: Vec<Layer>,
    pub current: BufId,
    pub len: usize,
}

/// One layer of a network: an operator, shared (networks are cloned per case and per thread).
#[derive(Clone, Debug)]
pub struct Layer(Arc<dyn Operator>);

impl Layer {
    /// `out[i] = (((0.0 + w[i][0]·x[0]) + w[i][1]·x[1]) + …)`, then `+ bias[i]` where given.
    pub fn dense(w: Arc<Matrix>, bias: Vec<Option<f64>>) -> Layer {
        Layer(Arc::new(Dense::new(w, bias)))
    }

    /// `out[i] = x[i] + bias[i]` where given.
    pub fn bias(bias: Vec<Option<f64>>) -> Layer {
        Layer(Arc::new(Bias::new(bias)))
    }

    /// A sparse affine layer (a convolution, a pool's window sums).
    pub fn sparse(layer: Sparse) -> Layer {
        Layer(Arc::new(layer))
    }

    /// `out[i] = x[i] / d` where `divisor[i]` is `Some(d)` (finite, not 0).
    pub fn divide(divisor: Vec<Option<f64>>) -> Layer {
        Layer(Arc::new(Divide::new(divisor)))
    }

    /// A monotone activation on part of the vector (a branch's).
    pub fn partial(layer: Partial) -> Layer {
        Layer(Arc::new(layer))
    }

    /// `maxPool2d`.
    pub fn max_pool(layer: MaxPool) -> Layer {
        Layer(Arc::new(layer))
    }

    /// `out[i] = x[i] * factor[i]` where given.
    pub fn scale(layer: Scale) -> Layer {
        Layer(Arc::new(layer))
    }

    /// A layer on part of the vector, the rest kept (tensors that branch).
    pub fn lift(layer: Lift) -> Layer {
        Layer(Arc::new(layer))
    }

    /// `transpose`: the elements permuted.
    pub fn permute(layer: Permute) -> Layer {
        Layer(Arc::new(layer))
    }

    /// `slice`, `concat` of the vector alone: elements selected, each at most once.
    pub fn gather(layer: Gather) -> Layer {
        Layer(Arc::new(layer))
    }

    /// `pad`: the elements copied between constants.
    pub fn pad(layer: Pad) -> Layer {
        Layer(Arc::new(layer))
    }

    /// `mulTensor`, `divTensor` of two computed tensors: bounded by ranges.
    pub fn pairwise(layer: Pairwise) -> Layer {
        Layer(Arc::new(layer))
    }

    /// `matmul` of two computed tensors: bounded by ranges.
    pub fn product(layer: Product) -> Layer {
        Layer(Arc::new(layer))
    }

    /// `softmax`, `logSoftmax` not right before `ArgMax`: bounded by ranges.
    pub fn softmax(layer: Softmax) -> Layer {
        Layer(Arc::new(layer))
    }

    /// `reluTensor`.
    pub fn relu() -> Layer {
        Layer(Arc::new(Relu))
    }

    /// `tanhTensor`.
    pub fn tanh() -> Layer {
        Layer(Arc::new(Monotone::Tanh))
    }

    /// `sigmoidTensor`.
    pub fn sigmoid() -> Layer {
        Layer(Arc::new(Monotone::Sigmoid))
    }

    /// The layer of one of the plan's activations.
    pub fn activation(activation: Activation) -> Layer {
        match activation {
            Activation::Relu => Layer::relu(),
            Activation::Tanh => Layer::tanh(),
            Activation::Sigmoid => Layer::sigmoid(),
            Activation::Exp => Layer(Arc::new(Monotone::Exp)),
            Activation::Log => Layer(Arc::new(Monotone::Log)),
        }
    }
}

impl Deref for Layer {
    type Target = dyn Operator;

    fn deref(&self) -> &(dyn Operator + 'static) {
        &*self.0
    }
}
