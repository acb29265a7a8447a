//! The network the verifier reasons about: the big-step engine's compiled [`Plan`] of the
//! program, read back as a chain of layers on one vector. The plan *is* the computation the
//! engine performs, operation by operation and in the reference's order (docs/big-step.md), so
//! bounds on this chain are bounds on the bits `knn run` produces. Plans that are not such a
//! chain (element-wise reads of computed tensors, input-dependent indices, several symbolic
//! inputs) are refused with what and where, never approximated.

use std::fmt;
use std::sync::Arc;

use knn_semantics::numeric::{k_max, revised_tanh, sigmoid};
use knn_semantics::syntax::Span;

use crate::bigstep::Plan;
use crate::bigstep::ops::{Activation, BufId, IOperand, Op};
use crate::bigstep::plan::{Leaf, ResultSpec};
use crate::tensor::Matrix;

/// One step of the chain.
#[derive(Clone, Debug)]
pub enum Layer {
    /// `out[i] = (((0.0 + w[i][0]·x[0]) + w[i][1]·x[1]) + …)`, then `out[i] + bias[i]` where a
    /// bias is given: `linear-rows-step` and `linear-cols-step` walk the rows and columns in
    /// order, `rev-linear-mac` multiplies then adds (a `MatVec` of the plan, with the bias
    /// `let`s the optimiser fused into it).
    Dense { w: Arc<Matrix>, bias: Vec<Option<f64>> },
    /// `out[i] = x[i] + bias[i]` where given (bias `let`s on their own).
    Bias(Vec<Option<f64>>),
    /// `reluTensor` (`rev-relu-helper-elem`: `max(x, 0.0)` by the `max` rules).
    Relu,
    /// `tanhTensor` with Rev-13's formula.
    Tanh,
    /// `sigmoidTensor`.
    Sigmoid,
}

impl Layer {
    /// The length of the vector this layer makes from one of length `len`.
    pub fn output_len(&self, len: usize) -> usize {
        match self {
            Layer::Dense { w, .. } => w.rows(),
            _ => len,
        }
    }
}

/// What the program's result is made of.
#[derive(Clone, Debug, PartialEq)]
pub enum ResultKind {
    /// A tensor of this shape: the outputs `Y`, row-major.
    Tensor(Vec<usize>),
    /// `ArgMax` of the final vector: the result is a class.
    ArgMax,
}

/// A program as a chain of layers from its symbolic input to its outputs.
#[derive(Clone, Debug)]
pub struct Network {
    /// The name of the input tensor and its number of elements.
    pub input: String,
    pub input_len: usize,
    pub layers: Vec<Layer>,
    /// Output `k` is element `outputs[k]` of the last layer's vector.
    pub outputs: Vec<usize>,
    pub result: ResultKind,
}

/// A plan the verifier cannot read as a chain: what, and where when the plan knows.
#[derive(Clone, Debug, PartialEq)]
pub struct Unsupported {
    pub what: String,
    pub span: Option<Span>,
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.what)
    }
}

fn unsupported(what: impl Into<String>, span: Option<Span>) -> Unsupported {
    Unsupported { what: what.into(), span }
}

