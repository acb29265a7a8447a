//! Graphs that branch: a value read by several nodes (a residual block's input), and `Add` or
//! `Sub` of two computed values (the block's sum).
//!
//! The nodes are walked in their order, which ONNX requires to be topological (checked first:
//! [`check_order`]). The walk carries one value at a time, the current one, as the chain
//! always did. A node that reads another value takes it up with [`Step::Resume`]; a value some
//! later node still reads is kept first with [`Step::Keep`], so that no element-wise step
//! writes it in place and the emitter can name it again. Whether a value is read later is known
//! from the index of the last node that reads each name ([`last_reads`]).
//!
//! `Add(a, b)` of two computed values of the same shape is `addTensor(a, b)` (Ext-1),
//! `a[i…] + b[i…]` element by element; `Sub(a, b)` is `addTensor(a, -1.0 · b)`, which IEEE 754
//! defines to be `a - b` exactly (the negation is exact, and `x - y` is `x + (-y)`).
//! `Concat(a, b)` of two computed values is `concat(a, b, axis)` (Ext-11) the same way.

use std::collections::HashMap;

use knn_semantics::matmul::matmul_shape;

use super::proto::{GraphProto, NodeProto};
use super::{Graph, Value, node_location};
use crate::import::Step;

/// For each value name, the index of the last node that reads it; the graph's outputs count
/// as read after every node.
pub(super) fn last_reads(graph: &GraphProto) -> HashMap<String, usize> {
    let mut last = HashMap::new();
    for (index, node) in graph.node.iter().enumerate() {
        for input in node.input.iter().filter(|name| !name.is_empty()) {
            last.insert(input.clone(), index);
        }
    }
    for output in &graph.output {
        last.insert(output.name.clone(), usize::MAX);
    }
    last
}

/// Refuses a graph whose nodes are not in topological order (ONNX requires it; a cycle cannot
/// be): the first node that reads a value only a later node (or itself) computes, named with
/// that node. `known` tells the names given before any node (initializers, graph inputs).
pub(super) fn check_order(graph: &GraphProto, known: impl Fn(&str) -> bool) -> Result<(), (String, String)> {
    let mut producer: HashMap<&str, usize> = HashMap::new();
    for (index, node) in graph.node.iter().enumerate() {
        for output in node.output.iter().filter(|name| !name.is_empty()) {
            producer.entry(output.as_str()).or_insert(index);
        }
    }
    for (index, node) in graph.node.iter().enumerate() {
        for input in node.input.iter().filter(|name| !name.is_empty() && !known(name)) {
            match producer.get(input.as_str()) {
                Some(&later) if later >= index => {
                    let by = if later == index {
                        "itself (a cycle)".to_string()
                    } else {
                        node_location(later, &graph.node[later])
                    };
                    return Err((
                        node_location(index, node),
                        format!(
                            "it reads `{input}`, which {by} computes: the nodes are not in topological order (ONNX requires every value to be computed before it is read, so a graph cannot have a cycle)"
                        ),
                    ));
                }
                _ => {}
            }
        }
    }
    Ok(())
}

impl Graph {
    /// A new value of the chain, after the steps just pushed: the current one.
    pub(super) fn advance(&mut self) {
        self.made += 1;
        self.generation = self.made;
    }

    /// Whether a node at `from` or after it, or the graph's output, reads the value of
    /// `generation` (under any of its names: `Identity` and reshapes of a vector give it more).
    pub(super) fn read_from(&self, generation: usize, from: usize) -> bool {
        self.values.iter().any(|(name, value)| {
            matches!(value, Value::Vector { generation: g, .. } if *g == generation)
                && self.last_read.get(name).is_some_and(|&last| last >= from)
        })
    }

    /// Keeps the current value (once) for a later reader.
    pub(super) fn keep_current(&mut self) {
        if !self.kept.contains_key(&self.generation) {
            self.steps.push(Step::Keep(self.generation));
            self.kept.insert(self.generation, self.tensor.clone());
        }
    }

    /// Makes the value of `generation` the current one, for the node being translated to
    /// compute on: the current value is kept first when a node from this one on reads it, and
    /// the value taken up is kept when a node after this one reads it too (this node's steps
    /// may write it in place).
    pub(super) fn carry(&mut self, generation: usize, name: &str) -> Result<(), String> {
        if generation != self.generation {
            let Some(tensor) = self.kept.get(&generation).cloned() else {
                // Every value read later is kept when the walk leaves it: not a path a model takes.
                return Err(format!("it reads `{name}`, an earlier value that was not kept"));
            };
            if self.read_from(self.generation, self.position) {
                self.keep_current();
            }
            self.steps.push(Step::Resume(generation));
            self.generation = generation;
            self.tensor = tensor;
        }
        if self.read_from(generation, self.position + 1) {
            self.keep_current();
        }
        Ok(())
    }

