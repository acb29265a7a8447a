//! Programs of real size through every door of the library, each on a thread with the stack the
//! platform gives a thread nobody sized (2 MiB, as rayon's and Python's threads): a program of
//! 10^6 nested `let`s, and a network of 10^7 parameters imported from ONNX (its text written, its
//! program built in memory) and run, batched and verified. Nothing may recurse on
//! the depth of a program (a stack overflow aborts the process, failing the test run).

use std::fmt::Write;
use std::time::Duration;

use knn::{
    Answer, Claim, Conclusion, EngineKind, InputBox, Question, RunOptions, Semantics, Unknown, VerifyOptions, load,
    load_source,
};
use knn_formats::import::emit::{Style, emit_to};
use knn_formats::import::{Activation, ImportOptions, Step, import_file};
use knn_semantics::engine::Observed;
use knn_semantics::inputs::TensorInput;

const DEPTH: usize = 1_000_000;

fn on_a_default_thread_stack<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new().stack_size(2 << 20).spawn(work).unwrap().join().unwrap()
}

fn vector(name: &str, data: &[f64]) -> TensorInput {
    TensorInput { name: name.into(), shape: vec![data.len()], data: data.to_vec() }
}

fn big_step() -> RunOptions {
    RunOptions { engine: Some(EngineKind::BigStep), ..RunOptions::default() }
}

fn tensor_of(answer: &Answer) -> Vec<f64> {
    match answer {
        Answer::Value { value: Observed::Tensor(t), .. } => t.data.clone(),
        other => panic!("expected a tensor, got {other:?}"),
    }
}

#[test]
fn a_million_nested_lets_check_run_batch_and_verify() {
    on_a_default_thread_stack(|| {
        // s_k = x[0] + k/2, in a chain of 10^6 lets; the result [s_last, x[0]].
        let mut source = String::from("let s0 = x[0] in ");
        for k in 1..DEPTH {
            write!(source, "let s{k} = s{} + 0.5 in ", k - 1).unwrap();
        }
        write!(source, "let y = initTensor(2) in let y[0] = s{} in let y[1] = x[0] in y", DEPTH - 1).unwrap();
        let program = load_source("deep.knn", &source, Semantics::Revised).unwrap();
        program.check(&["x"]).unwrap();
        let expected = 1.0 + 0.5 * (DEPTH - 1) as f64;
        let report = program.run(&[vector("x", &[1.0])], &big_step()).unwrap();
        assert_eq!(tensor_of(&report.answer), [expected, 1.0]);
        let batch = program.batch("x", 1, &[]).unwrap();
        let rows = batch.run(&[1.0, 3.0], false, |_| {}).unwrap();
        assert_eq!(tensor_of(&batch.answer(&rows[1])), [expected + 2.0, 3.0]);
        // The verifier reads the program (and refuses its scalar chain, or answers): no crash.
        let region = InputBox::from_bounds(&[0.0], &[1.0]).unwrap();
        let question = Question::Class { region, claim: Claim::ArgmaxStable };
        let options = VerifyOptions { timeout: Some(Duration::from_secs(20)), ..VerifyOptions::default() };
        let verified = program.verify(&question, options).unwrap();
        assert!(!matches!(verified.conclusion, Conclusion::Unknown(Unknown::Bug(_))), "{:?}", verified.conclusion);
        // Printing and dropping the tree.
        // (The let-Func after the chain of let-Exps is printed in the parentheses K's grammar needs.)
        let printed = knn_semantics::syntax::to_source(program.syntax());
        assert!(printed.starts_with("let s0 = x[0] in let s1 = s0 + 0.5 in"), "{}", &printed[..100]);
        assert!(
            printed.ends_with(&format!("(let y = initTensor(2) in let y[0] = s{} in let y[1] = x[0] in y)", DEPTH - 1))
        );
        drop(program);
    });
}

