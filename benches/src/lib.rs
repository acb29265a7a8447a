//! Programs the benchmarks run, generated so that their size is a parameter.

use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use knn_engine::bigstep::{Binding, InputData, Plan, compile};
use knn_formats::import::{Activation, ImportOptions, Network, Step, import_file};
use knn_semantics::syntax::{Exp, Grammar, parse_program};

pub mod cifar_cnn;
pub mod cnn;
pub mod crown;
pub mod verivital;

/// `x` of length `n` and `W` of shape `(n, n)` written element by element (`n + n²` element
/// writes), then `y = linear(W, x)` and `y[0]`.
pub fn linear_program(n: usize) -> String {
    let mut source = format!("let x = initTensor({n}) in let W = initTensor({n}, {n}) in ");
    for i in 0..n {
        write!(source, "let x[{i}] = {}.5 in ", i % 10).unwrap();
    }
    for i in 0..n {
        for j in 0..n {
            write!(source, "let W[{i}, {j}] = {}.25 in ", (i * j) % 7).unwrap();
        }
    }
    source.push_str("(let y = linear(W, x) in y[0])");
    source
}

/// A deterministic stream of weights in `[-scale, scale)`.
struct Weights {
    state: u64,
    scale: f64,
}

impl Weights {
    fn next(&mut self) -> f64 {
        self.state = self.state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) * self.scale
    }
}

/// One dense layer: `weights` row-major `(fan_out, fan_in)`, then the bias.
pub struct Layer {
    pub fan_in: usize,
    pub fan_out: usize,
    pub weights: Vec<f64>,
    pub bias: Vec<f64>,
}

/// A multi-layer perceptron with seeded weights: relu on hidden layers, a linear output, the
/// class the `ArgMax` of the output. The benchmarks of both engines and the peer harness
/// (`benches/peers/`) run the same networks.
pub struct Mlp {
    pub sizes: Vec<usize>,
    pub seed: u64,
    pub layers: Vec<Layer>,
}

impl Mlp {
    /// `sizes` are the layer widths, input first: ACAS Xu is `[5, 50, 50, 50, 50, 50, 50, 5]`.
    /// Weights are seeded pseudo-random numbers scaled by `1/sqrt(fan-in)`, biases a tenth of that.
    pub fn seeded(sizes: &[usize], seed: u64) -> Mlp {
        let layers = sizes
            .windows(2)
            .enumerate()
            .map(|(layer, pair)| {
                let (fan_in, fan_out) = (pair[0], pair[1]);
                let state = seed ^ (layer as u64 + 1).wrapping_mul(0x9e37_79b9);
                let mut stream = Weights { state, scale: 1.0 / (fan_in as f64).sqrt() };
                let weights = (0..fan_in * fan_out).map(|_| stream.next()).collect();
                let bias = (0..fan_out).map(|_| stream.next() * 0.1).collect();
                Layer { fan_in, fan_out, weights, bias }
            })
            .collect();
        Mlp { sizes: sizes.to_vec(), seed, layers }
    }

    /// The network as a revised K-NN program, the input `x` free (bound with `--input`): for
    /// each layer `linear`, the bias added element by element, relu on hidden layers, then
    /// `ArgMax` of the output.
    pub fn program(&self) -> String {
        let mut source = format!("// MLP {:?}, seed {}\n", self.sizes, self.seed);
        let mut input = "x".to_string();
        for (index, layer) in self.layers.iter().enumerate() {
            let w = format!("W{index}");
            writeln!(source, "let {w} = initTensor({}, {}) in", layer.fan_out, layer.fan_in).unwrap();
            for (i, row) in layer.weights.chunks(layer.fan_in).enumerate() {
                for (j, weight) in row.iter().enumerate() {
                    write!(source, "let {w}[{i}, {j}] = {weight:?} in ").unwrap();
                }
                source.push('\n');
            }
            let z = format!("z{index}");
            writeln!(source, "let {z} = linear({w}, {input}) in").unwrap();
            for (i, b) in layer.bias.iter().enumerate() {
                write!(source, "let {z}[{i}] = {z}[{i}] + {b:?} in ").unwrap();
            }
            source.push('\n');
            input = if index + 1 < self.layers.len() {
                let h = format!("h{index}");
                writeln!(source, "let {h} = reluTensor({z}) in").unwrap();
                h
            } else {
                z
            };
        }
        write!(source, "ArgMax({input})").unwrap();
        source
    }
}

