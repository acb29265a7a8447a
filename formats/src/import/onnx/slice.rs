//! ONNX `Slice` as K-NN's `slice` (Ext-12), one per sliced axis, on the value without its batch
//! dimension of 1. Opset 1–9 give `starts`, `ends` and `axes` as attributes; opset 10 on as
//! inputs, with `steps`, which must be constants. ONNX's indices are resolved here, as ONNX
//! resolves them, into the unsigned, unclamped ones K-NN writes: a negative start or end counts
//! from the end of its axis, then both are clamped to `0 … extent` (`INT_MAX` ends included),
//! and an end before its start is an empty range. Steps below 1 (slicing backwards) are refused.

use super::*;

/// ONNX `Slice`.
pub(super) fn slice(graph: &mut Graph, node: &NodeProto) -> Result<Value, String> {
    let x = lookup(graph, node.input.first().ok_or("the node has no input")?)?;
    let shape = graph.vector(&x, node)?;
    let &[1, ref rest @ ..] = &shape[..] else {
        return Err(format!("the input has shape {shape:?}; knn imports a batch of one, (1, …)"));
    };
    let constant = |index: usize, what: &str| -> Result<Option<Vec<i64>>, String> {
        let Some(name) = node.input.get(index).filter(|n| !n.is_empty()) else { return Ok(None) };
        match lookup(graph, name)? {
            Value::Constant(Constant { values: Values::Int(v), .. }) => Ok(Some(v)),
            _ => Err(format!("its {what} (input `{name}`) must be a constant int64 tensor")),
        }
    };
    let listed = |name: &str| attribute(node, name).map(|a| a.ints.clone());
    let (starts, ends, axes, steps) = if graph.opset < 10 {
        (listed("starts"), listed("ends"), listed("axes"), None)
    } else {
        (constant(1, "starts")?, constant(2, "ends")?, constant(3, "axes")?, constant(4, "steps")?)
    };
    let (Some(starts), Some(ends)) = (starts, ends) else { return Err("it needs its starts and ends".into()) };
    let axes = axes.unwrap_or_else(|| (0..starts.len() as i64).collect());
    let steps = steps.unwrap_or_else(|| vec![1; starts.len()]);
    if ends.len() != starts.len() || axes.len() != starts.len() || steps.len() != starts.len() {
        return Err("its starts, ends, axes and steps have different lengths".into());
    }
    let mut output = shape.clone();
    let mut slices: Vec<(usize, usize, usize, usize)> = Vec::new();
    for (k, &axis) in axes.iter().enumerate() {
        let a = axis_of(axis, shape.len())?;
        if axes[..k].iter().any(|&b| axis_of(b, shape.len()) == Ok(a)) {
            return Err(format!("the axes {axes:?} name an axis twice"));
        }
        let step = steps[k];
        if step < 1 {
            return Err(format!("a step of {step} along axis {axis}: knn slices forward only"));
        }
        let (begin, end) = resolve(starts[k], ends[k], shape[a]);
        if a == 0 {
            if (begin, end) != (0, 1) {
                return Err("a slice of the batch axis (knn imports a batch of one)".into());
            }
            continue;
        }
        let step = usize::try_from(step).unwrap_or(usize::MAX);
        output[a] = if end == begin { 0 } else { (end - begin - 1) / step + 1 };
        if (begin, end, output[a]) != (0, shape[a], shape[a]) {
            slices.push((a - 1, begin, end, step));
        }
    }
    if slices.is_empty() {
        // Every axis whole: the values are the elements.
        return Ok(x);
    }
    if graph.tensor != rest {
        graph.steps.push(Step::Reshape(rest.to_vec()));
    }
    let mut tensor = rest.to_vec();
    slices.sort_unstable();
    for (axis, begin, end, step) in slices {
        tensor[axis] = output[axis + 1];
        graph.steps.push(Step::Slice { axis, begin, end, step, output: tensor.clone() });
    }
    graph.tensor = tensor;
    graph.advance();
    graph.reshaped(output)
}

/// ONNX's start and end on an axis of `extent`: negative ones from the end, then clamped to
/// `0 … extent`; an end before the start is the empty range at the start.
fn resolve(start: i64, end: i64, extent: usize) -> (usize, usize) {
    let extent_i = i64::try_from(extent).unwrap_or(i64::MAX);
    let clamp = |i: i64| {
        let i = if i < 0 { i.saturating_add(extent_i) } else { i };
        i.clamp(0, extent_i) as usize
    };
    let (begin, end) = (clamp(start), clamp(end));
    (begin, end.max(begin))
}

/// The axis `axis` of a value of rank `rank` (negative: from the end).
fn axis_of(axis: i64, rank: usize) -> Result<usize, String> {
    let resolved = if axis < 0 { axis + rank as i64 } else { axis };
    usize::try_from(resolved)
        .ok()
        .filter(|&a| a < rank)
        .ok_or_else(|| format!("the axis {axis} is not an axis of a value of rank {rank}"))
}

#[cfg(test)]
mod tests {
    use super::resolve;

    #[test]
    fn starts_and_ends_resolve_as_onnx_resolves_them() {
        assert_eq!(resolve(1, 3, 5), (1, 3));
        assert_eq!(resolve(-2, i64::MAX, 5), (3, 5), "from the end; INT_MAX clamped");
        assert_eq!(resolve(0, -1, 5), (0, 4));
        assert_eq!(resolve(-10, 10, 5), (0, 5), "clamped at both ends");
        assert_eq!(resolve(4, 2, 5), (4, 4), "an end before the start: empty");
        assert_eq!(resolve(i64::MIN, i64::MIN, 5), (0, 0));
    }
}
