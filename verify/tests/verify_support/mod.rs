//! Helpers of the verifier's tests: networks as K-NN programs, targets, questions.
#![allow(dead_code, reason = "each test file uses its own subset")]

pub mod answers;

use knn_formats::import::emit::emit;
use knn_formats::import::{Activation, Network as Imported, Step};
use knn_semantics::syntax::{Grammar, parse_program};
use knn_verify::claim::Claim;
use knn_verify::property::{Constant, InputBox};
use knn_verify::split::Split;
use knn_verify::{Conclusion, Options, Question, Target, verify};

/// One layer of a test network: weights (row-major, `rows × cols`), a bias, an activation.
pub struct Dense {
    pub rows: usize,
    pub cols: usize,
    pub weights: Vec<f64>,
    pub bias: Vec<f64>,
    pub activation: Option<Activation>,
}

/// The K-NN program of a chain of dense layers on the input `x`, result `y`.
pub fn program_text(input_len: usize, layers: &[Dense]) -> String {
    let mut steps = Vec::new();
    for layer in layers {
        steps.push(Step::Linear { rows: layer.rows, cols: layer.cols, weights: layer.weights.as_slice().into() });
        steps.push(Step::Add(layer.bias.clone()));
        if let Some(a) = layer.activation {
            steps.push(Step::Activation(a));
        }
    }
    let network = Imported {
        source: "a test".into(),
        format: "test",
        input: "x".into(),
        input_len,
        input_shape: vec![input_len],
        output: "y".into(),
        steps,
        notes: vec![],
    };
    emit(&network)
}

pub fn target(source: &str, input_len: usize) -> Target {
    let program = parse_program(source, Grammar::Relaxed).expect("the test program parses");
    Target::new(program, "x", vec![input_len], vec![]).expect("the test program is a chain of layers")
}

/// The box `[lo_i, hi_i]` with binary64 bounds.
pub fn exact_box(lo: &[f64], hi: &[f64]) -> InputBox {
    InputBox {
        lower: lo.iter().map(|&v| Constant::exact(v)).collect(),
        upper: hi.iter().map(|&v| Constant::exact(v)).collect(),
    }
}

pub fn ask(target: &Target, region: InputBox, claim: Claim) -> Conclusion {
    ask_splitting(target, region, claim, Split::Auto)
}

/// [`ask`] with a choice of what branch and bound splits.
pub fn ask_splitting(target: &Target, region: InputBox, claim: Claim, split: Split) -> Conclusion {
    let question = Question::Class { region, claim };
    let options = Options { timeout: Some(std::time::Duration::from_secs(20)), split, ..Options::default() };
    verify(target, &question, options).expect("the question fits the program")
}

/// A draw below `n`.
pub fn below(rng: &mut knn_verify::falsify::SplitMix, n: u64) -> usize {
    (rng.next_u64() % n) as usize
}

/// `initTensor(dims)[…]` with values drawn uniformly in `[lo, hi]`.
pub fn literal(rng: &mut knn_verify::falsify::SplitMix, dims: &[usize], lo: f64, hi: f64) -> String {
    let n: usize = dims.iter().product();
    let values: Vec<String> = (0..n).map(|_| format!("{:?}", answers::uniform(rng, lo, hi))).collect();
    let dims: Vec<String> = dims.iter().map(usize::to_string).collect();
    format!("initTensor({})[{}]", dims.join(", "), values.join(", "))
}
