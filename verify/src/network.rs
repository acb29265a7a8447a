//! The network the verifier reasons about: the big-step engine's compiled [`Plan`] of the
//! program, read back as a chain of layers on one vector. The plan *is* the computation the
//! engine performs, operation by operation and in the reference's order (docs/big-step.md), so
//! bounds on this chain are bounds on the bits `knn run` produces. Plans that are not such a
//! chain (element-wise reads of computed tensors, input-dependent indices, several symbolic
//! inputs) are refused with what and where, never approximated.

use super::branches::Branches;
use super::combine::{read_combine, read_concat_across, read_matmul_across};
use super::judge::PointResult;
use super::judge::RunError;
use super::operator::{
    Bias, Chain, Dense, Gather, Layer, Pad, Permute, Scale, read_activation, read_conv2d, read_matmul, read_pool2d,
    read_reduce, read_softmax,
};
pub use super::unsupported::Unsupported;
use super::unsupported::unsupported;
use knn_engine::bigstep::ops::{IOperand, Item, Op, argmax};
use knn_engine::bigstep::plan::{Leaf, ResultSpec};
use knn_engine::bigstep::{Plan, softmax_apply};
use knn_engine::tensor::LANE_GROUP;
use knn_semantics::errors::ErrorKind;
use knn_semantics::syntax::Span;

/// What the program's result is made of.
#[derive(Clone, Debug, PartialEq)]
pub enum ResultKind {
    /// A tensor of this shape: the outputs `Y`, row-major.
    Tensor(Vec<usize>),
    /// `ArgMax` of the final vector: the result is a class.
    ArgMax,
    /// `ArgMax` of the `softmax` (with `log`, the `logSoftmax`) of the final vector: a class,
    /// the outputs its scores (`claim.rs` says how a claim on it is proved).
    SoftmaxArgMax { log: bool },
}

impl ResultKind {
    /// Whether the result is a class.
    pub fn is_class(&self) -> bool {
        matches!(self, ResultKind::ArgMax | ResultKind::SoftmaxArgMax { .. })
    }
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

impl Network {
    /// Reads `plan` as a chain (tensors that branch side by side on its vector:
    /// `branches.rs`). A plan that is not one is refused at the operation where the chain
    /// stops, unless it holds an `expItem`/`logItem` (Ext-9, which no operator bounds): read
    /// element by element, the chain stops at the first element read, and the answer names the
    /// function instead.
    pub fn from_plan(plan: &Plan) -> Result<Network, Unsupported> {
        Network::read_chain(plan).map_err(|refused| {
            let exp_or_log = plan.ops.iter().find_map(|op| match op {
                Op::Item { item: item @ (Item::Exp | Item::Log), span, .. } => Some((item, span)),
                _ => None,
            });
            match exp_or_log {
                Some((item, span)) => unsupported(
                    format!(
                        "`{}` of elements of computed tensors (expTensor, logTensor, softmax, logSoftmax: no operator bounds them)",
                        item.name()
                    ),
                    Some(*span),
                ),
                None => refused,
            }
        })
    }

