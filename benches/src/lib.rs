//! Programs the benchmarks run, generated so that their size is a parameter.

use std::fmt::Write;

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

/// A multi-layer perceptron as a revised K-NN program, the input `x` free (bound with
/// `--input`): for each layer `linear`, a bias added element by element, relu on hidden layers,
/// then `ArgMax` of the output. `sizes` are the layer widths, input first: ACAS Xu is
/// `[5, 50, 50, 50, 50, 50, 50, 5]`. Weights are seeded pseudo-random numbers scaled by
/// `1/sqrt(fan-in)`.
pub fn mlp_program(sizes: &[usize], seed: u64) -> String {
    let mut source = format!("// MLP {sizes:?}, seed {seed}\n");
    let mut input = "x".to_string();
    for (layer, pair) in sizes.windows(2).enumerate() {
        let (fan_in, fan_out) = (pair[0], pair[1]);
        let mut weights =
            Weights { state: seed ^ (layer as u64 + 1).wrapping_mul(0x9e37_79b9), scale: 1.0 / (fan_in as f64).sqrt() };
        let w = format!("W{layer}");
        writeln!(source, "let {w} = initTensor({fan_out}, {fan_in}) in").unwrap();
        for i in 0..fan_out {
            for j in 0..fan_in {
                write!(source, "let {w}[{i}, {j}] = {:?} in ", weights.next()).unwrap();
            }
            source.push('\n');
        }
        let z = format!("z{layer}");
        writeln!(source, "let {z} = linear({w}, {input}) in").unwrap();
        for i in 0..fan_out {
            write!(source, "let {z}[{i}] = {z}[{i}] + {:?} in ", weights.next() * 0.1).unwrap();
        }
        source.push('\n');
        input = if layer + 2 < sizes.len() {
            let h = format!("h{layer}");
            writeln!(source, "let {h} = reluTensor({z}) in").unwrap();
            h
        } else {
            z
        };
    }
    write!(source, "ArgMax({input})").unwrap();
    source
}

/// ACAS Xu's shape: 5 inputs, 6 hidden layers of 50, 5 outputs.
pub const ACAS_XU: [usize; 8] = [5, 50, 50, 50, 50, 50, 50, 5];

/// A wider network: 784 inputs (MNIST), 6 hidden layers of 256, 10 outputs.
pub const WIDE: [usize; 8] = [784, 256, 256, 256, 256, 256, 256, 10];

/// `count` input vectors of length `width`, seeded, in `[-1, 1)`.
pub fn inputs(count: usize, width: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut weights = Weights { state: seed, scale: 1.0 };
    (0..count).map(|_| (0..width).map(|_| weights.next()).collect()).collect()
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
    fn mlp_programs_parse_with_one_linear_per_layer() {
        let source = super::mlp_program(&[3, 4, 2], 1);
        let program = parse_program(&source, Grammar::Relaxed).unwrap();
        assert!(program.size() > 3 * 4 + 4 * 2);
        assert_eq!(source.matches("linear(").count(), 2);
        assert_eq!(source.matches("reluTensor(").count(), 1);
    }
}