impl Mlp {
    /// A trained network from `knn import`'s reader, when it is a chain of `linear`, bias and
    /// relu (`.nnet` files without `--normalize` are): the benchmarks run real weights too.
    pub fn from_network(network: &Network) -> Option<Mlp> {
        let mut layers: Vec<Layer> = Vec::new();
        let mut sizes = vec![network.input_len];
        for step in &network.steps {
            match step {
                Step::Linear { rows, cols, weights } => {
                    layers.push(Layer {
                        fan_in: *cols,
                        fan_out: *rows,
                        weights: weights.to_vec(),
                        bias: vec![0.0; *rows],
                    });
                    sizes.push(*rows);
                }
                Step::Add(bias) => layers.last_mut()?.bias = bias.clone(),
                Step::Activation(Activation::Relu) => {}
                _ => return None,
            }
        }
        Some(Mlp { sizes, seed: 0, layers })
    }
}

/// A file of the repository's `data/` folder (data/README.md).
pub fn data_path(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../data").join(relative)
}

/// The real ACAS Xu network 1_1 (`data/acasxu/`), as trained (inputs and outputs normalised).
pub fn acas_xu_1_1() -> Result<Mlp, String> {
    let path = data_path("acasxu/ACASXU_experimental_v2a_1_1.nnet");
    let network =
        import_file(&path, None, &ImportOptions::default()).map_err(|e| format!("{}: {e}", path.display()))?;
    Mlp::from_network(&network)
        .ok_or_else(|| format!("{}: not a chain of linear, bias and relu layers", path.display()))
}

/// Inputs for the real ACAS Xu network: normalised inputs lie in about `[-0.5, 0.5]`.
pub fn acas_xu_inputs(count: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut weights = Weights { state: seed, scale: 0.5 };
    (0..count).map(|_| (0..5).map(|_| weights.next()).collect()).collect()
}

/// A network the batch benchmarks and the peer harness run, with its inputs.
pub struct BenchNet {
    pub name: &'static str,
    pub mlp: Mlp,
    pub inputs: Vec<Vec<f64>>,
}

/// The seeded networks of ACAS Xu's shape and the wide one, then the real ACAS Xu 1_1, each
/// with `count` seeded inputs.
pub fn bench_networks(count: usize) -> Vec<BenchNet> {
    // The network is part of the repository: without it the measurements are not comparable.
    let real = acas_xu_1_1().unwrap_or_else(|e| panic!("the real ACAS Xu network: {e}"));
    vec![
        BenchNet { name: "acasxu", mlp: Mlp::seeded(&ACAS_XU, 7), inputs: inputs(count, ACAS_XU[0], 3) },
        BenchNet { name: "wide", mlp: Mlp::seeded(&WIDE, 7), inputs: inputs(count, WIDE[0], 3) },
        BenchNet { name: "acasxu-1-1", mlp: real, inputs: acas_xu_inputs(count, 3) },
    ]
}

/// [`Mlp::seeded`] as a program.
pub fn mlp_program(sizes: &[usize], seed: u64) -> String {
    Mlp::seeded(sizes, seed).program()
}

/// ACAS Xu's shape: 5 inputs, 6 hidden layers of 50, 5 outputs.
pub const ACAS_XU: [usize; 8] = [5, 50, 50, 50, 50, 50, 50, 5];

/// A wider network: 784 inputs (MNIST), 6 hidden layers of 256, 10 outputs.
pub const WIDE: [usize; 8] = [784, 256, 256, 256, 256, 256, 256, 10];