impl Network {
    /// Reads `plan` as a chain.
    pub fn from_plan(plan: &Plan) -> Result<Network, Unsupported> {
        let [input] = plan.inputs.as_slice() else {
            return Err(unsupported(
                format!(
                    "{} symbolic inputs: the verifier takes one input tensor (bind the others with --input)",
                    plan.inputs.len()
                ),
                None,
            ));
        };
        let mut current: BufId = input.buf;
        let mut len = input.len;
        let mut layers = Vec::new();
        let mut argmax: Option<u32> = None;
        for op in &plan.ops {
            if argmax.is_some() {
                return Err(unsupported("computation after an ArgMax of computed values", None));
            }
            match op {
                Op::MatVec { out, w, x, x_at, bias, relu } => {
                    if *x != current || *x_at != 0 || w.cols() != len {
                        return Err(unsupported(
                            "a linear layer on part of a vector, or on a vector other than the last one computed",
                            None,
                        ));
                    }
                    let bias = bias.as_deref().map_or_else(|| vec![None; w.rows()], <[Option<f64>]>::to_vec);
                    layers.push(Layer::Dense { w: w.clone(), bias });
                    current = *out;
                    len = w.rows();
                    if let Some(relu) = relu {
                        layers.push(Layer::Relu);
                        current = relu.out;
                    }
                }
                Op::AddBias { buf, at, values } => {
                    if *buf != current || at + values.len() > len {
                        return Err(unsupported("an addition to a tensor other than the last one computed", None));
                    }
                    let mut bias = vec![None; len];
                    bias[*at..*at + values.len()].clone_from_slice(values);
                    layers.push(Layer::Bias(bias));
                }
                Op::Activate { activation, input, in_at, out, len: n, span } => {
                    if *input != current || *in_at != 0 || *n != len {
                        return Err(unsupported(
                            "an activation on part of a vector, or on a vector other than the last one computed",
                            Some(*span),
                        ));
                    }
                    layers.push(match activation {
                        Activation::Relu => Layer::Relu,
                        Activation::Tanh => Layer::Tanh,
                        Activation::Sigmoid => Layer::Sigmoid,
                    });
                    current = *out;
                }
                Op::ArgMaxBuffer { buf, at: 0, len: n, out } if *buf == current && *n == len => {
                    argmax = Some(*out);
                }
                Op::Raise { error } => {
                    return Err(unsupported(
                        format!("the program fails on every input: {}", error.detail),
                        Some(error.span),
                    ));
                }
                Op::Float { op, span, .. } => {
                    return Err(unsupported(
                        format!("scalar arithmetic (`{}`) on elements of computed tensors", op.symbol()),
                        Some(*span),
                    ));
                }
                Op::Int { span, .. } => {
                    return Err(unsupported("integer arithmetic on values computed from the input", Some(*span)));
                }
                Op::Read { span, .. } | Op::Write { span, .. } => {
                    return Err(unsupported(
                        "reading or writing single elements of tensors computed from the input",
                        Some(*span),
                    ));
                }
                Op::Widen { span, .. } => {
                    return Err(unsupported("an input-dependent Int used as a Float", Some(*span)));
                }
                Op::Item { span, .. } => {
                    return Err(unsupported("tanhItem/sigmoidItem on single elements", Some(*span)));
                }
                Op::ArgMaxBuffer { .. } | Op::ArgMaxOperands { .. } => {
                    return Err(unsupported("ArgMax over values that are not the last vector computed", None));
                }
            }
        }
        let (outputs, result) = match (&plan.result, argmax) {
            (ResultSpec::Int(IOperand::Reg(r)), Some(out)) if *r == out => ((0..len).collect(), ResultKind::ArgMax),
            (ResultSpec::Tensor { shape, leaves }, None) => {
                let outputs = leaves
                    .iter()
                    .map(|leaf| match leaf {
                        Leaf::Slot(buf, k) if *buf == current && *k < len => Ok(*k),
                        Leaf::Const(_) => Err(unsupported("a result element that does not depend on the input", None)),
                        _ => Err(unsupported("a result element that is not part of the last vector computed", None)),
                    })
                    .collect::<Result<Vec<usize>, Unsupported>>()?;
                (outputs, ResultKind::Tensor(shape.clone()))
            }
            (ResultSpec::Failed, _) => return Err(unsupported("the program fails on every input", None)),
            (ResultSpec::Malformed(why), _) => return Err(unsupported(format!("a malformed result ({why})"), None)),
            _ => return Err(unsupported("a result that is not a tensor or the ArgMax of one", None)),
        };
        if layers.is_empty() {
            return Err(unsupported("a result that is the input itself (nothing to verify)", None));
        }
        Ok(Network { input: input.name.clone(), input_len: input.len, layers, outputs, result })
    }

    /// The output vector for one input, computed as the engine computes it (the same
    /// operations in the same order): for gradients and for checks of this module.
    pub fn eval(&self, x: &[f64]) -> Vec<f64> {
        let last = self.forward(x).pop().expect("a network has layers");
        self.outputs.iter().map(|&k| last[k]).collect()
    }

    /// Every layer's output vector for one input (`[0]` is the first layer's).
    pub fn forward(&self, x: &[f64]) -> Vec<Vec<f64>> {
        let mut values: Vec<Vec<f64>> = Vec::with_capacity(self.layers.len());
        for layer in &self.layers {
            let v = values.last().map_or(x, Vec::as_slice);
            values.push(apply(layer, v));
        }
        values
    }

