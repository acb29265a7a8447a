//! What the tests of the ONNX fixtures made by a `make_fixtures.py` share (`import_conv.rs`,
//! `import_pool.rs`): the files of a folder under `tests/data/`, and one model run on every
//! engine against the script's expected output.
#![allow(dead_code, reason = "each test file uses its own subset")]

use std::path::PathBuf;

use knn_engine::bigstep::{BigStep, Staging};
use knn_engine::tensor::Precision;
use knn_formats::import::emit::{emit, skeleton};
use knn_formats::import::{ImportOptions, Network, import_file};
use knn_formats::npy::read_npy;
use knn_semantics::Profile;
use knn_semantics::engine::{Engine, Observed, SmallStep, Verdict};
use knn_semantics::inputs::TensorInput;
use knn_semantics::syntax::{parse_program, parse_program_with_elements};

/// `tests/data/<folder>/<name>`, which must exist.
pub fn fixture(folder: &str, name: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(folder).join(name);
    assert!(path.is_file(), "missing fixture {} (made by make_fixtures.py beside it)", path.display());
    path
}

pub fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// One model's run: the imported network, its output's shape and elements, and the expected
/// elements.
pub struct Ran {
    pub network: Network,
    pub shape: Vec<usize>,
    pub result: Vec<f64>,
    pub expected: Vec<f64>,
}

/// Model `name` of `folder` on its input (its `(C, H, W)` bound as it is): the small-step
/// engine's output, checked to agree with the big-step one evaluating directly and staged (the
/// input symbolic), on the program parsed from its text and on the one built in memory (the
/// weights not written as text); and the script's expected array.
pub fn run(folder: &str, name: &str) -> Ran {
    let network = import_file(&fixture(folder, &format!("{name}.onnx")), None, &ImportOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let x = read_npy(&fixture(folder, &format!("{name}.input.npy"))).unwrap();
    let expected = read_npy(&fixture(folder, &format!("{name}.expected.npy"))).unwrap();
    assert_eq!(network.input_shape, x.shape, "{name}: the input is (C, H, W)");
    assert_eq!(network.output_shape(), expected.shape, "{name}");
    let text = emit(&network);
    let program = parse_program(&text, Profile::revised().grammar).unwrap_or_else(|e| panic!("{text}\n{e}"));
    let (skeleton_text, elements) = skeleton(network.clone());
    let built = parse_program_with_elements(&skeleton_text, Profile::revised().grammar, elements)
        .unwrap_or_else(|e| panic!("{skeleton_text}\n{e}"));
    let input = TensorInput { name: network.input.clone(), shape: x.shape.clone(), data: x.data.clone() };
    let inputs = std::slice::from_ref(&input);
    let small = SmallStep::revised().evaluate(&program, inputs).unwrap();
    for staging in [Staging::Direct, Staging::Staged] {
        let engine = BigStep { staging, precision: Precision::Exact };
        for program in [&program, &built] {
            let big = engine.evaluate(program, inputs).unwrap();
            assert!(big.agrees_with(&small), "{name}: {staging:?}\n{text}");
        }
    }
    let Verdict::Value(Observed::Tensor(result)) = small else { panic!("{name}: {small}\n{text}") };
    assert_eq!(result.shape, expected.shape, "{name}");
    Ran { network, shape: result.shape, result: result.data, expected: expected.data }
}