    fn read_chain(plan: &Plan) -> Result<Network, Unsupported> {
        let [input] = plan.inputs.as_slice() else {
            return Err(unsupported(
                format!(
                    "{} symbolic inputs: the verifier takes one input tensor (bind the others with --input)",
                    plan.inputs.len()
                ),
                None,
            ));
        };
        let mut branches = Branches::new(plan, input.buf, input.len);
        let mut argmax: Option<(u32, Vec<usize>)> = None;
        let mut softmax: Option<(bool, u32, u32)> = None;
        for (k, op) in plan.ops.iter().enumerate() {
            if argmax.is_some() {
                return Err(unsupported("computation after an ArgMax of computed values", None));
            }
            match op {
                // Each operator reads its own plan operation (`verify/src/operator/`), on the
                // tensor it reads (`branches.rs`).
                Op::MatVec { out, w, x, x_at, bias, relu: Some(relu) } if branches.read_after(*out, k) => {
                    // The product before its fused relu is read again later (a branch): the
                    // product, then the relu of it, each on its own tensor.
                    let (w, bias) = (w.clone(), bias.clone());
                    let product = Op::MatVec { out: *out, w, x: *x, x_at: *x_at, bias, relu: None };
                    branches.read(k, *x, |chain| Dense::read(&product, chain))?;
                    branches.read(k, *out, |chain| {
                        chain.layers.push(Layer::relu());
                        chain.current = relu.out;
                        Ok(())
                    })?;
                }
                Op::MatVec { x, .. } => branches.read(k, *x, |chain| Dense::read(op, chain))?,
                Op::AddBias { buf, .. } => branches.read(k, *buf, |chain| Bias::read(op, chain))?,
                Op::Elementwise { buf, .. } => branches.read(k, *buf, |chain| Scale::read(op, chain))?,
                Op::Activate { input, .. } => branches.read(k, *input, |chain| read_activation(op, chain))?,
                Op::Copy { out, x, x_at, len } => branches.read(k, *x, |chain| {
                    if *x_at != 0 || *len != chain.len {
                        return Err(unsupported("a reshape of part of a vector, or of one not computed last", None));
                    }
                    // `reshape`/`flatten`: the same elements in the same order.
                    chain.current = *out;
                    Ok(())
                })?,
                Op::Permute { x, .. } => branches.read(k, *x, |chain| Permute::read(op, chain))?,
                Op::Conv2d { x, .. } => branches.read(k, *x, |chain| read_conv2d(op, chain))?,
                Op::Pool2d { x, .. } => branches.read(k, *x, |chain| read_pool2d(op, chain))?,
                Op::Reduce { x, .. } => branches.read(k, *x, |chain| read_reduce(op, chain))?,
                Op::Combine { .. } => read_combine(&mut branches, k, op)?,
                Op::Softmax { log, out, x, x_at: 0, dims, span, .. } if ahead_of_argmax(plan, k, *out, dims) => {
                    // A softmax of the whole vector right before its ArgMax: the class is read
                    // from the scores (`ResultKind::SoftmaxArgMax`), the softmax computed at
                    // points as the engine computes it.
                    if branches.positions(*x, 0, dims.iter().product()).is_none() {
                        return Err(unsupported("a softmax of a tensor not computed from the input", Some(*span)));
                    }
                    softmax = Some((*log, *out, *x));
                }
                Op::ArgMaxBuffer { buf, at, len, out } => match branches.positions(
                    softmax.filter(|(_, scored, _)| scored == buf).map_or(*buf, |(_, _, scores)| scores),
                    *at,
                    *len,
                ) {
                    Some(positions) => argmax = Some((*out, positions)),
                    None => {
                        return Err(unsupported(
                            "ArgMax over values that are not a tensor computed from the input",
                            None,
                        ));
                    }
                },
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
                Op::Item { item, span, .. } => {
                    // No operator bounds a scalar function of single elements (`tanhItem`,
                    // `sigmoidItem`; Ext-9's `expItem`, `logItem`): unsupported, never bounded.
                    return Err(unsupported(format!("`{}` on single elements", item.name()), Some(*span)));
                }
                // Elsewhere, a layer bounded by ranges.
                Op::Softmax { x, .. } => branches.read(k, *x, |chain| read_softmax(op, chain))?,
                Op::ArgMaxOperands { .. } => {
                    return Err(unsupported("ArgMax over single values computed from the input", None));
                }
                Op::MatMul { a, b, span, .. } => match (a.buffer(), b.buffer()) {
                    // Ext-15 fused: a product of two computed tensors is bilinear, a layer
                    // bounded by ranges over the vector.
                    (Some(_), Some(_)) => read_matmul_across(&mut branches, k, op)?,
                    // With one constant operand it is linear: a sparse layer in its order.
                    (Some(buf), None) | (None, Some(buf)) => branches.read(k, buf, |chain| read_matmul(op, chain))?,
                    (None, None) => {
                        return Err(unsupported("`matmul` of two constant tensors (nothing to verify)", Some(*span)));
                    }
                },
                // Ext-11's and Ext-12's copies fused: a selection of the last vector's elements
                // is read, two branches joined or an element twice refused by name.
                Op::Gather { from, .. } => match from.first() {
                    // A slice, or a concat of one tensor: on that tensor's segment.
                    Some(&(buf, _)) if from.iter().all(|&(b, _)| b == buf) => {
                        branches.read(k, buf, |chain| Gather::read(op, chain))?
                    }
                    // Two tensors joined: a gather over the segments of both.
                    Some(_) => read_concat_across(&mut branches, k, op)?,
                    // An empty slice: its own reading says so.
                    None => Gather::read(op, &mut Chain { layers: Vec::new(), current: u32::MAX, len: 0 })?,
                },
                Op::Pad { x, .. } => branches.read(k, *x, |chain| Pad::read(op, chain))?,
            }
        }
        let (outputs, result) = match (&plan.result, argmax) {
            (ResultSpec::Int(IOperand::Reg(r)), Some((out, positions))) if *r == out => match softmax {
                Some((log, _, _)) => (positions, ResultKind::SoftmaxArgMax { log }),
                None => (positions, ResultKind::ArgMax),
            },
            (ResultSpec::Tensor { shape, leaves }, None) => {
                let outputs = leaves
                    .iter()
                    .map(|leaf| match leaf {
                        Leaf::Slot(buf, k) => branches.positions(*buf, *k, 1).map(|p| p[0]).ok_or_else(|| {
                            unsupported("a result element that is not part of a tensor computed from the input", None)
                        }),
                        Leaf::Const(_) => Err(unsupported("a result element that does not depend on the input", None)),
                        _ => Err(unsupported(
                            "a result element that is not part of a tensor computed from the input",
                            None,
                        )),
                    })
                    .collect::<Result<Vec<usize>, Unsupported>>()?;
                (outputs, ResultKind::Tensor(shape.clone()))
            }
            (ResultSpec::Failed, _) => return Err(unsupported("the program fails on every input", None)),
            (ResultSpec::Malformed(why), _) => return Err(unsupported(format!("a malformed result ({why})"), None)),
            _ => return Err(unsupported("a result that is not a tensor or the ArgMax of one", None)),
        };
        let Branches { layers, .. } = branches;
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

    /// What the engine computes at `x`, by the chain: the outputs, or an `ArgMax` program's
    /// class and scores, or the failure of a layer (a NaN reaching a relu: `invalid-operands`).
    /// For judging candidates cheaply; what is reported is replayed on the engines.
    pub fn result_at(&self, x: &[f64]) -> PointResult {
        let mut v = x.to_vec();
        for layer in &self.layers {
            if let Some(error) = layer.failure(&v) {
                return PointResult::Failed(error);
            }
            v = layer.apply(&v);
        }
        self.result_of(self.outputs.iter().map(|&k| v[k]).collect())
    }

    /// [`Network::result_at`] of each of `points`, evaluated together through
    /// [`Network::forward_lanes`] (the same bits). A point at which some layer's value is NaN is
    /// run again alone: every layer failure starts from a NaN, and only `result_at` reports it.
    pub fn results_at(&self, points: &[Vec<f64>]) -> Vec<PointResult> {
        if points.len() < 2 {
            return points.iter().map(|x| self.result_at(x)).collect();
        }
        let lanes = points.len().next_multiple_of(LANE_GROUP);
        let mut x = vec![0.0; self.input_len * lanes];
        for (l, point) in (0..lanes).map(|l| (l, &points[l.min(points.len() - 1)])) {
            for (j, v) in point.iter().enumerate() {
                x[j * lanes + l] = *v;
            }
        }
        let values = self.forward_lanes(&x, lanes);
        let last = values.last().expect("a network has layers");
        (0..points.len())
            .map(|l| {
                if values.iter().any(|v| v.iter().skip(l).step_by(lanes).any(|e| e.is_nan())) {
                    return self.result_at(&points[l]);
                }
                self.result_of(self.outputs.iter().map(|&k| last[k * lanes + l]).collect())
            })
            .collect()
    }

    /// The scores whose `ArgMax` is the class (a softmax program's probabilities), or the
    /// outputs: what a replay compares and a report shows.
    pub fn scores(&self, x: &[f64]) -> Vec<f64> {
        match (&self.result, self.result_at(x)) {
            (ResultKind::SoftmaxArgMax { .. }, PointResult::Class { scores, .. }) => scores,
            _ => self.eval(x),
        }
    }

    /// What the engine returns when the chain's outputs are `outputs` (no layer failed): the
    /// outputs, or an `ArgMax` program's class and scores.
    pub fn result_of(&self, outputs: Vec<f64>) -> PointResult {
        match self.result {
            ResultKind::ArgMax => {
                PointResult::Class { class: argmax(outputs.iter().copied()) as usize, scores: outputs }
            }
            ResultKind::SoftmaxArgMax { log } => {
                let mut scores = vec![0.0; outputs.len()];
                match softmax_apply(log, &[outputs.len()], 0, &outputs, &mut scores) {
                    Ok(()) => PointResult::Class { class: argmax(scores.iter().copied()) as usize, scores },
                    Err(nan) => PointResult::Failed(RunError {
                        kind: ErrorKind::InvalidOperands,
                        detail: nan.detail(),
                        span: Span::default(),
                    }),
                }
            }
            ResultKind::Tensor(_) => PointResult::Outputs(outputs),
        }
    }

    /// Every layer's output vector for one input (`[0]` is the first layer's).
    pub fn forward(&self, x: &[f64]) -> Vec<Vec<f64>> {
        let mut values: Vec<Vec<f64>> = Vec::with_capacity(self.layers.len());
        for layer in &self.layers {
            let v = values.last().map_or(x, Vec::as_slice);
            values.push(layer.apply(v));
        }
        values
    }

    /// [`Network::forward`] for `lanes` inputs at once, feature-major (element `j` of input `l`
    /// at `x[j * lanes + l]`, `lanes` a multiple of `knn_engine::tensor::LANE_GROUP`): every
    /// layer's output for every input, laid out the same way, with `forward`'s bits.
    pub fn forward_lanes(&self, x: &[f64], lanes: usize) -> Vec<Vec<f64>> {
        let mut values: Vec<Vec<f64>> = Vec::with_capacity(self.layers.len());
        for layer in &self.layers {
            let v = values.last().map_or(x, Vec::as_slice);
            values.push(layer.apply_lanes(v, lanes));
        }
        values
    }

    /// `g`, a gradient over the last layer's output for each of `lanes` inputs, carried back to
    /// the inputs `x` through the layers' values `values` ([`Network::forward_lanes`]).
    pub fn backpropagate_lanes(&self, mut g: Vec<f64>, x: &[f64], values: &[Vec<f64>], lanes: usize) -> Vec<f64> {
        for (k, layer) in self.layers.iter().enumerate().rev() {
            let input = if k == 0 { x } else { values[k - 1].as_slice() };
            g = layer.backpropagate_lanes(g, input, &values[k], lanes);
        }
        g
    }

    /// The number of weights of its dense layers (the multiply-adds of one evaluation).
    pub fn weights(&self) -> usize {
        self.layers.iter().map(|layer| layer.weights()).sum()
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

/// Whether the `k`-th operation, a softmax writing `out` of shape `dims`, is one slice (every
/// other axis of extent 1) read next by an `ArgMax` of all of it, whose class is the result.
fn ahead_of_argmax(plan: &Plan, k: usize, out: u32, dims: &[usize]) -> bool {
    let n: usize = dims.iter().product();
    let one_slice = dims.iter().filter(|&&d| d != 1).count() <= 1 && n > 0 && n < 1 << 31;
    let read_next =
        matches!(plan.ops.get(k + 1), Some(Op::ArgMaxBuffer { buf, at: 0, len, .. }) if *buf == out && *len == n);
    one_slice && read_next
}

#[cfg(test)]
#[path = "network_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "branches_tests.rs"]
mod branches_tests;