/// A benchmark program's source parsed with the revised grammar (the programs are generated:
/// one that does not parse is a bug here).
pub fn parse_mlp(source: &str) -> Exp {
    parse_program(source, Grammar::Relaxed).expect("the benchmark program parses")
}

/// The plan of `program` for one symbolic input vector `x` of `width` elements: what the
/// big-step benchmarks run.
pub fn compile_mlp(program: &Exp, width: usize) -> Plan {
    compile(program, &[Binding { name: "x".into(), shape: vec![width], data: InputData::Symbolic }])
}

/// Input vectors as the big-step engine's rows: one input each.
pub fn rows(batch: &[Vec<f64>]) -> Vec<Vec<&[f64]>> {
    batch.iter().map(|x| vec![x.as_slice()]).collect()
}

/// `count` input vectors of length `width`, seeded, in `[-1, 1)`.
pub fn inputs(count: usize, width: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut weights = Weights { state: seed, scale: 1.0 };
    (0..count).map(|_| (0..width).map(|_| weights.next()).collect()).collect()
}

/// The best mean time of one call over rounds of calls, within `budget` in all (the examples'
/// quick measurements; the criterion benches are the record).
pub fn best_time<T>(mut f: impl FnMut() -> T, budget: Duration) -> f64 {
    let start = Instant::now();
    f();
    let once = start.elapsed().max(Duration::from_nanos(100));
    let per_round = ((budget.as_secs_f64() / 10.0) / once.as_secs_f64()).ceil().max(1.0) as u32;
    let mut best = f64::INFINITY;
    while start.elapsed() < budget || best.is_infinite() {
        let round = Instant::now();
        for _ in 0..per_round {
            f();
        }
        best = best.min(round.elapsed().as_secs_f64() / per_round as f64);
    }
    best
}

#[cfg(test)]
mod tests {
    use knn_semantics::syntax::{Grammar, parse_program};

    #[test]
    fn the_linear_program_parses_and_has_the_promised_writes() {
        let source = super::linear_program(3);
        assert_eq!(source.matches("let x[").count(), 3);
        assert_eq!(source.matches("let W[").count(), 9);
        assert!(parse_program(&source, Grammar::K).is_ok());
    }

    #[test]
    fn an_mlp_plan_runs_rows_to_the_classes_the_reference_gives() {
        use knn_engine::bigstep::{ExecOptions, run_rows};
        use knn_semantics::engine::{Engine, Observed, SmallStep, Verdict};
        use knn_semantics::inputs::TensorInput;

        let program = super::parse_mlp(&super::mlp_program(&[3, 4, 2], 1));
        let plan = super::compile_mlp(&program, 3);
        let xs = super::inputs(5, 3, 9);
        let rows = super::rows(&xs);
        assert!(rows.len() == 5 && rows.iter().zip(&xs).all(|(row, x)| row == &[x.as_slice()]));
        for (x, result) in xs.iter().zip(run_rows(&plan, &rows, ExecOptions::default())) {
            let input = [TensorInput { name: "x".into(), shape: vec![3], data: x.clone() }];
            let reference = SmallStep::revised().evaluate(&program, &input).expect("the input binds");
            match (reference, result) {
                (Verdict::Value(Observed::Int(expected)), Ok(Observed::Int(class))) => assert_eq!(class, expected),
                (reference, result) => panic!("reference {reference:?}, plan {result:?}"),
            }
        }
    }

    #[test]
    fn mlp_programs_parse_with_one_linear_per_layer() {
        let source = super::mlp_program(&[3, 4, 2], 1);
        let program = parse_program(&source, Grammar::Relaxed).unwrap();
        assert!(program.size() > 3 * 4 + 4 * 2);
        assert_eq!(source.matches("linear(").count(), 2);
        assert_eq!(source.matches("reluTensor(").count(), 1);
    }
}
