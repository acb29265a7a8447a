//! What the import tests share: an independent `.nnet` reader and dense evaluation (plain
//! loops in the order the revised rules impose), seeded inputs, and the networks on disk.
#![allow(dead_code, reason = "each test file uses its own subset")]

use std::path::{Path, PathBuf};

use knn_formats::import::emit::{Style, emit, emit_with};
use knn_formats::import::{ImportOptions, Network, import_file};
use knn_semantics::Profile;
use knn_semantics::syntax::{Exp, ExpKind, FuncKind, Number, parse_program};

/// A file of the repository's `data/` folder (data/README.md). A missing file fails the test
/// with its path, here, rather than as an I/O error deep in whatever reads it.
pub fn data(relative: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data").join(relative);
    assert!(
        path.is_file(),
        "test data missing: {} (data/{relative} is part of the repository; see data/README.md)",
        path.display()
    );
    path
}

/// The bytes of a file of `data/` ([`data`] names a missing one).
pub fn read_data(relative: &str) -> Vec<u8> {
    let path = data(relative);
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The 45 ACAS Xu networks, `1_1` … `5_9`.
pub fn acas_paths() -> Vec<PathBuf> {
    let mut paths = Vec::new();
    for a in 1..=5 {
        for b in 1..=9 {
            paths.push(data(&format!("acasxu/ACASXU_experimental_v2a_{a}_{b}.nnet")));
        }
    }
    paths
}

/// A `.nnet` file read without the importer: every number after the comments, in order.
pub struct Reference {
    pub sizes: Vec<usize>,
    pub mins: Vec<f64>,
    pub maxes: Vec<f64>,
    pub means: Vec<f64>,
    pub ranges: Vec<f64>,
    /// Per layer, rows of weights.
    pub weights: Vec<Vec<Vec<f64>>>,
    pub biases: Vec<Vec<f64>>,
}

impl Reference {
    pub fn read(path: &Path) -> Reference {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let mut numbers = text
            .lines()
            .filter(|l| !l.starts_with("//"))
            .flat_map(|l| l.split(',').map(str::trim).filter(|t| !t.is_empty()).collect::<Vec<_>>())
            .map(|t| t.parse::<f64>().unwrap_or_else(|_| panic!("{t}")));
        let mut take = |n: usize| -> Vec<f64> { (0..n).map(|_| numbers.next().unwrap()).collect() };
        let header = take(4);
        let (layers, inputs) = (header[0] as usize, header[1] as usize);
        let sizes: Vec<usize> = take(layers + 1).into_iter().map(|s| s as usize).collect();
        take(1);
        let (mins, maxes) = (take(inputs), take(inputs));
        let (means, ranges) = (take(inputs + 1), take(inputs + 1));
        let mut weights = Vec::new();
        let mut biases = Vec::new();
        for pair in sizes.windows(2) {
            weights.push((0..pair[1]).map(|_| take(pair[0])).collect());
            biases.push(take(pair[1]));
        }
        Reference { sizes, mins, maxes, means, ranges, weights, biases }
    }

    /// The network on an input as it sees it ([`dense`]).
    pub fn dense(&self, input: &[f64]) -> Vec<f64> {
        dense(&self.weights, &self.biases, input)
    }

    /// `--normalize`'s documented arithmetic: clip to `[min, max]` (`max(min(x, hi), lo)`),
    /// `(x + -mean) * (1 / range)`, the network, then `y * range_out + mean_out`.
    pub fn dense_normalised(&self, raw: &[f64]) -> Vec<f64> {
        let n = raw.len();
        let scaled: Vec<f64> = (0..n)
            .map(|i| {
                let low_clipped = if raw[i] < self.maxes[i] { raw[i] } else { self.maxes[i] };
                let clipped = if low_clipped < self.mins[i] { self.mins[i] } else { low_clipped };
                (clipped + -self.means[i]) * (1.0 / self.ranges[i])
            })
            .collect();
        self.dense(&scaled).into_iter().map(|y| y * self.ranges[n] + self.means[n]).collect()
    }

    /// A raw input drawn uniformly from the file's input box.
    pub fn raw_input(&self, stream: &mut Stream) -> Vec<f64> {
        self.mins.iter().zip(&self.maxes).map(|(lo, hi)| lo + (hi - lo) * stream.unit()).collect()
    }

    /// The raw input as the network sees it: `(x - mean) / range`.
    pub fn normalise(&self, raw: &[f64]) -> Vec<f64> {
        raw.iter().enumerate().map(|(i, x)| (x - self.means[i]) / self.ranges[i]).collect()
    }
}

/// A dense network on an input as the revised rules compute it: for each layer
/// `((0.0 + w0*x0) + w1*x1) + …` (revised `linear`), then `+ b` (the bias `let`), then relu as
/// `max(v, 0.0)` on hidden layers (K's `max`: `0.0` when `v < 0.0`, else `v`). `weights[k]` is
/// layer k's rows.
pub fn dense(weights: &[Vec<Vec<f64>>], biases: &[Vec<f64>], input: &[f64]) -> Vec<f64> {
    let mut x = input.to_vec();
    let last = weights.len() - 1;
    for (k, (rows, bias)) in weights.iter().zip(biases).enumerate() {
        x = rows
            .iter()
            .zip(bias)
            .map(|(row, b)| {
                let mut acc = 0.0;
                for (w, v) in row.iter().zip(&x) {
                    acc += w * v;
                }
                let z = acc + b;
                if k < last && z < 0.0 { 0.0 } else { z }
            })
            .collect();
    }
    x
}

/// A seeded stream of numbers in `[0, 1)`.
pub struct Stream(pub u64);

impl Stream {
    pub fn unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Imports a model and parses the emitted program under the revised grammar.
pub fn import(path: &Path, options: &ImportOptions) -> (Network, String, Exp) {
    let network = import_file(path, None, options).unwrap_or_else(|e| panic!("{e}"));
    let text = emit(&network);
    let program =
        parse_program(&text, Profile::revised().grammar).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (network, text, program)
}

/// [`import`] with the weights written as element `let`s.
pub fn import_with_lets(path: &Path) -> Exp {
    let network = import_file(path, None, &ImportOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    parse_program(&emit_with(&network, Style::ElementLets), Profile::revised().grammar)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every `let NAME[i, j] = FLOAT` of the program and every element of a rank-2 tensor literal
/// `let NAME = initTensor(rows, cols)[…]`, in order: `(NAME, i, j, value)`.
pub fn matrix_writes(program: &Exp) -> Vec<(String, usize, usize, f64)> {
    let mut writes = Vec::new();
    let mut stack = vec![program];
    while let Some(e) = stack.pop() {
        if let ExpKind::LetFunc { target, func, .. } = &e.kind
            && let (ExpKind::Id(name), FuncKind::TensorLiteral(dims, elements)) = (&target.kind, &func.kind)
            && let [_, cols] = dims[..]
        {
            for (k, n) in elements.iter().enumerate() {
                let Number::Float(v) = n else { panic!("{name}: an Int element") };
                writes.push((name.clone(), k / cols as usize, k % cols as usize, v));
            }
        }
        if let ExpKind::Let { target, value, .. } = &e.kind
            && let ExpKind::Index(tensor, indices) = &target.kind
            && let (ExpKind::Id(name), [i, j], ExpKind::Float(v)) = (&tensor.kind, &indices[..], &value.kind)
        {
            writes.push((name.clone(), *i as usize, *j as usize, *v));
        }
        stack.extend(e.children().into_iter().rev());
    }
    writes
}
