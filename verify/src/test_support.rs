//! Networks and properties written out for the verifier's unit tests (`falsify_tests.rs`,
//! `bab/tests.rs`, `split.rs`, `clip.rs`, `tighten.rs`, `refine_tests.rs`).

use knn_semantics::syntax::{Grammar, parse_program};

use std::sync::Arc;

use knn_engine::tensor::Matrix;

use super::Target;
use super::deadline::Deadline;
use super::falsify::SplitMix;
use super::float::Interval;
use super::interval::{Bounds, network_bounds};
use super::operator::Layer;
use super::prepare::PreparedLayers;
use super::property::Property;
use super::tighten::{Slopes, tighten};
use super::vnnlib::parse_vnnlib;

/// `program` compiled with `x` (of `inputs` elements) symbolic, and the property `vnnlib`.
pub fn target_and_property(program: &str, inputs: usize, vnnlib: &str) -> (Target, Property) {
    let program = parse_program(program, Grammar::Relaxed).expect("the test program parses");
    let target = Target::new(program, "x", vec![inputs], Vec::new()).expect("a chain of layers");
    (target, parse_vnnlib(vnnlib).expect("the test property parses"))
}

/// `y = x` on two inputs.
pub const IDENTITY: &str = "let W = initTensor(2, 2) in let W[0, 0] = 1.0 in let W[1, 1] = 1.0 in \
                            let y = linear(W, x) in y";

/// `IDENTITY` with an ArgMax after it.
pub const IDENTITY_ARGMAX: &str = "let W = initTensor(2, 2) in let W[0, 0] = 1.0 in let W[1, 1] = 1.0 in \
                                   let y = linear(W, x) in ArgMax(y)";

/// A VNN-LIB property over two inputs and two outputs: the box `lo ≤ X ≤ hi` (bounds as
/// written) and the unsafe outputs `unsafe_when` (asserts over `Y_0`, `Y_1`).
pub fn property_2d(lo: [&str; 2], hi: [&str; 2], unsafe_when: &str) -> String {
    format!(
        "(declare-const X_0 Real) (declare-const X_1 Real) (declare-const Y_0 Real) (declare-const Y_1 Real)
         (assert (>= X_0 {})) (assert (<= X_0 {})) (assert (>= X_1 {})) (assert (<= X_1 {}))
         {unsafe_when}",
        lo[0], hi[0], lo[1], hi[1]
    )
}

/// The box with these sides.
pub fn boxed(sides: &[(f64, f64)]) -> Vec<Interval> {
    sides.iter().map(|&(lo, hi)| Interval::new(lo, hi)).collect()
}

/// `depth` dense layers of `width` with weights and biases uniform in `[−1, 1]`, each followed
/// by a relu, then a dense layer of two outputs without bias.
pub fn random_network(rng: &mut SplitMix, inputs: usize, width: usize, depth: usize) -> Vec<Layer> {
    let mut random = |n: usize| (0..n).map(|_| rng.unit() * 2.0 - 1.0).collect::<Vec<f64>>();
    let mut layers = Vec::new();
    let mut cols = inputs;
    for _ in 0..depth {
        let w = Arc::new(Matrix::new(width, cols, random(width * cols)));
        layers.push(Layer::dense(w, random(width).into_iter().map(Some).collect()));
        layers.push(Layer::relu());
        cols = width;
    }
    layers.push(Layer::dense(Arc::new(Matrix::new(2, cols, random(2 * cols))), vec![None, None]));
    layers
}

/// The bounds of `layers` on the box `input`, tightened with fixed slopes (as a search starts
/// from).
pub fn fixed_bounds(layers: &[Layer], input: Vec<Interval>) -> Bounds {
    let mut bounds = Bounds { layers: network_bounds(layers, &input).unwrap(), input };
    tighten(layers, &mut bounds, &mut PreparedLayers::new(layers.len()), Slopes::Fixed, Deadline::NEVER).unwrap();
    bounds
}

/// A random network (3 inputs, `width` wide, `depth` layers deep) and its [`fixed_bounds`] on
/// the box `[−1, 1] × [−0.5, 0.5] × [0, 1]`.
pub fn fixed_on_a_box(rng: &mut SplitMix, width: usize, depth: usize) -> (Vec<Layer>, Bounds) {
    let layers = random_network(rng, 3, width, depth);
    let bounds = fixed_bounds(&layers, boxed(&[(-1.0, 1.0), (-0.5, 0.5), (0.0, 1.0)]));
    (layers, bounds)
}
