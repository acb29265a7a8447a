//! `Add`, `Sub`, `Mul`, `Div` of two computed values whose shapes differ but broadcast
//! (NumPy's rule, ONNX's multidirectional broadcasting): Ext-8's `addTensor`, `subTensor`,
//! `mulTensor`, `divTensor`, each element one IEEE operation on the operands' elements at their
//! broadcast indices, as ONNX computes it. (Two values of one shape added or subtracted stay
//! Ext-1's `addTensor`, `branch.rs`.)

use knn_semantics::broadcast::broadcast;
use knn_semantics::syntax::TensorOp;

use super::branch::both_operands;
use super::proto::NodeProto;
use super::{Graph, Value};
use crate::import::Step;

/// The function of two computed values: each operand first given its ONNX shape without the
/// batch dimension (`reshape`, when knn holds it otherwise, e.g. flat), the left one kept; a
/// result whose shape, without its leading 1s, is not ONNX's is refused.
pub(super) fn arith_computed(graph: &mut Graph, node: &NodeProto, a: &Value, b: &Value) -> Result<Value, String> {
    let (Value::Vector { generation: ga, shape: sa }, Value::Vector { generation: gb, shape: sb }) = (a, b) else {
        unreachable!("two computed values")
    };
    let (op, verb) = match node.op_type.as_str() {
        "Add" => (None, "adds"),
        "Sub" => (Some(TensorOp::Sub), "subtracts"),
        "Mul" => (Some(TensorOp::Mul), "multiplies"),
        _ => (Some(TensorOp::Div), "divides"),
    };
    let as_i64 = |d: &[usize]| d.iter().map(|&n| n as i64).collect::<Vec<i64>>();
    let unbatched = |d: &[usize]| if d.len() >= 2 && d[0] == 1 { d[1..].to_vec() } else { d.to_vec() };
    let (ta, tb) = (unbatched(sa), unbatched(sb));
    let without_ones = |d: &[i64]| d.iter().skip_while(|&&n| n == 1).copied().collect::<Vec<i64>>();
    let (Some(onnx), Some(knn)) = (broadcast(&as_i64(sa), &as_i64(sb)), broadcast(&as_i64(&ta), &as_i64(&tb))) else {
        return Err(format!(
            "it {verb} computed values of shapes {sa:?} and {sb:?}, which do not broadcast (NumPy's rule)"
        ));
    };
    if without_ones(&onnx) != without_ones(&knn) {
        return Err(format!(
            "it {verb} computed values of shapes {sa:?} and {sb:?}, whose result without the batch dimension is not ONNX's"
        ));
    }
    let left = both_operands(graph, node, (*ga, *gb), (&ta, &tb))?;
    let output: Vec<usize> = knn.iter().map(|&n| n as usize).collect();
    graph.steps.push(Step::ArithKept { slot: left, op, output: output.clone() });
    graph.tensor = output;
    graph.advance();
    Ok(Value::Vector { generation: graph.generation, shape: onnx.iter().map(|&n| n as usize).collect() })
}