    /// At the end of the walk: the output's value made current when it is an earlier one (a
    /// graph whose last nodes compute something else).
    pub(super) fn finish_on(&mut self, generation: usize) -> Result<(), String> {
        if generation != self.generation {
            let tensor = self.kept.get(&generation).cloned().ok_or("an earlier value that was not kept")?;
            self.steps.push(Step::Resume(generation));
            self.generation = generation;
            self.tensor = tensor;
        }
        Ok(())
    }
}

/// `Add` or `Sub` of two computed values of the same shape: `addTensor` of one kept and the
/// other current (the second operand of a `Sub` negated first, as the current one).
pub(super) fn add_computed(graph: &mut Graph, node: &NodeProto, a: &Value, b: &Value) -> Result<Value, String> {
    let (Value::Vector { generation: ga, shape: sa }, Value::Vector { generation: gb, shape: sb }) = (a, b) else {
        unreachable!("two computed values")
    };
    let (ka, kb) = (graph.tensor_of(*ga), graph.tensor_of(*gb));
    if sa != sb || ka != kb {
        // `ops.rs` sends shapes that differ to Ext-8's broadcasting functions (`arith.rs`).
        return Err(format!("it adds computed values of shapes {sa:?} and {sb:?}, which differ"));
    }
    let subtract = node.op_type == "Sub";
    // The operand carried on: `b` for a `Sub` (it is negated) or when it is current already.
    let carried_is_b = subtract || (*gb == graph.generation && *ga != graph.generation);
    let (carried, other) = if carried_is_b { (*gb, *ga) } else { (*ga, *gb) };
    let names = (&node.input[0], &node.input[1]);
    let (carried_name, other_name) = if carried_is_b { (names.1, names.0) } else { (names.0, names.1) };
    // The other operand is read by this node after the carried one's steps: it must be kept.
    if other == graph.generation {
        graph.keep_current();
    } else if !graph.kept.contains_key(&other) {
        return Err(format!("it reads `{other_name}`, an earlier value that was not kept"));
    }
    graph.carry(carried, carried_name)?;
    if subtract {
        // -1.0 · x is exact, and a + (-b) is a - b (IEEE 754).
        graph.steps.push(Step::Mul(vec![-1.0; sa.iter().product()]));
        graph.advance();
    }
    graph.steps.push(Step::AddKept { slot: other, kept_first: carried_is_b });
    graph.advance();
    Ok(Value::Vector { generation: graph.generation, shape: sa.clone() })
}

impl Graph {
    /// The K-NN shape of a value: the current one's, or a kept one's.
    pub(super) fn tensor_of(&self, generation: usize) -> Option<Vec<usize>> {
        if generation == self.generation { Some(self.tensor.clone()) } else { self.kept.get(&generation).cloned() }
    }
}

/// `Concat` of two computed values along `axis` (ONNX's; negative counts from the end):
/// Ext-11's `concat` of one kept and the other current, in the graph's order. Both are read as
/// K-NN tensors of their ONNX shapes without the batch (the current one reshaped to it when it
/// is not), so the axis is the ONNX one less 1.
pub(super) fn concat_computed(
    graph: &mut Graph,
    node: &NodeProto,
    a: &Value,
    b: &Value,
    axis: i64,
) -> Result<Value, String> {
    let (Value::Vector { generation: ga, shape: sa }, Value::Vector { generation: gb, shape: sb }) = (a, b) else {
        unreachable!("two computed values")
    };
    let rank = sa.len();
    let resolved = if axis < 0 { axis + rank as i64 } else { axis };
    let Some(axis) = usize::try_from(resolved).ok().filter(|&x| x < rank) else {
        return Err(format!("the axis {axis} is not an axis of a value of rank {rank}"));
    };
    if axis == 0 {
        return Err("a concatenation along the batch axis (knn imports a batch of one)".into());
    }
    if sb.len() != rank || (0..rank).any(|i| i != axis && sa[i] != sb[i]) {
        return Err(format!(
            "it concatenates values of shapes {sa:?} and {sb:?} along axis {axis}: they must agree on every other axis"
        ));
    }
    let carried_is_b = *gb == graph.generation && *ga != graph.generation;
    let (carried, other) = if carried_is_b { (*gb, *ga) } else { (*ga, *gb) };
    let names = (&node.input[0], &node.input[1]);
    let (carried_name, other_name) = if carried_is_b { (names.1, names.0) } else { (names.0, names.1) };
    let (carried_shape, other_shape) = if carried_is_b { (sb, sa) } else { (sa, sb) };
    if graph.tensor_of(other).as_deref() != Some(&other_shape[1..]) {
        return Err(format!(
            "it reads `{other_name}` as a tensor of shape {:?}: knn concatenates values held in their ONNX shapes without the batch",
            &other_shape[1..]
        ));
    }
    // The other operand is read by this node after the carried one's steps: it must be kept.
    if other == graph.generation {
        graph.keep_current();
    } else if !graph.kept.contains_key(&other) {
        return Err(format!("it reads `{other_name}`, an earlier value that was not kept"));
    }
    graph.carry(carried, carried_name)?;
    if graph.tensor != carried_shape[1..] {
        graph.steps.push(Step::Reshape(carried_shape[1..].to_vec()));
        graph.tensor = carried_shape[1..].to_vec();
    }
    let mut output = sa.clone();
    output[axis] = sa[axis] + sb[axis];
    let tensor = output[1..].to_vec();
    graph.steps.push(Step::ConcatKept {
        slot: other,
        kept_first: carried_is_b,
        axis: axis - 1,
        output: tensor.clone(),
    });
    graph.tensor = tensor;
    graph.advance();
    Ok(Value::Vector { generation: graph.generation, shape: output })
}