/// A weight of the network: a fixed pattern in [-0.01, 0.01], different for every position.
fn weight(layer: u64, k: u64) -> f64 {
    let h = (layer.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ k).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    ((h >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 0.02
}

/// `((0.0 + w0·x0) + w1·x1) + …` for each row: `linear` in the rules' order.
fn dense(weights: &[f64], cols: usize, x: &[f64]) -> Vec<f64> {
    weights.chunks(cols).map(|row| row.iter().zip(x).fold(0.0, |sum, (w, x)| sum + w * x)).collect()
}

/// A float64 ONNX model `x[1, inputs] -> Gemm(W0, transB) -> Relu -> Gemm(W1, transB)`.
fn onnx_model(inputs: usize, (hidden, w0): (usize, &[f64]), (outputs, w1): (usize, &[f64])) -> Vec<u8> {
    use knn_formats::import::onnx::proto::{
        AttributeProto, Dimension, GraphProto, ModelProto, NodeProto, TensorProto, TensorShapeProto, TensorTypeProto,
        TypeProto, ValueInfoProto,
    };
    use prost::Message;
    const DOUBLE: i32 = 11;
    let tensor = |name: &str, dims: [usize; 2], data: &[f64]| TensorProto {
        name: name.into(),
        dims: dims.iter().map(|&d| d as i64).collect(),
        data_type: DOUBLE,
        raw_data: data.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>().into(),
        ..Default::default()
    };
    let node = |op: &str, inputs: &[&str], output: &str| NodeProto {
        op_type: op.into(),
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: vec![output.into()],
        attribute: if op == "Gemm" {
            vec![AttributeProto { name: "transB".into(), i: 1, r#type: 2, ..Default::default() }]
        } else {
            vec![]
        },
        ..Default::default()
    };
    let vector = |name: &str, len: usize| ValueInfoProto {
        name: name.into(),
        r#type: Some(TypeProto {
            tensor_type: Some(TensorTypeProto {
                elem_type: DOUBLE,
                shape: Some(TensorShapeProto {
                    dim: [1, len].iter().map(|&d| Dimension { dim_value: Some(d as i64), dim_param: None }).collect(),
                }),
            }),
        }),
    };
    let graph = GraphProto {
        name: "generated".into(),
        node: vec![node("Gemm", &["x", "W0"], "z"), node("Relu", &["z"], "h"), node("Gemm", &["h", "W1"], "y")],
        initializer: vec![tensor("W0", [hidden, inputs], w0), tensor("W1", [outputs, hidden], w1)],
        input: vec![vector("x", inputs)],
        output: vec![vector("y", outputs)],
    };
    ModelProto { ir_version: 7, graph: Some(graph), ..Default::default() }.encode_to_vec()
}

/// Counts the bytes written to it.
struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_network_of_ten_million_parameters_imports_runs_batches_and_verifies() {
    on_a_default_thread_stack(|| {
        let (inputs, hidden, outputs) = (2_000, 5_000, 10);
        let w0: Vec<f64> = (0..(hidden * inputs) as u64).map(|k| weight(0, k)).collect();
        let w1: Vec<f64> = (0..(outputs * hidden) as u64).map(|k| weight(1, k)).collect();
        let x: Vec<f64> = (0..inputs).map(|i| (i % 7) as f64 / 7.0).collect();
        let h: Vec<f64> = dense(&w0, inputs, &x).into_iter().map(|v| v.max(0.0)).collect();
        let expected = dense(&w1, hidden, &h);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ten-million.onnx");
        std::fs::write(&path, onnx_model(inputs, (hidden, &w0), (outputs, &w1))).unwrap();
        // `knn import`'s door: the model read (mapped), then its text written as a stream.
        let network = import_file(&path, None, &ImportOptions::default()).unwrap();
        assert_eq!(network.parameter_count(), 10_050_000);
        let expected_steps = vec![
            Step::Linear { rows: hidden, cols: inputs, weights: w0.into() },
            Step::Activation(Activation::Relu),
            Step::Linear { rows: outputs, cols: hidden, weights: w1.into() },
        ];
        assert!(network.steps == expected_steps, "the model's weights, bit for bit");
        let mut text = Counter(0);
        emit_to(&network, Style::Literals, &mut text).unwrap();
        assert!(text.0 > 10_050_000 * 4, "every weight written ({} bytes)", text.0);
        // `knn run|batch|verify NET.onnx`'s door: the program built in memory.
        let program = load(&path).unwrap();
        let report = program.run(&[vector("x", &x)], &big_step()).unwrap();
        let got = tensor_of(&report.answer);
        assert_eq!(
            got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            expected.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
        let batch = program.batch("x", inputs, &[]).unwrap();
        let rows: Vec<f64> = x.iter().chain(&x).copied().collect();
        let results = batch.run(&rows, false, |_| {}).unwrap();
        assert_eq!(tensor_of(&batch.answer(&results[1])), got);
        // A tiny ball around x: the class of x, or an honest unknown; never a failure.
        let lower: Vec<f64> = x.iter().map(|v| v - 1e-9).collect();
        let upper: Vec<f64> = x.iter().map(|v| v + 1e-9).collect();
        let region = InputBox::from_bounds(&lower, &upper).unwrap();
        let question = Question::Class { region, claim: Claim::ArgmaxStable };
        let options = VerifyOptions { timeout: Some(Duration::from_secs(30)), ..VerifyOptions::default() };
        let verified = program.verify(&question, options).unwrap();
        let class = expected.iter().enumerate().fold(0, |best, (i, v)| if *v > expected[best] { i } else { best });
        match verified.conclusion {
            Conclusion::Holds { class: Some(c) } => assert_eq!(c, class),
            Conclusion::Unknown(_) => {}
            other => panic!("{other:?}"),
        }
    });
}
