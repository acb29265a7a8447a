//! One ONNX node at a time: the steps it adds to the chain, or why it cannot be imported.
//! Errors are plain messages; the caller adds the node's name and operator.

use std::sync::Arc;

use super::constant::{Constant, Values, broadcast, element_count};
use super::proto::{AttributeProto, NodeProto};
use super::{Graph, Value};
use crate::import::{Activation, Conv, Step};

#[path = "classifier.rs"]
mod classifier;
#[path = "conv.rs"]
mod conv;
#[path = "gemm.rs"]
mod gemm;
#[path = "pad.rs"]
mod pad;
#[path = "pool.rs"]
mod pool;
#[path = "scale.rs"]
mod scale;
#[path = "shape.rs"]
mod shape;
#[path = "slice.rs"]
mod slice;
#[path = "transpose.rs"]
mod transpose;
use classifier::{reduce, softmax};
use conv::conv;
use gemm::gemm;
use pad::pad;
use pool::pool;
use scale::{batch_normalization, div, global_pool, mul};
use shape::{flatten, reshape_node};
use slice::slice;
use transpose::transpose;

const SUPPORTED: &str = "Conv, MaxPool, AveragePool, GlobalMaxPool, GlobalAveragePool, Gemm, MatMul, Add, Sub, Mul, Div (not of a constant by a computed value), BatchNormalization (inference), Relu, Sigmoid, Tanh, Flatten, Reshape, Transpose, Pad (constant), Softmax, LogSoftmax, ReduceSum, ReduceMean, ReduceMax, ReduceMin, Identity, Dropout (inference), Constant, Slice (forward, constant bounds), Concat (of two computed values)";

/// Whether an operator reads a `(1, C, H, W)` image, so that the program's input is the
/// `(C, H, W)` tensor rather than a vector.
pub fn reads_images(op_type: &str) -> bool {
    matches!(op_type, "Conv" | "MaxPool" | "AveragePool" | "GlobalAveragePool" | "GlobalMaxPool")
}

/// Adds `node`'s steps to the chain; `later`, the nodes after it, tell a `Pad` who reads it.
pub fn translate(graph: &mut Graph, node: &NodeProto, later: &[NodeProto]) -> Result<(), String> {
    // An optional output left out is an empty name (ONNX): only the first is imported.
    let used = node.output.iter().rposition(|o| !o.is_empty()).map_or(0, |last| last + 1);
    let output = match &node.output[..used] {
        [output] => output.clone(),
        [_, _] if node.op_type == "MaxPool" => {
            return Err("its second output, the indices of the maxima, is not supported (K-NN's maxPool2d makes the values only)".into());
        }
        [_, _] if node.op_type == "Dropout" => {
            return Err(
                "its second output, the mask, is not supported (at inference Dropout passes its input on)".into()
            );
        }
        outputs => return Err(format!("expected one output, found {}", outputs.len())),
    };
    let value = match node.op_type.as_str() {
        "Constant" => {
            let [attribute] = node.attribute.as_slice() else {
                return Err("a Constant node needs exactly one attribute".into());
            };
            Value::Constant(Constant::from_attribute(attribute)?)
        }
        "Identity" => {
            let [input] = inputs::<1>(graph, node)?;
            input
        }
        "Dropout" => dropout(graph, node)?,
        "Relu" | "Sigmoid" | "Tanh" => {
            let [input] = inputs::<1>(graph, node)?;
            let shape = graph.vector(&input, node)?;
            graph.steps.push(Step::Activation(match node.op_type.as_str() {
                "Relu" => Activation::Relu,
                "Sigmoid" => Activation::Sigmoid,
                _ => Activation::Tanh,
            }));
            graph.next(shape)
        }
        "Flatten" => flatten(graph, node)?,
        "Reshape" => reshape_node(graph, node)?,
        "Transpose" => transpose(graph, node)?,
        "MaxPool" | "AveragePool" => pool(graph, node)?,
        "Pad" => pad(graph, node, later)?,
        "Add" | "Sub" => add_or_sub(graph, node)?,
        "Mul" => mul(graph, node)?,
        "Div" => div(graph, node)?,
        "BatchNormalization" => batch_normalization(graph, node)?,
        "GlobalAveragePool" | "GlobalMaxPool" => global_pool(graph, node)?,
        "MatMul" => matmul(graph, node)?,
        "Gemm" => gemm(graph, node)?,
        "Conv" => conv(graph, node)?,
        "Softmax" | "LogSoftmax" => softmax(graph, node)?,
        "ReduceSum" | "ReduceMean" | "ReduceMax" | "ReduceMin" => reduce(graph, node)?,
        "Slice" => slice(graph, node)?,
        "Concat" => concat(graph, node)?,
        other => return Err(format!("operator `{other}` is not supported (knn imports {SUPPORTED})")),
    };
    graph.values.insert(output, value);
    Ok(())
}

