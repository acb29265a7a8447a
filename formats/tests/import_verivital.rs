//! VNN-COMP 2021's `verivital` benchmark (data/verivital/): the two MNIST convolutional
//! networks (Conv → Relu → a 4×4 pool, max or average after a zero `Pad` → Flatten → Gemm)
//! import; both engines agree bit for bit on the centres of their instances' input boxes; and
//! the class knn computes on every instance's centre is onnxruntime's, as
//! `tests/data/verivital/onnxruntime_classes.py` recorded it (its CSV beside it).

use std::collections::HashMap;
use std::path::PathBuf;

use knn_engine::bigstep::{BigStep, Staging};
use knn_engine::tensor::Precision;
use knn_formats::import::emit::emit;
use knn_formats::import::{ImportOptions, import_file};
use knn_semantics::Profile;
use knn_semantics::engine::{Engine, Observed, SmallStep, Verdict};
use knn_semantics::inputs::TensorInput;
use knn_semantics::syntax::{Exp, parse_program};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/verivital").join(name)
}

/// The centre `(lo + hi) / 2` of a VNN-LIB file's input box (its `(assert (<= X_i v))` and
/// `(assert (>= X_i v))` lines), rounded to float32 as the network's input is (onnxruntime
/// read the same values).
fn centre(property: &str) -> Vec<f64> {
    let text = std::fs::read_to_string(data(property)).unwrap();
    let (mut lo, mut hi) = (HashMap::new(), HashMap::new());
    for line in text.lines() {
        let Some(rest) = line.trim().strip_prefix("(assert (") else { continue };
        let words: Vec<&str> = rest.trim_end_matches(')').split_whitespace().collect();
        if let [op @ ("<=" | ">="), x, v] = words[..]
            && let Some(i) = x.strip_prefix("X_")
        {
            let side = if op == "<=" { &mut hi } else { &mut lo };
            side.insert(i.parse::<usize>().unwrap(), v.parse::<f64>().unwrap());
        }
    }
    assert_eq!((lo.len(), hi.len()), (784, 784), "{property}");
    (0..784).map(|i| f64::from(((lo[&i] + hi[&i]) / 2.0) as f32)).collect()
}

/// One line of onnxruntime_classes.csv.
struct Expected {
    network: String,
    property: String,
    label: usize,
    class: usize,
    scores: Vec<f64>,
}

fn expected() -> Vec<Expected> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/verivital/onnxruntime_classes.csv");
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            Expected {
                network: f[0].into(),
                property: f[1].into(),
                label: f[2].parse().unwrap(),
                class: f[3].parse().unwrap(),
                scores: f[4..].iter().map(|s| s.parse().unwrap()).collect(),
            }
        })
        .collect()
}

fn program(network: &str) -> (Exp, String) {
    let network = import_file(&data(network), None, &ImportOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(network.input_shape, vec![1, 28, 28]);
    assert_eq!(network.layer_shapes(), vec![vec![1, 28, 28], vec![32, 27, 27], vec![32, 6, 6], vec![1152], vec![10]]);
    let text = emit(&network);
    (parse_program(&text, Profile::revised().grammar).unwrap(), text)
}

fn input(x: &[f64]) -> TensorInput {
    TensorInput { name: "input".into(), shape: vec![1, 28, 28], data: x.to_vec() }
}

fn scores(verdict: &Verdict) -> Vec<f64> {
    match verdict {
        Verdict::Value(Observed::Tensor(t)) => t.data.clone(),
        other => panic!("{other}"),
    }
}

#[test]
fn both_networks_import_as_conv_relu_pool_flatten_linear() {
    let (_, text) = program("Convnet_maxpool.onnx");
    assert!(text.contains("let h1 = maxPool2d(h0, kernel = [4, 4], strides = [4, 4]) in\nlet h2 = flatten(h1) in"));
    let (_, text) = program("Convnet_avgpool.onnx");
    // The network's Pad has pads of 0 only: nothing is written for it.
    assert!(text.contains("let h1 = avgPool2d(h0, kernel = [4, 4], strides = [4, 4]) in\nlet h2 = flatten(h1) in"));
    assert!(text.contains("let output = linear(W1, h2) in"), "{text}");
}

#[test]
fn the_engines_agree_and_the_classes_are_onnxruntimes_on_every_instance_centre() {
    let expected = expected();
    assert_eq!(expected.len(), 60, "the 60 instances of verivital_instances.csv");
    let programs: HashMap<&str, Exp> =
        ["Convnet_avgpool.onnx", "Convnet_maxpool.onnx"].map(|n| (n, program(n).0)).into_iter().collect();
    let direct = BigStep { staging: Staging::Direct, precision: Precision::Exact };
    let staged = BigStep { staging: Staging::Staged, precision: Precision::Exact };
    let mut referenced = Vec::new();
    for (k, e) in expected.iter().enumerate() {
        let program = &programs[e.network.as_str()];
        let x = [input(&centre(&e.property))];
        let big = direct.evaluate(program, &x).unwrap();
        // The small-step reference takes about a second a point in release (more in debug):
        // on the first instance of each network, and the staged big-step engine on every fifth.
        if !referenced.contains(&e.network) {
            referenced.push(e.network.clone());
            let small = SmallStep::revised().evaluate(program, &x).unwrap();
            assert!(big.agrees_with(&small), "{}: the big-step and small-step engines", e.property);
            let bits = |v: Vec<f64>| v.iter().map(|s| s.to_bits()).collect::<Vec<u64>>();
            assert_eq!(bits(scores(&big)), bits(scores(&small)), "{}", e.property);
        }
        if k % 5 == 0 {
            assert!(staged.evaluate(program, &x).unwrap().agrees_with(&big), "{}: staged", e.property);
        }
        let y = scores(&big);
        let class = (0..y.len()).max_by(|&a, &b| y[a].total_cmp(&y[b]).then(b.cmp(&a))).unwrap();
        assert_eq!(class, e.class, "{} {}: knn's class, onnxruntime's", e.network, e.property);
        assert_eq!(class, e.label, "{}: the property's label", e.property);
        // knn computes the float32 network in binary64, onnxruntime in float32: close, not equal.
        for (i, (a, b)) in y.iter().zip(&e.scores).enumerate() {
            assert!((a - b).abs() <= 1e-4 * (1.0 + a.abs()), "{} score {i}: knn {a}, onnxruntime {b}", e.property);
        }
    }
    assert_eq!(referenced.len(), 2);
}
