//! VNN-COMP 2022's three `mnist_fc` networks (784-256×{2,4,6}-10, float32 ONNX) run bit for
//! bit the same on every path: the small-step reference on a few inputs, the big-step engine
//! on 10^4 (as a batch, and one input at a time before and after a batch has laid the weights
//! out in panels), and a dense evaluation written here from the weights and biases read back
//! out of the imported program's text (plain loops in the order the revised rules impose).
//!
//! The inputs are MNIST-like: most pixels exactly `0.0` (the kernels skip zero inputs, which
//! must not change a sum), the others in `[0, 1)`, and a few rows with negative, large and
//! subnormal values.

mod import_support;

use import_support::{Stream, data, import, matrix_writes};
use knn_engine::bigstep::{Binding, ExecOptions, InputData, Plan, compile, run_rows};
use knn_formats::import::ImportOptions;
use knn_semantics::engine::{Engine, Observed, SmallStep, Verdict};
use knn_semantics::inputs::TensorInput;
use knn_semantics::syntax::{Exp, ExpKind};
use rayon::prelude::*;

const NETWORKS: [(&str, usize); 3] = [("256x2", 2), ("256x4", 4), ("256x6", 6)];

/// The network as the program's text gives it: per layer a weight matrix (rows of
/// `W{k}[i, ·]`) and the bias `let z[i] = z[i] + b`; relu between layers.
struct Dense {
    weights: Vec<Vec<Vec<f64>>>,
    biases: Vec<Vec<f64>>,
}

impl Dense {
    fn read(program: &Exp) -> Dense {
        let mut weights: Vec<Vec<Vec<f64>>> = Vec::new();
        for (name, i, j, w) in matrix_writes(program) {
            let k: usize = name.strip_prefix('W').and_then(|k| k.parse().ok()).unwrap_or_else(|| panic!("{name}"));
            if weights.len() == k {
                weights.push(Vec::new());
            }
            let layer = &mut weights[k];
            if layer.len() == i {
                layer.push(Vec::new());
            }
            assert_eq!(layer[i].len(), j, "{name}[{i}, {j}] in row-major order");
            layer[i].push(w);
        }
        let biases = bias_writes(program);
        assert_eq!(biases.len(), weights.len(), "one bias per layer");
        for (rows, bias) in weights.iter().zip(&biases) {
            assert_eq!(rows.len(), bias.len());
        }
        Dense { weights, biases }
    }

    /// The dense evaluation ([`import_support::dense`]).
    fn eval(&self, input: &[f64]) -> Vec<f64> {
        import_support::dense(&self.weights, &self.biases, input)
    }

    fn parameters(&self) -> usize {
        self.weights.iter().zip(&self.biases).map(|(rows, b)| rows.len() * rows[0].len() + b.len()).sum()
    }
}

/// Every `let z[i] = z[i] + FLOAT` of the program, grouped by tensor in order of appearance.
fn bias_writes(program: &Exp) -> Vec<Vec<f64>> {
    let mut layers: Vec<(String, Vec<f64>)> = Vec::new();
    let mut stack = vec![program];
    while let Some(e) = stack.pop() {
        if let ExpKind::Let { target, value, .. } = &e.kind
            && let ExpKind::Index(tensor, indices) = &target.kind
            && let (ExpKind::Id(name), [i]) = (&tensor.kind, &indices[..])
            && let ExpKind::Add(left, right) = &value.kind
            && let (ExpKind::Index(same, same_indices), ExpKind::Float(b)) = (&left.kind, &right.kind)
            && matches!(&same.kind, ExpKind::Id(n) if n == name)
            && same_indices[..] == [*i]
        {
            if layers.last().is_none_or(|(last, _)| last != name) {
                layers.push((name.clone(), Vec::new()));
            }
            let bias = &mut layers.last_mut().expect("pushed").1;
            assert_eq!(bias.len(), *i as usize, "{name}[{i}] in order");
            bias.push(*b);
        }
        stack.extend(e.children().into_iter().rev());
    }
    layers.into_iter().map(|(_, bias)| bias).collect()
}

