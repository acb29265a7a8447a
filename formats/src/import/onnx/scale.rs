//! ONNX `Mul` and `Div` by a constant, `BatchNormalization` at inference, and the global pools.
//!
//! * `Mul(x, c)` (either order) is `v[i] * c[i]`: IEEE multiplication commutes exactly.
//! * `Div(x, c)` is `v[i] * (1 / c[i])` when every `c[i]` is a power of two, whose reciprocal is
//!   exact: `x / c` and `x · (1/c)` are then the same real number, rounded the same way (the
//!   verifier reads that scaling). Any other divisor is `v[i] / c[i]`, Ext-7's `/` (IEEE
//!   division; the verifier answers `unsupported` for it). `Div(c, x)` is refused.
//! * `BatchNormalization` (inference form) `(x − mean) / sqrt(var + ε) · scale + B` is folded
//!   per channel into `x · a + b` with `a = scale · (1 / sqrt(var + ε))` and `b = B − mean · a`,
//!   computed in binary64 from the model's parameters, each operation rounded, in that order:
//!   onnxruntime's own (its CPU kernel computes exactly these in float64; measured bit for bit
//!   on 12,288 elements of random float64 models, where ONNX's formula written out,
//!   `(x − mean) / sqrt(var + ε) · scale + B`, matched 51% of them and `scale / sqrt(var + ε)`
//!   86%: docs/importing.md).
//! * `GlobalAveragePool` and `GlobalMaxPool` are `avgPool2d` and `maxPool2d` over the whole
//!   image.

use super::*;
use crate::import::{Pool, PoolKind};

/// `Mul` of the vector and a constant.
pub(super) fn mul(graph: &mut Graph, node: &NodeProto) -> Result<Value, String> {
    if let [a @ Value::Vector { .. }, b @ Value::Vector { .. }] = &inputs::<2>(graph, node)? {
        // Two computed values: Ext-8's `mulTensor` (`arith.rs`).
        return super::super::arith::arith_computed(graph, node, a, b);
    }
    let (values, shape, _) = constant_operand(graph, node)?;
    graph.steps.push(Step::Mul(values));
    Ok(graph.next(shape))
}

/// `Div` of the vector by a constant: a scaling by the reciprocals when they are exact, else a
/// division.
pub(super) fn div(graph: &mut Graph, node: &NodeProto) -> Result<Value, String> {
    if let [a @ Value::Vector { .. }, b @ Value::Vector { .. }] = &inputs::<2>(graph, node)? {
        // Two computed values: Ext-8's `divTensor` (`arith.rs`).
        return super::super::arith::arith_computed(graph, node, a, b);
    }
    let (values, shape, vector_first) = constant_operand(graph, node)?;
    if !vector_first {
        return Err("it divides a constant by a computed value; knn imports Div by a constant".into());
    }
    let reciprocals: Option<Vec<f64>> = values.iter().map(|&c| exact_reciprocal(c)).collect();
    graph.steps.push(match reciprocals {
        Some(reciprocals) => Step::Mul(reciprocals),
        None => Step::Div(values),
    });
    Ok(graph.next(shape))
}

/// `1 / c` when it is exact and `x / c = x · (1 / c)` for every `x`: `c = ±2^k` with both `c`
/// and `1 / c` normal.
fn exact_reciprocal(c: f64) -> Option<f64> {
    let r = 1.0 / c;
    let power_of_two = c.is_normal() && c.to_bits() & ((1 << 52) - 1) == 0;
    (power_of_two && r.is_normal()).then_some(r)
}

