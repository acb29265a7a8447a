//! What an imported network holds that is well formed but almost surely a mistake: weights or
//! constants that are NaN or infinite (a NaN weight makes every output NaN; a `.nnet` range of
//! `0` becomes a scaling by `1 / 0 = ∞`). `knn import` warns about each, or refuses the model
//! with `--strict` (docs/importing.md).

use super::{Network, Step};

/// One line per step that holds a value that is not finite: which step, how many values, and
/// the first of them.
pub fn non_finite_values(network: &Network) -> Vec<String> {
    let mut layer = 0;
    let mut found = Vec::new();
    for step in &network.steps {
        let (what, values): (String, Vec<&[f64]>) = match step {
            Step::Linear { cols, weights, .. } => {
                layer += 1;
                let first = weights.iter().position(|w| !w.is_finite());
                if let Some(at) = first {
                    let count = weights.iter().filter(|w| !w.is_finite()).count();
                    found.push(format!(
                        "layer {}: {count} weight{} not finite, the first W[{}, {}] = {}",
                        layer - 1,
                        if count == 1 { " is" } else { "s are" },
                        at / cols.max(&1),
                        at % cols.max(&1),
                        weights[at]
                    ));
                }
                continue;
            }
            Step::Add(c) if layer == 0 => ("the input offsets (-mean)".into(), vec![c]),
            Step::Add(c) => (format!("the bias or offset after layer {}", layer - 1), vec![c]),
            Step::Mul(c) if layer == 0 => ("the input scaling (1 / range: a range of 0?)".into(), vec![c]),
            Step::Mul(c) => (format!("the scaling after layer {}", layer - 1), vec![c]),
            Step::Clip { low, high } => ("the input clipping bounds".into(), vec![low, high]),
            Step::Div(c) if layer == 0 => ("the input divisors".into(), vec![c]),
            Step::Div(c) => (format!("the divisors after layer {}", layer - 1), vec![c]),
            Step::Conv(conv) => {
                layer += 1;
                let first = conv.weights.iter().position(|w| !w.is_finite());
                if let Some(at) = first {
                    let count = conv.weights.iter().filter(|w| !w.is_finite()).count();
                    let [_, cg, kh, kw] = conv.kernel;
                    let inner = (cg * kh * kw).max(1);
                    let (m, rest) = (at / inner, at % inner);
                    let (c, rest) = (rest / (kh * kw).max(1), rest % (kh * kw).max(1));
                    found.push(format!(
                        "layer {}: {count} weight{} not finite, the first W[{m}, {c}, {}, {}] = {}",
                        layer - 1,
                        if count == 1 { " is" } else { "s are" },
                        rest / kw.max(1),
                        rest % kw.max(1),
                        conv.weights[at]
                    ));
                }
                match &conv.bias {
                    Some(bias) => (format!("the bias of layer {}", layer - 1), vec![&bias[..]]),
                    None => continue,
                }
            }
            Step::Activation(_) | Step::Pool(_) | Step::Reshape(_) | Step::Transpose { .. } => continue,
            Step::Keep(_)
            | Step::Resume(_)
            | Step::AddKept { .. }
            | Step::ConcatKept { .. }
            | Step::MatmulKept { .. }
            | Step::ArithKept { .. } => continue,
            Step::Softmax { .. } | Step::Reduce { .. } | Step::Slice { .. } | Step::Pad { .. } => continue,
            Step::Literal { values, .. } => ("a constant matrix that a product reads".into(), vec![&values[..]]),
        };
        let all = || values.iter().flat_map(|v| v.iter());
        let count = all().filter(|x| !x.is_finite()).count();
        if let Some((at, x)) = all().enumerate().find(|(_, x)| !x.is_finite()) {
            found.push(format!(
                "{what}: {count} value{} not finite, the first (element {at}) = {x}",
                if count == 1 { " is" } else { "s are" }
            ));
        }
    }
    found
}

/// The bytes the program text takes, at most (`None` when the count overflows): every weight
/// and every element write is a `let` of at most 64 bytes, and each step writes at most one
/// `let` per element of the vector.
pub fn program_size(network: &Network) -> Option<u64> {
    let mut elements = network.parameter_count() as u64;
    let mut len = network.input_len as u64;
    let mut kept: Vec<(usize, u64)> = Vec::new();
    for step in &network.steps {
        match step {
            Step::Linear { rows, .. } => len = *rows as u64,
            Step::Conv(conv) => len = conv.output().map_or(u64::MAX, |s| s.iter().map(|&d| d as u64).product()),
            Step::Pool(pool) => len = pool.output().map_or(u64::MAX, |s| s.iter().map(|&d| d as u64).product()),
            Step::Keep(slot) => kept.push((*slot, len)),
            // A branch goes on from a kept value: its length, and a copy of it at most.
            Step::Resume(slot) => len = kept.iter().rev().find(|(k, _)| k == slot).map_or(len, |&(_, l)| l),
            _ => {}
        }
        elements = elements.checked_add(len)?;
    }
    // The output copy when no step produces a tensor, and the header.
    elements.checked_add(len)?.checked_mul(64)?.checked_add(4096)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn network(steps: Vec<Step>) -> Network {
        Network {
            source: "t".into(),
            format: "test",
            input: "x".into(),
            input_len: 2,
            input_shape: vec![2],
            output: "y".into(),
            steps,
            notes: Vec::new(),
        }
    }

    #[test]
    fn non_finite_weights_and_scalings_are_named() {
        let weights = vec![1.0, 2.0, f64::NAN, 4.0, f64::NAN, 0.0];
        let found = non_finite_values(&network(vec![
            Step::Mul(vec![1.0, f64::INFINITY]),
            Step::Linear { rows: 3, cols: 2, weights: weights.into() },
            Step::Add(vec![0.0, 1.0, 2.0]),
        ]));
        assert_eq!(
            found,
            vec![
                "the input scaling (1 / range: a range of 0?): 1 value is not finite, the first (element 1) = inf",
                "layer 0: 2 weights are not finite, the first W[1, 0] = NaN",
            ]
        );
        assert!(non_finite_values(&network(vec![Step::Add(vec![0.5, -1.0])])).is_empty());
    }

    #[test]
    fn the_program_size_counts_every_write() {
        let net =
            network(vec![Step::Linear { rows: 3, cols: 2, weights: vec![0.0; 6].into() }, Step::Add(vec![0.0; 3])]);
        // 6 weights and 3 bias constants, then 3 elements after the linear and 3 after the
        // bias, and the output's 3.
        assert_eq!(program_size(&net), Some((6 + 3 + 3 + 3 + 3) * 64 + 4096));
        let huge = Network { input_len: usize::MAX, ..network(vec![Step::Mul(vec![]), Step::Mul(vec![])]) };
        assert_eq!(program_size(&huge), None);
    }
}
