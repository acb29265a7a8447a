//! ONNX `Gemm(A, B, C) = alpha · A' B' + beta · C`, `A'` and `B'` transposed or not (`transA`,
//! `transB`), `C` optional and broadcast to the product's shape (ONNX's unidirectional rule).
//!
//! * One of `A`, `B` the vector (one row `(1, K)` on the left, one column `(K, 1)` on the
//!   right, after its flag) and the other a constant matrix: `linear` with the constant (or its
//!   transpose, taken when importing) as the weights, as a dense layer is.
//! * Anything else of rank 2 (two computed values, a constant times a computed matrix, a
//!   computed matrix of several rows): Ext-15's `matmul` of the two operands, each given its
//!   ONNX shape (`reshape`), a computed one transposed by Ext-6's `transpose` where its flag is
//!   set, a constant one written as a tensor literal (`Step::Literal`, Ext-2) transposed when
//!   importing.
//!
//! Then, in both, the product scaled by `alpha` (left out when it is 1) and `beta · C` added: a
//! constant `C` as a bias, `beta · C` computed when importing (one rounding, as onnxruntime's
//! `C · beta`); a computed `C` scaled by `beta` (left out when 1), then added by Ext-8's
//! broadcasting `addTensor`. With `beta = 0` no `C` is added, as onnxruntime does (it does
//! not read `C` then).
//!
//! onnxruntime's CPU kernel (MLAS) computes the same operations in the same order, but with
//! fused multiply-adds: each product's sum `fma(a, b, acc)` in increasing order from 0, then
//! `fma(alpha, sum, beta · C)`. K-NN states `matmul` and `linear` without fusion (each
//! multiply and add rounded), so the results agree to a few units in the last place, not bit
//! for bit (measured: docs/importing.md).

use super::super::branch::shaped_as;
use super::*;

/// `Gemm`, either form.
pub(super) fn gemm(graph: &mut Graph, node: &NodeProto) -> Result<Value, String> {
    let (alpha, beta) = (float_attribute(node, "alpha", 1.0)?, float_attribute(node, "beta", 1.0)?);
    let (trans_a, trans_b) = (int_attribute(node, "transA", 0)? != 0, int_attribute(node, "transB", 0)? != 0);
    if !(2..=3).contains(&node.input.len()) {
        return Err(format!("expected 2 or 3 inputs, found {}", node.input.len()));
    }
    let a = lookup(graph, &node.input[0])?;
    let b = lookup(graph, &node.input[1])?;
    let c = match node.input.get(2).filter(|name| !name.is_empty()) {
        Some(name) if beta != 0.0 => Some(lookup(graph, name)?),
        _ => None,
    };
    // A computed C that is the current value (`Gemm(x, W, x)`) is read after the product: kept.
    if let Some(Value::Vector { generation, .. }) = &c
        && *generation == graph.generation
    {
        graph.keep_current();
    }
    let is_vector = |graph: &Graph, value: &Value| match value {
        Value::Vector { generation, .. } => graph.tensor_of(*generation).is_some_and(|t| t.len() == 1),
        Value::Constant(_) => false,
    };
    let (m, n) = match (&a, &b) {
        (Value::Constant(_), Value::Constant(_)) => {
            return Err("it computes on constants only; fold them before exporting".into());
        }
        // x'(1, K) B'(K, N): the weights are B'ᵀ, of shape (N, K).
        (Value::Vector { shape, .. }, Value::Constant(w))
            if matches!((trans_a, &shape[..]), (false, [1, _]) | (true, [_, 1])) && is_vector(graph, &a) =>
        {
            let shape = graph.vector(&a, node)?;
            let (rows, cols, weights) = super::weights(w, !trans_b)?;
            dense(graph, (rows, cols, weights), &shape)?;
            (1, rows)
        }
        // A'(M, K) x'(K, 1): the weights are A', of shape (M, K).
        (Value::Constant(w), Value::Vector { shape, .. })
            if matches!((trans_b, &shape[..]), (false, [_, 1]) | (true, [1, _])) && is_vector(graph, &b) =>
        {
            let shape = graph.vector(&b, node)?;
            let (rows, cols, weights) = super::weights(w, trans_a)?;
            dense(graph, (rows, cols, weights), &shape)?;
            (rows, 1)
        }
        _ => product(graph, node, (&a, trans_a), (&b, trans_b))?,
    };
    scale_and_bias(graph, node, (f64::from(alpha), f64::from(beta)), c.as_ref(), (m, n))?;
    // A row or a column is a vector to K-NN, as `linear` makes it (`Graph::reshaped`).
    if m == 1 || n == 1 {
        shaped_as(graph, &[m * n])?;
    }
    Ok(Value::Vector { generation: graph.generation, shape: vec![m, n] })
}

/// `linear` of the current vector (of ONNX shape `shape`) by the weights `(rows, cols)`.
fn dense(graph: &mut Graph, (rows, cols, weights): (usize, usize, Arc<[f64]>), shape: &[usize]) -> Result<(), String> {
    graph.expect_vector()?;
    let len: usize = shape.iter().product();
    if len != cols {
        return Err(format!("the weight matrix expects {cols} inputs, the vector has {len}"));
    }
    graph.steps.push(Step::Linear { rows, cols, weights });
    graph.tensor = vec![rows];
    graph.advance();
    Ok(())
}