/// `MatMul` of two computed values: `matmul` (Ext-15) of one kept and the other current. Each
/// operand is first given its ONNX shape without the batch dimension (`reshape`, when knn holds
/// it otherwise, e.g. flat), so that the product's elements are ONNX's in the same order; a
/// product whose shape is not then ONNX's without its leading 1s is refused.
pub(super) fn matmul_computed(graph: &mut Graph, node: &NodeProto, a: &Value, b: &Value) -> Result<Value, String> {
    let (Value::Vector { generation: ga, shape: sa }, Value::Vector { generation: gb, shape: sb }) = (a, b) else {
        unreachable!("two computed values")
    };
    let as_i64 = |d: &[usize]| d.iter().map(|&n| n as i64).collect::<Vec<i64>>();
    let unbatched = |d: &[usize]| if d.len() >= 2 && d[0] == 1 { d[1..].to_vec() } else { d.to_vec() };
    let (ta, tb) = (unbatched(sa), unbatched(sb));
    let without_ones = |d: &[i64]| d.iter().skip_while(|&&n| n == 1).copied().collect::<Vec<i64>>();
    let (Some(onnx), Some(knn)) = (matmul_shape(&as_i64(sa), &as_i64(sb)), matmul_shape(&as_i64(&ta), &as_i64(&tb)))
    else {
        return Err(format!("it multiplies values of shapes {sa:?} and {sb:?}, which do not fit (NumPy's matmul)"));
    };
    if without_ones(&onnx) != without_ones(&knn) {
        return Err(format!(
            "it multiplies values of shapes {sa:?} and {sb:?}, whose product without the batch dimension is not ONNX's"
        ));
    }
    let left = both_operands(graph, node, (*ga, *gb), (&ta, &tb))?;
    let output: Vec<usize> = knn.iter().map(|&n| n as usize).collect();
    graph.steps.push(Step::MatmulKept { slot: left, kept_first: true, output: output.clone() });
    graph.tensor = output;
    graph.advance();
    Ok(Value::Vector { generation: graph.generation, shape: onnx.iter().map(|&n| n as usize).collect() })
}

/// Gives the current tensor the shape `dims` (`reshape`, Ext-5), unless it has it.
pub(super) fn shaped_as(graph: &mut Graph, dims: &[usize]) -> Result<(), String> {
    if graph.tensor != dims {
        if graph.tensor.iter().product::<usize>() != dims.iter().product::<usize>() {
            return Err(format!("it reads a tensor of shape {:?} as {dims:?}", graph.tensor));
        }
        graph.steps.push(Step::Reshape(dims.to_vec()));
        graph.tensor = dims.to_vec();
        graph.advance();
    }
    Ok(())
}

/// The two computed operands of a binary node, in order: the left one taken up, given the shape
/// `ta` (a `reshape` if knn holds it otherwise) and kept; then the right one, which must be the
/// current value or a kept one, given the shape `tb` and left current. The left one's slot.
pub(super) fn both_operands(
    graph: &mut Graph,
    node: &NodeProto,
    (ga, gb): (usize, usize),
    (ta, tb): (&[usize], &[usize]),
) -> Result<usize, String> {
    let names = (&node.input[0], &node.input[1]);
    graph.carry(ga, names.0)?;
    shaped_as(graph, ta)?;
    graph.keep_current();
    let left = graph.generation;
    if gb != ga && !graph.kept.contains_key(&gb) && gb != graph.generation {
        return Err(format!("it reads `{}`, an earlier value that was not kept", names.1));
    }
    graph.carry(gb, names.1)?;
    shaped_as(graph, tb)?;
    Ok(left)
}
