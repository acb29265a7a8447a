//! A classifier's last operators: ONNX `Softmax` and `LogSoftmax` as Ext-9's `softmax` and
//! `logSoftmax`, and `ReduceSum`, `ReduceMean`, `ReduceMax`, `ReduceMin` as Ext-10's
//! reductions, on the value without its batch dimension of 1.
//!
//! - `Softmax(axis)`: from opset 13 along the one axis (default `-1`); before, over the
//!   dimensions from `axis` (default `1`) on, flattened into one, so the tensor is first
//!   reshaped to those two extents. Negative axes count from the end.
//! - `Reduce*(axes, keepdims)`: the axes an attribute (before opset 13 for `ReduceSum`, 18 for
//!   the others) or the second input; none means every axis (or nothing, with
//!   `noop_with_empty_axes`). K-NN's reductions drop the reduced axes; `keepdims` only changes
//!   the ONNX shape the next node sees. The batch axis, of extent 1, is not reduced (its
//!   elements are the elements).

use super::*;
use crate::import::Reduction;

/// The axis `axis` of a value of rank `rank` (negative: from the end).
fn axis_of(axis: i64, rank: usize) -> Result<usize, String> {
    let resolved = if axis < 0 { axis + rank as i64 } else { axis };
    usize::try_from(resolved)
        .ok()
        .filter(|&a| a < rank)
        .ok_or_else(|| format!("the axis {axis} is not an axis of a value of rank {rank}"))
}

/// ONNX `Softmax` and `LogSoftmax`.
pub(super) fn softmax(graph: &mut Graph, node: &NodeProto) -> Result<Value, String> {
    let [x] = inputs::<1>(graph, node)?;
    let shape = graph.vector(&x, node)?;
    let log = node.op_type == "LogSoftmax";
    let &[1, ref rest @ ..] = &shape[..] else {
        return Err(format!("the input has shape {shape:?}; knn imports a batch of one, (1, …)"));
    };
    if rest.is_empty() {
        return Err("the input has no dimension beside the batch".into());
    }
    let one_axis = graph.opset >= 13;
    let axis = axis_of(int_attribute(node, "axis", if one_axis { -1 } else { 1 })?, shape.len())?;
    // The K-NN tensor the softmax reads, and its axis.
    let (tensor, knn_axis) = match (one_axis, axis) {
        (_, 0) if !one_axis => (vec![rest.iter().product()], 0),
        (true, 0) => return Err("a softmax along the batch axis (every element is 1)".into()),
        (true, a) => (rest.to_vec(), a - 1),
        (false, a) => (vec![shape[1..a].iter().product(), shape[a..].iter().product()], 1),
    };
    let tensor: Vec<usize> =
        if tensor.len() > 1 && tensor[..knn_axis].iter().chain(&tensor[knn_axis + 1..]).all(|&d| d == 1) {
            // Only the softmax's axis has more than one element: a vector.
            vec![tensor[knn_axis]]
        } else {
            tensor
        };
    let knn_axis = if tensor.len() == 1 { 0 } else { knn_axis };
    if graph.tensor != tensor {
        graph.steps.push(Step::Reshape(tensor.clone()));
    }
    graph.steps.push(Step::Softmax { axis: knn_axis, log });
    graph.tensor = tensor;
    graph.advance();
    graph.reshaped(shape)
}

/// ONNX `ReduceSum`, `ReduceMean`, `ReduceMax`, `ReduceMin`.
pub(super) fn reduce(graph: &mut Graph, node: &NodeProto) -> Result<Value, String> {
    let x = lookup(graph, node.input.first().ok_or("the node has no input")?)?;
    let shape = graph.vector(&x, node)?;
    let kind = match node.op_type.as_str() {
        "ReduceSum" => Reduction::Sum,
        "ReduceMean" => Reduction::Mean,
        "ReduceMax" => Reduction::Max,
        _ => Reduction::Min,
    };
    let &[1, ref rest @ ..] = &shape[..] else {
        return Err(format!("the input has shape {shape:?}; knn imports a batch of one, (1, …)"));
    };
    let axes: Vec<i64> = match (attribute(node, "axes"), node.input.get(1).filter(|n| !n.is_empty())) {
        (Some(a), _) => a.ints.clone(),
        (None, Some(name)) => match lookup(graph, name)? {
            Value::Constant(Constant { values: Values::Int(v), .. }) => v,
            _ => return Err("the axes must be a constant int64 tensor".into()),
        },
        (None, None) => Vec::new(),
    };
    let keep_dims = int_attribute(node, "keepdims", 1)? != 0;
    let mut reduced: Vec<usize> = if axes.is_empty() {
        if int_attribute(node, "noop_with_empty_axes", 0)? != 0 {
            return Ok(x);
        }
        (0..shape.len()).collect()
    } else {
        axes.iter().map(|&a| axis_of(a, shape.len())).collect::<Result<_, _>>()?
    };
    reduced.sort_unstable();
    if reduced.windows(2).any(|w| w[0] == w[1]) {
        return Err(format!("the axes {axes:?} name an axis twice"));
    }
    let output: Vec<usize> = (0..shape.len())
        .filter_map(|a| match (reduced.contains(&a), keep_dims) {
            (false, _) => Some(shape[a]),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect();
    // The axes of the K-NN tensor (the value without its batch axis) that are reduced.
    let knn_axes: Vec<usize> = reduced.iter().filter(|&&a| a > 0).map(|&a| a - 1).collect();
    if knn_axes.is_empty() {
        // Only the batch axis, of one element: the values are the elements.
        return graph.reshaped(output);
    }
    if graph.tensor != rest {
        graph.steps.push(Step::Reshape(rest.to_vec()));
    }
    let kept: Vec<usize> = (0..rest.len()).filter(|a| !knn_axes.contains(a)).map(|a| rest[a]).collect();
    let tensor = if kept.is_empty() { vec![1] } else { kept };
    graph.steps.push(Step::Reduce { kind, axes: knn_axes, output: tensor.clone() });
    graph.tensor = tensor;
    graph.advance();
    graph.reshaped(output)
}

#[cfg(test)]
mod tests {
    use super::axis_of;

    #[test]
    fn negative_axes_count_from_the_end_and_others_are_refused() {
        assert_eq!(axis_of(-1, 2), Ok(1));
        assert_eq!(axis_of(-2, 2), Ok(0));
        assert_eq!(axis_of(1, 2), Ok(1));
        assert!(axis_of(2, 2).unwrap_err().contains("not an axis of a value of rank 2"));
        assert!(axis_of(-3, 2).is_err());
    }
}
