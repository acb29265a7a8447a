//! ONNX `Pad` (opsets 2 to 21: `pads` an attribute before opset 11, an input from then on;
//! `constant_value` likewise; `axes` from opset 18) in its `constant` mode. A `Pad` node whose
//! pads are all 0 is nothing. One that pads the two spatial axes of an image with zeros for the
//! one node that reads it, a `Conv` or an `AveragePool` with `count_include_pad = 1`, is folded
//! into that node's pads (below). Any other is K-NN's `pad` (Ext-13) of the current tensor, its
//! value the node's, its pads those of the tensor's axes (a batch axis of 1 is not one of them,
//! and may not be padded). The modes `reflect`, `edge` and `wrap`, and negative pads (crops),
//! are refused.
//!
//! Why the fold changes no bit:
//! * `conv2d` reads a tap in its padding as `0.0` and still multiplies and adds it (the rule's
//!   order, docs/language.md "Convolution"): exactly what it does with a `0.0` element the
//!   `Pad` wrote. (A `-0.0` padding gives products of the other sign, `±0.0`; added to a sum
//!   that starts from `0.0`, which is never `-0.0`, either leaves it as it is.)
//! * `avgPool2d` skips a tap in its padding, where the `Pad` node's `0.0` would be added. A
//!   sum that starts from `0.0` is never `-0.0`, so adding `±0.0` to it changes nothing (a NaN
//!   or an infinity stays one); and with `countPad = 1` the divisor is the whole window either
//!   way. (`count_include_pad = 0` would divide by the taps inside the smaller image, which
//!   the padded elements are not: that is a `pad`, then the pool.)

use super::*;

pub(super) fn pad(graph: &mut Graph, node: &NodeProto, later: &[NodeProto]) -> Result<Value, String> {
    if !(1..=4).contains(&node.input.len()) {
        return Err(format!("expected 1 to 4 inputs, found {}", node.input.len()));
    }
    let x = lookup(graph, &node.input[0])?;
    let shape = graph.vector(&x, node)?;
    let optional = |k: usize| node.input.get(k).filter(|name| !name.is_empty());
    let ints = |k: usize, what: &str| -> Result<Option<Vec<i64>>, String> {
        match optional(k).map(|name| lookup(graph, name)).transpose()? {
            None => Ok(None),
            Some(Value::Constant(Constant { values: Values::Int(v), .. })) => Ok(Some(v)),
            Some(_) => Err(format!("{what} must be a constant int64 tensor")),
        }
    };
    // Before opset 11 the pads and the value are attributes; from 11 on, inputs.
    let pads = match attribute(node, "pads") {
        Some(a) => a.ints.clone(),
        None => ints(1, "the pads")?.ok_or("the pads are missing (an attribute before opset 11, an input from 11)")?,
    };
    let value = match optional(2) {
        None => f64::from(float_attribute(node, "value", 0.0)?),
        Some(name) => match lookup(graph, name)? {
            Value::Constant(c) if c.len() == 1 => c.floats()[0],
            _ => return Err("the constant_value must be a constant of one element".into()),
        },
    };
    let rank = shape.len();
    let axes = match ints(3, "the axes")? {
        None => (0..rank).collect(),
        Some(axes) => axes
            .iter()
            .map(|&a| {
                axis(a, rank).and_then(|k| if k < rank { Ok(k) } else { Err(format!("axis {a} is out of range")) })
            })
            .collect::<Result<Vec<usize>, String>>()?,
    };
    if pads.len() != 2 * axes.len() {
        return Err(format!("pads = {pads:?}: expected {} values (a begin and an end per axis)", 2 * axes.len()));
    }
    // Per axis of the ONNX shape, (begin, end).
    let mut per_axis = vec![(0i64, 0i64); rank];
    for (k, &a) in axes.iter().enumerate() {
        per_axis[a] = (pads[k], pads[k + axes.len()]);
    }
    if per_axis.iter().all(|&p| p == (0, 0)) {
        // No padding: the same value, no step.
        return Ok(x);
    }
    let mode = attribute(node, "mode").map_or("constant".into(), |a| String::from_utf8_lossy(&a.s).into_owned());
    if mode != "constant" {
        return Err(format!(
            "mode = {mode:?} pads with copies of the tensor's own elements; K-NN's `pad` pads with a constant (mode = \"constant\")"
        ));
    }
    if per_axis.iter().any(|&(b, e)| b < 0 || e < 0) {
        return Err(format!("pads = {pads:?} crops (a negative pad); K-NN's `pad` only adds elements"));
    }
    if value == 0.0 && folds(graph, node, &shape, &per_axis, later) {
        return fold(graph, &per_axis);
    }
    constant_pad(graph, &shape, &per_axis, value)
}