/// `BatchNormalization(X, scale, B, mean, var)` at inference, folded per channel (axis 1).
pub(super) fn batch_normalization(graph: &mut Graph, node: &NodeProto) -> Result<Value, String> {
    if int_attribute(node, "training_mode", 0)? != 0 {
        return Err("training_mode = 1: knn imports networks for inference".into());
    }
    let [x, scale, bias, mean, var] = inputs::<5>(graph, node)?;
    let shape = graph.vector(&x, node)?;
    let channels = *shape.get(1).ok_or_else(|| format!("the input has shape {shape:?}, without a channel axis"))?;
    let parameter = |value: &Value, name: &str| match value {
        Value::Constant(c) if c.floats().len() == channels => Ok(c.floats()),
        Value::Constant(c) => Err(format!("{name} has {} values for {channels} channels", c.floats().len())),
        Value::Vector { .. } => Err(format!("{name} is computed, not a constant")),
    };
    let (scale, bias, mean, var) =
        (parameter(&scale, "scale")?, parameter(&bias, "B")?, parameter(&mean, "mean")?, parameter(&var, "var")?);
    let epsilon = f64::from(float_attribute(node, "epsilon", 1e-5)?);
    // onnxruntime's order: the reciprocal of the deviation, then the product (module note).
    let a: Vec<f64> = (0..channels).map(|c| scale[c] * (1.0 / (var[c] + epsilon).sqrt())).collect();
    let b: Vec<f64> = (0..channels).map(|c| bias[c] - mean[c] * a[c]).collect();
    if a.iter().chain(&b).any(|v| !v.is_finite()) {
        return Err("the folded scale or shift is not finite (a variance of −ε, or infinite parameters)".into());
    }
    // (C) broadcast along axis 1 of the value: dimensions (C, 1, …, 1).
    let dims: Vec<usize> = std::iter::once(channels).chain(std::iter::repeat_n(1, shape.len() - 2)).collect();
    let per_element = |v: &[f64]| broadcast(v, &dims, &shape).expect("(C, 1, …) broadcasts along axis 1");
    graph.steps.push(Step::Mul(per_element(&a)));
    graph.steps.push(Step::Add(per_element(&b)));
    Ok(graph.next(shape))
}

/// `GlobalAveragePool` or `GlobalMaxPool` of a `(1, C, H, W)` image: one window of `H × W`.
pub(super) fn global_pool(graph: &mut Graph, node: &NodeProto) -> Result<Value, String> {
    let [x] = inputs::<1>(graph, node)?;
    let shape = graph.vector(&x, node)?;
    let (&[c, h, w], [1, ..]) = (&graph.tensor[..], &shape[..]) else {
        return Err(format!("the input X has shape {shape:?}; knn imports pools of (1, C, H, W) images"));
    };
    if h == 0 || w == 0 {
        return Err(format!("the image is {h}×{w}: a global pool of no element"));
    }
    let kind = if node.op_type == "GlobalAveragePool" { PoolKind::Average { count_pad: false } } else { PoolKind::Max };
    let step = Pool { kind, input: [c, h, w], kernel: [h, w], strides: [1, 1], pads: [0; 4], dilations: [1, 1] };
    graph.steps.push(Step::Pool(step));
    Ok(graph.next_tensor(vec![1, c, 1, 1], vec![c, 1, 1]))
}

#[cfg(test)]
mod tests {
    use super::exact_reciprocal;

    #[test]
    fn only_powers_of_two_have_reciprocals_that_divide_exactly() {
        assert_eq!(exact_reciprocal(2.0), Some(0.5));
        assert_eq!(exact_reciprocal(-0.25), Some(-4.0));
        assert_eq!(exact_reciprocal(0.3081), None);
        assert_eq!(exact_reciprocal(3.0), None);
        assert_eq!(exact_reciprocal(0.0), None);
        assert_eq!(exact_reciprocal(f64::INFINITY), None);
        // 2^-1070 is subnormal; 2^1023's reciprocal 2^-1023 is too.
        assert_eq!(exact_reciprocal(2f64.powi(-1070)), None);
        assert_eq!(exact_reciprocal(2f64.powi(1023)), None);
        // x / 4 and x · 0.25 agree everywhere, subnormal results included.
        for x in [1.0, 3.0, f64::MIN_POSITIVE, 5e-324, 7e-310, f64::MAX, -0.0, f64::INFINITY] {
            assert_eq!((x / 4.0).to_bits(), (x * 0.25).to_bits(), "{x}");
        }
    }
}