    /// The widths of the vectors between layers, input first.
    pub fn widths(&self) -> Vec<usize> {
        let mut widths = vec![self.input_len];
        for layer in &self.layers {
            widths.push(layer.output_len(*widths.last().expect("the input width")));
        }
        widths
    }
}

/// One layer on one vector, with the engine's scalar operations.
pub fn apply(layer: &Layer, v: &[f64]) -> Vec<f64> {
    match layer {
        Layer::Dense { w, bias } => (0..w.rows())
            .map(|i| {
                let sum = w.row(i).iter().zip(v).fold(0.0, |s, (wij, xj)| s + wij * xj);
                bias[i].map_or(sum, |b| sum + b)
            })
            .collect(),
        Layer::Bias(bias) => v.iter().zip(bias).map(|(x, b)| b.map_or(*x, |b| x + b)).collect(),
        Layer::Relu => v.iter().map(|&x| k_max(x, 0.0).unwrap_or(f64::NAN)).collect(),
        Layer::Tanh => v.iter().map(|&x| revised_tanh(x)).collect(),
        Layer::Sigmoid => v.iter().map(|&x| sigmoid(x)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use knn_semantics::syntax::{Grammar, parse_program};

    use super::*;
    use knn_semantics::engine::Observed;

    use crate::bigstep::{Binding, ExecOptions, InputData, compile, run_rows};

    /// The plan of `source` with `x` of `shape` symbolic.
    fn plan(source: &str, shape: &[usize]) -> Plan {
        let program = parse_program(source, Grammar::Relaxed).expect("the test program parses");
        compile(&program, &[Binding { name: "x".into(), shape: shape.to_vec(), data: InputData::Symbolic }])
    }

    fn refusal(plan: &Plan) -> String {
        match Network::from_plan(plan) {
            Ok(net) => panic!("read as a chain: {:?}", describe(&net)),
            Err(unsupported) => unsupported.what,
        }
    }

    /// The layers, in a form tests can compare.
    fn describe(net: &Network) -> Vec<String> {
        net.layers
            .iter()
            .map(|layer| match layer {
                Layer::Dense { w, bias } => format!("Dense {}x{} {bias:?}", w.rows(), w.cols()),
                Layer::Bias(bias) => format!("Bias {bias:?}"),
                Layer::Relu => "Relu".into(),
                Layer::Tanh => "Tanh".into(),
                Layer::Sigmoid => "Sigmoid".into(),
            })
            .collect()
    }

    #[test]
    fn a_bias_on_part_of_the_last_vector_is_a_layer_of_its_own() {
        // Bias `let`s after an activation are not fused into a product: each run of them is an
        // `AddBias` at some offset, which must land on the same elements of the chain's vector.
        // From the start, in the middle, up to the end, and with a gap (`at = 2`, three values
        // on five elements).
        for (len, lets, expected) in [
            (3, "let h[0] = h[0] + 0.5 in", "Bias [Some(0.5), None, None]"),
            (3, "let h[1] = h[1] + 0.5 in", "Bias [None, Some(0.5), None]"),
            (3, "let h[2] = h[2] + 0.5 in", "Bias [None, None, Some(0.5)]"),
            (5, "let h[2] = h[2] + 0.5 in let h[4] = h[4] + 0.25 in", "Bias [None, None, Some(0.5), None, Some(0.25)]"),
        ] {
            let net = Network::from_plan(&plan(&format!("let h = sigmoidTensor(x) in {lets} h"), &[len]))
                .unwrap_or_else(|u| panic!("{lets}: {u}"));
            assert_eq!(describe(&net), ["Sigmoid", expected], "{lets}");
            assert_eq!(net.outputs, (0..len).collect::<Vec<_>>());
            assert_eq!(net.result, ResultKind::Tensor(vec![len]));
        }
    }

    #[test]
    fn the_chain_computes_the_engines_bits() {
        // `eval` stands in for the engine where the engine gives only a class (an `ArgMax`
        // program's scores decide the smallest boxes point by point), so every layer must
        // compute what the plan computes: a product with a fused bias and relu, a bias layer of
        // its own, tanh, sigmoid, and a bias on part of a vector after an activation.
        let source = "let W = initTensor(3, 2) in let W[0, 0] = 1.5 in let W[0, 1] = -2.0 in \
                      let W[1, 0] = 0.25 in let W[2, 1] = 3.0 in \
                      let z = linear(W, x) in let z[0] = z[0] + 0.1 in let z[2] = z[2] + -0.3 in \
                      let h = reluTensor(z) in let t = tanhTensor(h) in let s = sigmoidTensor(t) in \
                      let s[1] = s[1] + 0.5 in let s[2] = s[2] + -0.75 in s";
        let plan = plan(source, &[2]);
        let net = Network::from_plan(&plan).unwrap();
        assert_eq!(
            describe(&net),
            [
                "Dense 3x2 [Some(0.1), None, Some(-0.3)]",
                "Relu",
                "Tanh",
                "Sigmoid",
                "Bias [None, Some(0.5), Some(-0.75)]"
            ]
        );
        let inputs = [[0.3, -0.7], [-1.25, 0.5], [2.0, 0.125], [0.0, 0.0]];
        let rows: Vec<Vec<&[f64]>> = inputs.iter().map(|x| vec![&x[..]]).collect();
        for (x, result) in inputs.iter().zip(run_rows(&plan, &rows, ExecOptions::default())) {
            let Ok(Observed::Tensor(engine)) = result else { panic!("{result:?}") };
            let chain = net.eval(x);
            let bits = |v: &[f64]| v.iter().map(|y| y.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&chain), bits(&engine.data), "at {x:?}: {chain:?} against {:?}", engine.data);
        }
    }

    #[test]
    fn a_bias_on_a_vector_other_than_the_last_one_is_unsupported() {
        // The bias changes `x` after `h` was computed from it: `h`, the result, is unchanged, so
        // a chain `Sigmoid, Bias` would be the wrong network.
        let plan = plan("let h = sigmoidTensor(x) in let x[0] = x[0] + 1.0 in h", &[2]);
        assert_eq!(refusal(&plan), "an addition to a tensor other than the last one computed");
    }

    #[test]
    fn a_linear_layer_on_a_vector_other_than_the_last_one_is_unsupported() {
        // `o` is computed from `x`, not from `relu(x)`: the chain `Relu, Dense` would be wrong.
        let plan = plan(
            "let W = initTensor(2, 2) in let W[0, 1] = 1.0 in let h = reluTensor(x) in let o = linear(W, x) in o",
            &[2],
        );
        assert_eq!(
            refusal(&plan),
            "a linear layer on part of a vector, or on a vector other than the last one computed"
        );
    }

    #[test]
    fn a_linear_layer_on_part_of_the_last_vector_is_unsupported() {
        // No program makes this plan today (`linear` takes a named vector, and every named
        // vector computed from the input is a whole buffer), so it is made by hand: a product
        // that reads the first two of the three inputs. Read as a chain, its layer would get
        // the whole vector.
        let mut plan = plan("let W = initTensor(2, 3) in let W[0, 0] = 1.0 in let o = linear(W, x) in o", &[3]);
        let Some(Op::MatVec { w, .. }) = plan.ops.first_mut() else { panic!("a product: {:?}", plan.ops) };
        *w = Arc::new(Matrix::new(2, 2, vec![1.0, 0.0, 0.0, 1.0]));
        assert_eq!(
            refusal(&plan),
            "a linear layer on part of a vector, or on a vector other than the last one computed"
        );
    }

    #[test]
    fn an_activation_on_a_vector_other_than_the_last_one_is_unsupported() {
        // `g` is `tanh(x)`, not `tanh(relu(x))`.
        let plan = plan("let h = reluTensor(x) in let g = tanhTensor(x) in g", &[2]);
        assert_eq!(
            refusal(&plan),
            "an activation on part of a vector, or on a vector other than the last one computed"
        );
    }

    #[test]
    fn an_activation_on_part_of_the_last_vector_is_unsupported() {
        // `r` is one row of the 2×2 input (its first, then its second): an `Activate` of two of
        // the four elements, at offset 0 and at offset 2.
        for row in ["x[0]", "x[1]"] {
            let source = format!("let r = initTensor(1, 2) in let r[0] = {row} in let h = tanhTensor(r) in h");
            let plan = plan(&source, &[2, 2]);
            assert!(matches!(plan.ops[..], [Op::Activate { len: 2, .. }]), "{:?}", plan.ops);
            assert_eq!(
                refusal(&plan),
                "an activation on part of a vector, or on a vector other than the last one computed",
                "{row}"
            );
        }
    }

    #[test]
    fn an_argmax_of_a_vector_other_than_the_last_one_is_unsupported() {
        // The class of `x`, not of `relu(x)`; then the class of the first row of a 2×2 `tanh`
        // (two of the four elements: the class over all four could be 2 or 3).
        for (source, shape) in [
            ("let h = reluTensor(x) in ArgMax(x)", &[2][..]),
            ("let h = tanhTensor(x) in let r = h[0] in ArgMax(r)", &[2, 2][..]),
            ("let h = tanhTensor(x) in let r = h[1] in ArgMax(r)", &[2, 2][..]),
        ] {
            assert_eq!(
                refusal(&plan(source, shape)),
                "ArgMax over values that are not the last vector computed",
                "{source}"
            );
        }
        // The ArgMax of the last vector is the class of the chain.
        let net = Network::from_plan(&plan("let h = tanhTensor(x) in ArgMax(h)", &[3])).unwrap();
        assert_eq!(
            (describe(&net), net.outputs, net.result),
            (vec!["Tanh".to_string()], vec![0, 1, 2], ResultKind::ArgMax)
        );
    }

    #[test]
    fn an_int_result_other_than_the_argmax_is_unsupported() {
        // No program makes this plan today (an Int register other than the ArgMax's comes from
        // an operation refused before), so the result is changed by hand.
        let mut plan = plan("let h = tanhTensor(x) in ArgMax(h)", &[2]);
        assert_eq!(plan.result, ResultSpec::Int(IOperand::Reg(0)));
        plan.result = ResultSpec::Int(IOperand::Reg(1));
        assert_eq!(refusal(&plan), "a result that is not a tensor or the ArgMax of one");
    }

    #[test]
    fn a_result_taken_from_a_vector_other_than_the_last_one_is_unsupported() {
        // The result is `x`; the chain `Relu` would bound `relu(x)`.
        let plan = plan("let h = reluTensor(x) in x", &[2]);
        let unsupported = Network::from_plan(&plan).unwrap_err();
        assert_eq!(unsupported.what, "a result element that is not part of the last vector computed");
        // `knn verify` prints the reason with `{}`.
        assert_eq!(unsupported.to_string(), unsupported.what);
    }

    #[test]
    fn a_result_element_past_the_end_of_the_last_vector_is_unsupported() {
        // No program makes this plan (a slot is inside its buffer), so the result is changed by
        // hand: element 2 of a vector of two would be read out of bounds.
        let mut plan = plan("let h = tanhTensor(x) in h", &[2]);
        let ResultSpec::Tensor { leaves, .. } = &mut plan.result else { panic!("{:?}", plan.result) };
        let Leaf::Slot(buf, _) = leaves[1] else { panic!("{leaves:?}") };
        leaves[1] = Leaf::Slot(buf, 2);
        assert_eq!(refusal(&plan), "a result element that is not part of the last vector computed");
    }

    #[test]
    fn a_result_element_that_is_a_constant_is_unsupported() {
        // A 2×2 result whose first row is `tanh(x)` and second the zeros of `initTensor`.
        let plan = plan("let h = tanhTensor(x) in let r = initTensor(2, 2) in let r[0] = h in r", &[2]);
        assert_eq!(refusal(&plan), "a result element that does not depend on the input");
    }

    #[test]
    fn a_malformed_result_is_unsupported_with_why() {
        // An Int among the result's elements.
        let plan = plan("let h = tanhTensor(x) in let r = initTensor(2) in let r[0] = 3 in r", &[2]);
        let ResultSpec::Malformed(why) = &plan.result else { panic!("{:?}", plan.result) };
        assert_eq!(refusal(&plan), format!("a malformed result ({why})"));
    }

    #[test]
    fn a_failed_result_is_unsupported_as_failing() {
        // The compiler ends a failing plan with a `Raise`, which is refused first with its
        // detail; a failed result without one is refused as failing all the same.
        let with_raise = plan("let h = tanhTensor(x) in h[5]", &[2]);
        assert_eq!(with_raise.result, ResultSpec::Failed);
        assert!(refusal(&with_raise).starts_with("the program fails on every input: "), "{}", refusal(&with_raise));
        let mut without = plan("let h = tanhTensor(x) in h", &[2]);
        without.result = ResultSpec::Failed;
        assert_eq!(refusal(&without), "the program fails on every input");
    }
}