/// Whether the zero padding `per_axis` of `node`'s value, of ONNX shape `shape`, folds into the
/// pads of the one node that reads it (see the module's note): a `(1, C, H, W)` image padded
/// on its rows and columns only, read first by a `Conv` or an `AveragePool` with
/// `count_include_pad = 1` and by no other node.
fn folds(graph: &Graph, node: &NodeProto, shape: &[usize], per_axis: &[(i64, i64)], later: &[NodeProto]) -> bool {
    let (&[_, _, _], [1, _, _, _]) = (&graph.tensor[..], shape) else { return false };
    if per_axis[..2].iter().any(|&p| p != (0, 0)) {
        return false;
    }
    let output = &node.output[0];
    let readers: Vec<&NodeProto> = later.iter().filter(|n| n.input.contains(output)).collect();
    matches!(readers[..], [reader] if reader.input.first() == Some(output) && folds_into(reader))
}

/// The zero padding `per_axis` of the current `(C, H, W)` image, left for its reader to add to
/// its own pads ([`Graph::unfold_pad`]).
fn fold(graph: &mut Graph, per_axis: &[(i64, i64)]) -> Result<Value, String> {
    let [c, h, w] = graph.tensor[..] else { unreachable!("`folds` checked the image") };
    let too_large = || "the padded image is too large".to_string();
    let grow = |size: usize, (begin, end): (i64, i64)| -> Result<usize, String> {
        let (begin, end) =
            (usize::try_from(begin).map_err(|_| too_large())?, usize::try_from(end).map_err(|_| too_large())?);
        size.checked_add(begin).and_then(|s| s.checked_add(end)).ok_or_else(too_large)
    };
    let (ph, pw) = (grow(h, per_axis[2])?, grow(w, per_axis[3])?);
    element_count(&[c, ph, pw]).ok_or_else(too_large)?;
    let [(t, b), (l, r)] = [per_axis[2], per_axis[3]].map(|(begin, end)| (begin as usize, end as usize));
    let value = graph.next_tensor(vec![1, c, ph, pw], vec![c, ph, pw]);
    graph.pad = Some((graph.generation, [t, l, b, r]));
    Ok(value)
}

/// K-NN's `pad(v, value, …)` (Ext-13) of the current tensor, given first the ONNX shape without
/// its batch axis of 1 (a `reshape` when it does not have it), then the usual K-NN shape of the
/// padded value.
fn constant_pad(graph: &mut Graph, shape: &[usize], per_axis: &[(i64, i64)], value: f64) -> Result<Value, String> {
    let batch = usize::from(shape.len() >= 2 && shape[0] == 1);
    if batch == 1 && per_axis[0] != (0, 0) {
        return Err(format!(
            "it pads the batch axis of a value of shape {shape:?}; K-NN's tensors hold one row of the batch"
        ));
    }
    let too_large = || "the padded tensor is too large".to_string();
    let inner = &shape[batch..];
    let mut output = Vec::with_capacity(inner.len());
    for (&d, &(begin, end)) in inner.iter().zip(&per_axis[batch..]) {
        let (begin, end) =
            (usize::try_from(begin).map_err(|_| too_large())?, usize::try_from(end).map_err(|_| too_large())?);
        output.push(d.checked_add(begin).and_then(|s| s.checked_add(end)).ok_or_else(too_large)?);
    }
    element_count(&output).ok_or_else(too_large)?;
    if graph.tensor != inner {
        graph.steps.push(Step::Reshape(inner.to_vec()));
    }
    let (begins, ends): (Vec<usize>, Vec<usize>) =
        per_axis[batch..].iter().map(|&(b, e)| (b as usize, e as usize)).unzip();
    let pads = [begins, ends].concat();
    graph.steps.push(Step::Pad { value, pads, output: output.clone() });
    graph.tensor = output.clone();
    graph.advance();
    graph.reshaped([&shape[..batch], &output[..]].concat())
}

/// Whether a zero padding read by `node` can be folded into its pads (see the module's note).
fn folds_into(node: &NodeProto) -> bool {
    match node.op_type.as_str() {
        "Conv" => true,
        "AveragePool" => attribute(node, "count_include_pad").is_some_and(|a| a.i == 1),
        _ => false,
    }
}

impl Graph {
    /// The input and pads of a `Conv` or pool reading `padded`, the current value: when a `Pad`
    /// node made it (`self.pad`), the image before that padding and the sum of both pads. A
    /// node that cannot take the padding (`folds`, false) is an error; [`pad`] lets no such node
    /// read it, so this is a second guard, not a path a model takes.
    pub(super) fn unfold_pad(
        &mut self,
        padded: [usize; 3],
        pads: [usize; 4],
        folds: bool,
    ) -> Result<([usize; 3], [usize; 4]), String> {
        // Taken only by its reader: in a graph that branches, a node of another branch may
        // come between the `Pad` and the node that reads it.
        match self.pad.take_if(|(generation, _)| *generation == self.generation) {
            Some((_, [t, l, b, r])) => {
                if !folds {
                    return Err("it reads a Pad node's padding, which it cannot take".into());
                }
                let [c, h, w] = padded;
                Ok(([c, h - t - b, w - l - r], [pads[0] + t, pads[1] + l, pads[2] + b, pads[3] + r]))
            }
            _ => Ok((padded, pads)),
        }
    }
}