/// `count` MNIST-like rows; row 0 all zeros, then three rows of extreme values.
fn rows(seed: u64, count: usize) -> Vec<Vec<f64>> {
    let mut stream = Stream(seed);
    let mut rows: Vec<Vec<f64>> = vec![vec![0.0; 784]];
    rows.push((0..784).map(|i| if i % 2 == 0 { -1.0 - stream.unit() } else { 1e3 * stream.unit() }).collect());
    rows.push((0..784).map(|i| if i % 3 == 0 { f64::from_bits(1 + i as u64) } else { -0.0 }).collect());
    rows.push((0..784).map(|i| if i % 5 == 0 { 1e200 } else { stream.unit() }).collect());
    while rows.len() < count {
        rows.push((0..784).map(|_| if stream.unit() < 0.6 { 0.0 } else { stream.unit() }).collect());
    }
    rows
}

fn compiled(program: &Exp, input: &str) -> Plan {
    compile(program, &[Binding { name: input.into(), shape: vec![784], data: InputData::Symbolic }])
}

fn vector(result: Result<Observed, impl std::fmt::Debug>) -> Vec<f64> {
    match result {
        Ok(Observed::Tensor(t)) => {
            assert_eq!(t.shape, vec![10]);
            t.data
        }
        other => panic!("expected the 10 scores, got {other:?}"),
    }
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn network(name: &str) -> (String, Exp, Dense) {
    let path = data(&format!("mnist_fc/onnx/mnist-net_{name}.onnx"));
    let (network, _, program) = import(&path, &ImportOptions::default());
    let dense = Dense::read(&program);
    (network.input, program, dense)
}

#[test]
fn the_big_step_engine_computes_the_dense_sums_on_ten_thousand_inputs() {
    for (seed, (name, hidden)) in NETWORKS.into_iter().enumerate() {
        let (input, program, dense) = network(name);
        assert_eq!(dense.weights.len(), hidden + 1, "{name}");
        assert_eq!(dense.parameters(), 784 * 256 + 256 + (hidden - 1) * (256 * 256 + 256) + 256 * 10 + 10, "{name}");
        let rows = rows(100 + seed as u64, 10_000);
        let expected: Vec<Vec<u64>> = rows.par_iter().map(|row| bits(&dense.eval(row))).collect();
        let plan = compiled(&program, &input);
        let one_at_a_time = |plan: &Plan, when: &str| {
            for (r, row) in rows.iter().enumerate().take(200) {
                let got = vector(run_rows(plan, &[vec![row.as_slice()]], ExecOptions::default()).remove(0));
                assert_eq!(bits(&got), expected[r], "{name}, row {r}, one input {when}");
            }
        };
        // The plan is fresh: one input reads the weights row by row.
        one_at_a_time(&plan, "before a batch");
        let batch: Vec<Vec<&[f64]>> = rows.iter().map(|r| vec![r.as_slice()]).collect();
        for (r, result) in run_rows(&plan, &batch, ExecOptions::default()).into_iter().enumerate() {
            assert_eq!(bits(&vector(result)), expected[r], "{name}, row {r} of the batch");
        }
        // The batch laid the weights out in panels, which one input now reads.
        one_at_a_time(&plan, "after a batch");
    }
}

#[test]
fn the_small_step_reference_agrees_on_a_few_inputs() {
    for (seed, (name, _)) in NETWORKS.into_iter().enumerate() {
        let (input, program, dense) = network(name);
        let rows = rows(200 + seed as u64, 5);
        // An extreme row and a typical one.
        for row in [&rows[3], &rows[4]] {
            let tensor = TensorInput { name: input.clone(), shape: vec![784], data: row.clone() };
            let verdict = SmallStep::revised().evaluate(&program, &[tensor]).unwrap();
            let Verdict::Value(Observed::Tensor(t)) = verdict else { panic!("{name}: {verdict}") };
            let fast = vector(
                run_rows(&compiled(&program, &input), &[vec![row.as_slice()]], ExecOptions::default()).remove(0),
            );
            assert_eq!(bits(&t.data), bits(&fast), "{name}");
            assert_eq!(bits(&t.data), bits(&dense.eval(row)), "{name}");
        }
    }
}