/// The shape of operand `name` (`A` or `B`) after its flag: `(rows, cols)`.
fn matrix(value: &Value, name: &str, transposed: bool) -> Result<(usize, usize), String> {
    let dims = match value {
        Value::Vector { shape, .. } => shape,
        Value::Constant(c) => &c.dims,
    };
    match dims[..] {
        [r, c] if transposed => Ok((c, r)),
        [r, c] => Ok((r, c)),
        _ => Err(format!("{name} has shape {dims:?}; Gemm multiplies matrices (rank 2)")),
    }
}

/// `A' B'` by `matmul`: `A'` taken up (or written), kept, then `B'` current, then their product
/// current, of shape `(M, N)`.
fn product(
    graph: &mut Graph,
    node: &NodeProto,
    a: (&Value, bool),
    b: (&Value, bool),
) -> Result<(usize, usize), String> {
    let ((m, k), (k_b, n)) = (matrix(a.0, "A", a.1)?, matrix(b.0, "B", b.1)?);
    if k != k_b {
        return Err(format!(
            "A' is {m}×{k} and B' is {k_b}×{n} (after transA = {}, transB = {}): the inner extents differ",
            u8::from(a.1),
            u8::from(b.1)
        ));
    }
    // The same value on both sides (`Gemm(x, x)`): kept before A' is made from it.
    if let (Value::Vector { generation: ga, .. }, Value::Vector { generation: gb, .. }) = (a.0, b.0)
        && ga == gb
    {
        graph.carry(*ga, &node.input[0])?;
        graph.keep_current();
    }
    operand(graph, a.0, &node.input[0], a.1)?;
    graph.keep_current();
    let left = graph.generation;
    if let Value::Vector { generation, .. } = b.0
        && *generation != graph.generation
        && !graph.kept.contains_key(generation)
    {
        return Err(format!("it reads `{}`, an earlier value that was not kept", node.input[1]));
    }
    operand(graph, b.0, &node.input[1], b.1)?;
    graph.steps.push(Step::MatmulKept { slot: left, kept_first: true, output: vec![m, n] });
    graph.tensor = vec![m, n];
    graph.advance();
    Ok((m, n))
}

/// Makes operand `name` the current tensor, as the matrix its flag says: a computed value in
/// its ONNX shape, transposed (a reshape when one of its extents is 1); a constant as a tensor
/// literal, transposed here.
fn operand(graph: &mut Graph, value: &Value, name: &str, transposed: bool) -> Result<(), String> {
    match value {
        Value::Vector { generation, shape } => {
            graph.carry(*generation, name)?;
            shaped_as(graph, shape)?;
            let (r, c) = (shape[0], shape[1]);
            if transposed && r != 1 && c != 1 {
                graph.steps.push(Step::Transpose { perm: vec![1, 0], output: vec![c, r] });
                graph.tensor = vec![c, r];
                graph.advance();
            } else if transposed {
                shaped_as(graph, &[c, r])?;
            }
        }
        Value::Constant(constant) => {
            // The current value is left for the literal: kept when this node or a later one
            // reads it.
            if graph.read_from(graph.generation, graph.position) {
                graph.keep_current();
            }
            let (rows, cols, values) = super::weights(constant, transposed)?;
            graph.steps.push(Step::Literal { dims: vec![rows, cols], values });
            graph.tensor = vec![rows, cols];
            graph.advance();
        }
    }
    Ok(())
}

/// The current product `(m, n)` times `alpha`, then `beta · C` added.
fn scale_and_bias(
    graph: &mut Graph,
    node: &NodeProto,
    (alpha, beta): (f64, f64),
    c: Option<&Value>,
    (m, n): (usize, usize),
) -> Result<(), String> {
    let len = m * n;
    if alpha != 1.0 {
        graph.steps.push(Step::Mul(vec![alpha; len]));
    }
    match c {
        None => {}
        Some(Value::Constant(c)) => {
            let bias = broadcast(&c.floats(), &c.dims, &[m, n])
                .ok_or_else(|| format!("C has shape {:?}, which does not broadcast to {:?}", c.dims, [m, n]))?;
            graph.steps.push(Step::Add(if beta == 1.0 { bias } else { bias.iter().map(|c| beta * c).collect() }));
        }
        Some(Value::Vector { generation, shape }) => {
            let as_i64 = |d: &[usize]| d.iter().map(|&x| x as i64).collect::<Vec<i64>>();
            let output = [m as i64, n as i64];
            if shape.len() > 2 || knn_semantics::broadcast::broadcast(&as_i64(shape), &output) != Some(output.to_vec())
            {
                return Err(format!("C has shape {shape:?}, which does not broadcast to {:?}", [m, n]));
            }
            // The product in its ONNX shape, kept; then `beta · C`; then their sum.
            if alpha != 1.0 {
                graph.advance();
            }
            shaped_as(graph, &[m, n])?;
            graph.keep_current();
            let product = graph.generation;
            graph.carry(*generation, &node.input[2])?;
            shaped_as(graph, if shape.is_empty() { &[1] } else { shape })?;
            if beta != 1.0 {
                graph.steps.push(Step::Mul(vec![beta; shape.iter().product()]));
                graph.advance();
            }
            graph.steps.push(Step::ArithKept { slot: product, op: None, output: vec![m, n] });
            graph.tensor = vec![m, n];
            graph.advance();
            return Ok(());
        }
    }
    if alpha != 1.0 || c.is_some() {
        graph.advance();
    }
    Ok(())
}
