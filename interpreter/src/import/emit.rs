//! A [`Network`] as revised K-NN source text.
//!
//! Layers are written the way examples/mlp.knn writes them: `initTensor` and one `let` per
//! weight, `linear`, the bias added element by element in place, a tensor activation. Runs of
//! element-wise steps are fused into one write per element, in the steps' order, so the program
//! computes exactly what the steps say, operation by operation.
//!
//! Writes that cannot change a bit are left out: a weight of `+0.0` (`initTensor` already holds
//! it), `+ -0.0` and `* 1.0` (identities on every float), and `+ 0.0` on an element that cannot
//! be `-0.0` (a `linear` sum starts at `0.0`, and a sum is `-0.0` only when both terms are).

use std::fmt::Write;

use knn_semantics::syntax::print::float_literal;

use super::{Network, Step};

/// Element writes per source line.
const WRITES_PER_LINE: usize = 8;

/// The program text.
pub fn emit(network: &Network) -> String {
    let mut out = String::with_capacity(32 * network.parameter_count() + 1024);
    header(network, &mut out);
    let mut emitter = Emitter { out, current: network.input.clone(), len: network.input_len, linears: 0, copies: 0 };
    // Where the last tensor-producing step is: it takes the output's name.
    let last_producer = network.steps.iter().rposition(|s| matches!(s, Step::Linear { .. } | Step::Activation(_)));
    let mut pending: Vec<&Step> = Vec::new();
    let mut not_negative_zero = vec![false; network.input_len];
    for (index, step) in network.steps.iter().enumerate() {
        let name_as_output = Some(index) == last_producer;
        match step {
            Step::Linear { .. } | Step::Activation(_) => {
                emitter.elementwise(network, &pending, &not_negative_zero, false);
                pending.clear();
                not_negative_zero = emitter.tensor_step(network, step, name_as_output);
            }
            _ => pending.push(step),
        }
    }
    let must_copy = last_producer.is_none();
    emitter.elementwise(network, &pending, &not_negative_zero, must_copy);
    let mut out = emitter.out;
    writeln!(out, "\n{}", network.output).unwrap();
    out
}

fn header(network: &Network, out: &mut String) {
    let sizes: Vec<String> = network.layer_sizes().iter().map(usize::to_string).collect();
    writeln!(out, "// Imported by `knn import` from {} ({}).", network.source, network.format).unwrap();
    writeln!(out, "// Layer sizes: {} ({} parameters).", sizes.join(" -> "), network.parameter_count()).unwrap();
    for note in &network.notes {
        writeln!(out, "// {note}").unwrap();
    }
    writeln!(
        out,
        "// Input: `{0}`, a vector of {1}: `knn run NET.knn --input '{0}=[…]'` or `knn batch NET.knn --input {0}=ROWS.npy`.",
        network.input, network.input_len
    )
    .unwrap();
    writeln!(out, "// Result: the vector `{}` ({} values).", network.output, network.output_len()).unwrap();
}

struct Emitter {
    out: String,
    /// The tensor that holds the current vector.
    current: String,
    len: usize,
    linears: usize,
    copies: usize,
}

impl Emitter {
    /// `linear` or an activation into a fresh tensor; returns which elements of the result are
    /// known not to be `-0.0`.
    fn tensor_step(&mut self, network: &Network, step: &Step, name_as_output: bool) -> Vec<bool> {
        let out = &mut self.out;
        match step {
            Step::Linear { rows, cols, weights } => {
                let k = self.linears;
                self.linears += 1;
                let w = format!("W{k}");
                let target = if name_as_output { network.output.clone() } else { format!("z{k}") };
                writeln!(out, "\n// Layer {k}: {cols} -> {rows}").unwrap();
                writeln!(out, "let {w} = initTensor({rows}, {cols}) in").unwrap();
                for (i, row) in weights.chunks(*cols).enumerate() {
                    let mut written = 0;
                    for (j, &weight) in row.iter().enumerate() {
                        if weight.to_bits() == 0f64.to_bits() {
                            continue;
                        }
                        if written > 0 {
                            out.push_str(if written % WRITES_PER_LINE == 0 { "\n" } else { " " });
                        }
                        write!(out, "let {w}[{i}, {j}] = {} in", float_literal(weight)).unwrap();
                        written += 1;
                    }
                    if written > 0 {
                        out.push('\n');
                    }
                }
                writeln!(out, "let {target} = linear({w}, {}) in", self.current).unwrap();
                self.current = target;
                self.len = *rows;
                vec![true; *rows]
            }
            Step::Activation(activation) => {
                let target = if name_as_output { network.output.clone() } else { format!("h{}", self.copies) };
                self.copies += 1;
                writeln!(out, "let {target} = {}({}) in", activation.tensor_function(), self.current).unwrap();
                self.current = target;
                vec![false; self.len]
            }
            _ => unreachable!("element-wise steps are fused by `elementwise`"),
        }
    }

