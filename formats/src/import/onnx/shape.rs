//! ONNX `Flatten` and `Reshape`. A vector stays a vector whatever its ONNX shape (`[1, 784]`,
//! `[1, 1, 28, 28]`): no step, the elements stay in C order; except in a graph that reads
//! images, where a `(1, C, H, W)` shape makes it the image `(C, H, W)` (`reshape`). An image, or any tensor of rank
//! two or more to K-NN, becomes K-NN's `flatten` when the new shape is a vector (at most one
//! dimension other than 1: `Flatten` with `axis = 1` of a `(1, C, H, W)` image, the usual
//! way to a `Gemm`), and `reshape` to the new shape (its leading batch dimension of 1
//! dropped, as the input's is) otherwise. A shape that keeps the tensor's writes nothing.

use super::*;

/// ONNX `Flatten`: the dimensions before `axis` and those from it on, multiplied.
pub(super) fn flatten(graph: &mut Graph, node: &NodeProto) -> Result<Value, String> {
    let [input] = inputs::<1>(graph, node)?;
    let shape = graph.vector(&input, node)?;
    let axis = axis(int_attribute(node, "axis", 1)?, shape.len())?;
    graph.reshaped(vec![shape[..axis].iter().product(), shape[axis..].iter().product()])
}

/// ONNX `Reshape` to a constant shape.
pub(super) fn reshape_node(graph: &mut Graph, node: &NodeProto) -> Result<Value, String> {
    let [input, target] = inputs::<2>(graph, node)?;
    let shape = graph.vector(&input, node)?;
    let Value::Constant(Constant { values: Values::Int(target), .. }) = target else {
        return Err("the target shape must be a constant int64 tensor".into());
    };
    let allow_zero = int_attribute(node, "allowzero", 0)? != 0;
    graph.reshaped(reshape(&shape, &target, allow_zero)?)
}

impl Graph {
    /// The current value under the ONNX shape `shape`: the same vector, or a `flatten` or
    /// `reshape` step of a tensor.
    pub(super) fn reshaped(&mut self, shape: Vec<usize>) -> Result<Value, String> {
        if self.tensor.len() == 1 {
            // A vector made an image for the convolutions or pools that follow (a dense layer's
            // output reshaped to `(1, C, H, W)`, VNN-COMP 2022's `cifar_biasfield`): K-NN's
            // `reshape` to `(C, H, W)`, the elements in the same C order.
            if let [1, c, h, w] = shape[..]
                && self.reads_images
            {
                self.steps.push(Step::Reshape(vec![c, h, w]));
                return Ok(self.next_tensor(shape, vec![c, h, w]));
            }
            return Ok(Value::Vector { generation: self.generation, shape });
        }
        // The K-NN shape: the ONNX one without its leading dimension of 1 (the batch), so that
        // a `(1, 1, H, W)` image stays an image of one channel.
        let kept: Vec<usize> = match &shape[..] {
            [1, rest @ ..] if !rest.is_empty() => rest.to_vec(),
            _ => shape.clone(),
        };
        if kept == self.tensor {
            return Ok(Value::Vector { generation: self.generation, shape });
        }
        let tensor = if shape.iter().filter(|&&d| d != 1).count() <= 1 { vec![shape.iter().product()] } else { kept };
        self.steps.push(Step::Reshape(tensor.clone()));
        Ok(self.next_tensor(shape, tensor))
    }
}

/// ONNX `Reshape`: `0` copies the input's dimension (unless `allowzero`), `-1` is inferred.
fn reshape(shape: &[usize], target: &[i64], allow_zero: bool) -> Result<Vec<usize>, String> {
    let total: usize = shape.iter().product();
    if allow_zero && target.contains(&0) && total != 0 {
        // With allowzero = 1 a 0 is an extent of 0, not a copy: a shape of no element.
        return Err(format!(
            "allowzero = 1 makes the 0 in the target shape {target:?} an extent of 0: no element, where the input has {total}"
        ));
    }
    let mut resolved = Vec::with_capacity(target.len());
    let mut inferred = None;
    for (axis, &d) in target.iter().enumerate() {
        match d {
            -1 if inferred.is_none() => {
                inferred = Some(axis);
                resolved.push(1);
            }
            0 if !allow_zero => {
                resolved.push(*shape.get(axis).ok_or("a 0 in the shape has no input dimension to copy")?)
            }
            d if d >= 0 => resolved.push(d as usize),
            _ => return Err(format!("invalid target shape {target:?}")),
        }
    }
    let known = element_count(&resolved).ok_or("the target shape is too large")?;
    if let Some(axis) = inferred
        && known > 0
        && total.is_multiple_of(known)
    {
        resolved[axis] = total / known;
    }
    if element_count(&resolved) != Some(total) {
        return Err(format!("cannot reshape {shape:?} ({total} elements) to {target:?}"));
    }
    Ok(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reshape_resolves_zero_and_minus_one() {
        assert_eq!(reshape(&[1, 1, 28, 28], &[1, -1], false).unwrap(), vec![1, 784]);
        assert_eq!(reshape(&[1, 5], &[0, 5], false).unwrap(), vec![1, 5]);
        assert_eq!(reshape(&[1, 5], &[-1], false).unwrap(), vec![5]);
        assert_eq!(reshape(&[1, 2, 3, 4], &[0, 0, -1], false).unwrap(), vec![1, 2, 12]);
        assert!(reshape(&[1, 5], &[2, -1], false).is_err());
        assert!(reshape(&[1, 5], &[-1, -1], false).is_err());
        assert!(reshape(&[1, 5], &[0, 5], true).unwrap_err().starts_with("allowzero = 1 makes the 0"));
        // allowzero = 1 without a 0 in the shape reads as 0.
        assert_eq!(reshape(&[1, 2, 3], &[1, -1], true).unwrap(), vec![1, 6]);
    }
}