impl Graph {
    /// The shape of the vector `value`, made the chain's current one (an earlier value, read
    /// by another branch, is taken up again: `branch.rs`).
    fn vector(&mut self, value: &Value, node: &NodeProto) -> Result<Vec<usize>, String> {
        match value {
            Value::Vector { generation, shape } => {
                self.carry(*generation, node.input.first().map_or("", String::as_str))?;
                Ok(shape.clone())
            }
            Value::Constant(_) => Err("it computes on constants only; fold them before exporting".into()),
        }
    }

    /// A new vector of the chain, after the steps just pushed.
    fn next(&mut self, shape: Vec<usize>) -> Value {
        self.advance();
        Value::Vector { generation: self.generation, shape }
    }

    /// A new vector of the chain whose K-NN shape is `tensor`.
    fn next_tensor(&mut self, shape: Vec<usize>, tensor: Vec<usize>) -> Value {
        self.tensor = tensor;
        self.next(shape)
    }

    /// Checks that the current value is a vector to K-NN (`linear` reads vectors).
    fn expect_vector(&self) -> Result<(), String> {
        match self.tensor[..] {
            [_] => Ok(()),
            ref t => Err(format!(
                "it reads a tensor of shape {t:?}; `linear` reads vectors (flatten it first, with ONNX's Flatten or Reshape)"
            )),
        }
    }
}

/// The node's inputs, looked up (a missing optional input is an error here: none is optional
/// except Gemm's `C`, which [`gemm`] handles).
fn inputs<const N: usize>(graph: &Graph, node: &NodeProto) -> Result<[Value; N], String> {
    if node.input.len() != N {
        return Err(format!("expected {N} input{}, found {}", if N == 1 { "" } else { "s" }, node.input.len()));
    }
    let values = node.input.iter().map(|name| lookup(graph, name)).collect::<Result<Vec<Value>, String>>()?;
    Ok(values.try_into().expect("N values"))
}

fn lookup(graph: &Graph, name: &str) -> Result<Value, String> {
    graph.values.get(name).cloned().ok_or_else(|| format!("its input `{name}` is not computed by an earlier node"))
}

fn attribute<'n>(node: &'n NodeProto, name: &str) -> Option<&'n AttributeProto> {
    node.attribute.iter().find(|a| a.name == name)
}

fn int_attribute(node: &NodeProto, name: &str, default: i64) -> Result<i64, String> {
    Ok(attribute(node, name).map_or(default, |a| a.i))
}

fn float_attribute(node: &NodeProto, name: &str, default: f32) -> Result<f32, String> {
    Ok(attribute(node, name).map_or(default, |a| a.f))
}

/// A possibly negative axis of a rank-`rank` tensor, as an index in `0..=rank`.
fn axis(axis: i64, rank: usize) -> Result<usize, String> {
    let resolved = if axis < 0 { axis + rank as i64 } else { axis };
    usize::try_from(resolved)
        .ok()
        .filter(|&a| a <= rank)
        .ok_or_else(|| format!("axis {axis} is out of range for rank {rank}"))
}

/// `Dropout` at inference: its input, unchanged (ONNX: the output is the input when
/// `training_mode` is false, its default; before opset 12 there is no training mode to ask for).
fn dropout(graph: &mut Graph, node: &NodeProto) -> Result<Value, String> {
    let Some(input) = node.input.first() else { return Err("expected an input".into()) };
    match node.input.get(2).filter(|name| !name.is_empty()).map(|name| lookup(graph, name)).transpose()? {
        None => {}
        Some(Value::Constant(c)) if c.floats().iter().all(|&v| v == 0.0) => {}
        Some(_) => return Err("training_mode is not the constant false: knn imports networks for inference".into()),
    }
    let value = lookup(graph, input)?;
    graph.vector(&value, node)?;
    Ok(value)
}

/// The constant operand of an `Add`, `Sub`, `Mul` or `Div`, broadcast to the vector's shape,
/// the vector's shape, and whether the vector is the first operand.
fn constant_operand(graph: &mut Graph, node: &NodeProto) -> Result<(Vec<f64>, Vec<usize>, bool), String> {
    let [a, b] = inputs::<2>(graph, node)?;
    let (vector, constant, vector_first) = match (&a, &b) {
        (Value::Vector { .. }, Value::Constant(c)) => (&a, c, true),
        (Value::Constant(c), Value::Vector { .. }) => (&b, c, false),
        (Value::Vector { .. }, Value::Vector { .. }) => {
            return Err(format!("both operands are computed values; knn imports {} with constants only", node.op_type));
        }
        _ => return Err("it computes on constants only; fold them before exporting".into()),
    };
    let shape = graph.vector(vector, node)?;
    let values = broadcast(&constant.floats(), &constant.dims, &shape).ok_or_else(|| {
        format!("the constant of shape {:?} does not broadcast to the vector's shape {shape:?}", constant.dims)
    })?;
    Ok((values, shape, vector_first))
}