    /// One write per element for a run of element-wise steps: in place, or into a fresh tensor
    /// when the current vector is the program's input (which stays as the user bound it) or
    /// when `must_copy` (the output needs a tensor of its own).
    fn elementwise(&mut self, network: &Network, steps: &[&Step], not_negative_zero: &[bool], must_copy: bool) {
        let expressions: Vec<Option<String>> =
            (0..self.len).map(|i| element(&self.current, i, steps, not_negative_zero[i])).collect();
        let copy = must_copy || (self.current == network.input && expressions.iter().any(Option::is_some));
        if !copy && expressions.iter().all(Option::is_none) {
            return;
        }
        let source = self.current.clone();
        if copy {
            let target = if must_copy { network.output.clone() } else { format!("t{}", self.copies) };
            self.copies += 1;
            writeln!(self.out, "\nlet {target} = initTensor({}) in", self.len).unwrap();
            self.current = target;
        } else {
            self.out.push('\n');
        }
        for (i, expression) in expressions.into_iter().enumerate() {
            let value = match expression {
                Some(e) => e,
                None if copy => format!("{source}[{i}]"),
                None => continue,
            };
            writeln!(self.out, "let {}[{i}] = {value} in", self.current).unwrap();
        }
    }
}

/// The expression for element `i` after `steps`, or `None` when the steps leave it unchanged.
fn element(tensor: &str, i: usize, steps: &[&Step], mut not_negative_zero: bool) -> Option<String> {
    let mut expression = format!("{tensor}[{i}]");
    let mut is_sum = false;
    let mut changed = false;
    for step in steps {
        match step {
            Step::Add(c) => {
                let c = c[i];
                let identity = c.to_bits() == (-0f64).to_bits() || (c.to_bits() == 0 && not_negative_zero);
                if !identity {
                    expression = format!("{expression} + {}", float_literal(c));
                    is_sum = true;
                    changed = true;
                }
                // x + c is -0.0 only when x and c both are.
                not_negative_zero = not_negative_zero || c.to_bits() != (-0f64).to_bits();
            }
            Step::Mul(c) => {
                let c = c[i];
                if c != 1.0 {
                    let factor = if is_sum { format!("({expression})") } else { expression };
                    expression = format!("{factor} * {}", float_literal(c));
                    is_sum = false;
                    changed = true;
                    not_negative_zero = false;
                }
            }
            Step::Clip { low, high } => {
                expression = format!("max(min({expression}, {}), {})", float_literal(high[i]), float_literal(low[i]));
                is_sum = false;
                changed = true;
                not_negative_zero = false;
            }
            Step::Linear { .. } | Step::Activation(_) => unreachable!("only element-wise steps are fused"),
        }
    }
    changed.then_some(expression)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::Activation;

    fn network(steps: Vec<Step>) -> Network {
        Network {
            source: "t.nnet".into(),
            format: ".nnet",
            input: "x".into(),
            input_len: 2,
            output: "y".into(),
            steps,
            notes: vec![],
        }
    }

    #[test]
    fn a_layer_is_weights_linear_bias_activation() {
        let text = emit(&network(vec![
            Step::Linear { rows: 2, cols: 2, weights: vec![1.5, 0.0, -0.0, 1e-7] },
            Step::Add(vec![0.0, -2.0]),
            Step::Activation(Activation::Relu),
        ]));
        assert!(
            text.contains(
                "let W0 = initTensor(2, 2) in\nlet W0[0, 0] = 1.5 in\nlet W0[1, 0] = -0.0 in let W0[1, 1] = 1e-7 in\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("let z0 = linear(W0, x) in\n\nlet z0[1] = z0[1] + -2.0 in\nlet y = reluTensor(z0) in\n\ny\n"),
            "{text}"
        );
        assert!(!text.contains("z0[0] + 0.0"), "a +0.0 bias after linear is left out: {text}");
    }

    #[test]
    fn element_wise_steps_on_the_input_fuse_into_a_copy() {
        let text = emit(&network(vec![
            Step::Clip { low: vec![-1.0, 0.0], high: vec![1.0, f64::INFINITY] },
            Step::Add(vec![-0.5, -0.0]),
            Step::Mul(vec![2.0, 1.0]),
            Step::Linear { rows: 1, cols: 2, weights: vec![1.0, 1.0] },
            Step::Mul(vec![3.0]),
            Step::Add(vec![0.25]),
        ]));
        assert!(text.contains("let t0 = initTensor(2) in\nlet t0[0] = (max(min(x[0], 1.0), -1.0) + -0.5) * 2.0 in\nlet t0[1] = max(min(x[1], Infinity), 0.0) in\n"), "{text}");
        assert!(text.contains("let y = linear(W0, t0) in\n\nlet y[0] = y[0] * 3.0 + 0.25 in\n\ny\n"), "{text}");
    }

    #[test]
    fn a_network_without_layers_copies_its_input() {
        let text = emit(&network(vec![]));
        assert!(text.ends_with("let y = initTensor(2) in\nlet y[0] = x[0] in\nlet y[1] = x[1] in\n\ny\n"), "{text}");
    }
}