/// `Add`/`Sub` of the vector and a constant, in either order, or of two computed values
/// (`branch.rs`).
/// ONNX `Concat` (opset 4 on: `axis` required; before, 1 by default): two computed values, as
/// `concat` (Ext-11); constants or more operands are refused.
fn concat(graph: &mut Graph, node: &NodeProto) -> Result<Value, String> {
    let axis = match attribute(node, "axis") {
        Some(a) => a.i,
        None if graph.opset < 4 => 1,
        None => return Err("it has no axis".into()),
    };
    if node.input.len() != 2 {
        return Err(format!("it joins {} values; knn imports a Concat of two computed values", node.input.len()));
    }
    match &inputs::<2>(graph, node)? {
        [a @ Value::Vector { .. }, b @ Value::Vector { .. }] => super::branch::concat_computed(graph, node, a, b, axis),
        _ => Err("a concatenation with a constant; knn imports a Concat of two computed values".into()),
    }
}

fn add_or_sub(graph: &mut Graph, node: &NodeProto) -> Result<Value, String> {
    if let [a @ Value::Vector { generation: ga, shape: sa }, b @ Value::Vector { generation: gb, shape: sb }] =
        &inputs::<2>(graph, node)?
    {
        // Of one shape: Ext-1's `addTensor` (`branch.rs`); else Ext-8's (`arith.rs`).
        if sa == sb && graph.tensor_of(*ga) == graph.tensor_of(*gb) {
            return super::branch::add_computed(graph, node, a, b);
        }
        return super::arith::arith_computed(graph, node, a, b);
    }
    let (values, shape, vector_first) = constant_operand(graph, node)?;
    let subtract = node.op_type == "Sub";
    match (subtract, vector_first) {
        // x - c is x + (-c) exactly (IEEE 754 defines subtraction so).
        (true, true) => graph.steps.push(Step::Add(values.iter().map(|c| -c).collect())),
        // c - x is (-1 * x) + c: the negation is exact, and addition commutes.
        (true, false) => {
            graph.steps.push(Step::Mul(vec![-1.0; values.len()]));
            graph.steps.push(Step::Add(values));
        }
        (false, _) => graph.steps.push(Step::Add(values)),
    }
    Ok(graph.next(shape))
}

/// The weights of `linear` from a constant matrix `m` of shape `(r, c)`: `m` itself, or its
/// transpose when `transpose`.
fn weights(m: &Constant, transpose: bool) -> Result<(usize, usize, Arc<[f64]>), String> {
    let [r, c] = m.dims[..] else {
        return Err(format!("the weight matrix has shape {:?}, not rank 2", m.dims));
    };
    let data = m.floats();
    if !transpose {
        // Shared with the constant: the layer's literal will be this very array.
        return Ok((r, c, data));
    }
    let t: Arc<[f64]> = (0..data.len()).map(|k| data[(k % r) * c + k / r]).collect();
    Ok((c, r, t))
}

/// `MatMul(x, B)` is `linear(Bᵀ, x)`; `MatMul(A, x)` is `linear(A, x)`; `MatMul` of two
/// computed values is `matmul` (Ext-15, `branch.rs`).
fn matmul(graph: &mut Graph, node: &NodeProto) -> Result<Value, String> {
    let [a, b] = inputs::<2>(graph, node)?;
    if let (Value::Vector { .. }, Value::Vector { .. }) = (&a, &b) {
        return super::branch::matmul_computed(graph, node, &a, &b);
    }
    let (rows, cols, w, shape) = match (&a, &b) {
        (Value::Vector { .. }, Value::Constant(m)) => {
            let shape = graph.vector(&a, node)?;
            let (rows, cols, w) = weights(m, true)?;
            // A row vector (K) or (1, K) times (K, N) gives (N) or (1, N).
            let out = match shape[..] {
                [_] => vec![rows],
                [1, _] => vec![1, rows],
                _ => return Err(format!("the vector operand has shape {shape:?}; expected (K) or (1, K)")),
            };
            (rows, cols, w, (shape, out))
        }
        (Value::Constant(m), Value::Vector { .. }) => {
            let shape = graph.vector(&b, node)?;
            let (rows, cols, w) = weights(m, false)?;
            let out = match shape[..] {
                [_] => vec![rows],
                [_, 1] => vec![rows, 1],
                _ => return Err(format!("the vector operand has shape {shape:?}; expected (K) or (K, 1)")),
            };
            (rows, cols, w, (shape, out))
        }
        _ => return Err("knn imports products of the vector and a constant matrix only".into()),
    };
    graph.expect_vector()?;
    let (input_shape, output_shape) = shape;
    let len: usize = input_shape.iter().product();
    if len != cols {
        return Err(format!("the matrix expects {cols} inputs, the vector has shape {input_shape:?}"));
    }
    graph.steps.push(Step::Linear { rows, cols, weights: w });
    Ok(graph.next_tensor(output_shape, vec![rows]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_transpose_row_major() {
        let m = Constant { dims: vec![2, 3], values: Values::Float(Arc::new([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])) };
        assert_eq!(weights(&m, false).unwrap(), (2, 3, Arc::from([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])));
        assert_eq!(weights(&m, true).unwrap(), (3, 2, Arc::from([1.0, 4.0, 2.0, 5.0, 3.0, 6.0])));
        let (_, _, shared) = weights(&m, false).unwrap();
        let Values::Float(held) = &m.values else { unreachable!() };
        assert!(Arc::ptr_eq(&shared, held), "the weights are the constant's own array, not a copy");
    }
}
