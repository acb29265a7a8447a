//! ONNX `Pad` (opsets 2 to 21: `pads` an attribute before opset 11, an input from then on;
//! `constant_value` likewise; `axes` from opset 18). K-NN has no `pad`, so a `Pad` node is
//! imported only when it changes nothing (all its pads 0: nothing is written), or when it pads
//! the two spatial axes of an image with zeros and the one node that reads it is a `Conv`, or an
//! `AveragePool` with `count_include_pad = 1`: its pads are then added to that node's.
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
//!   the padded elements are not: that is refused.)

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
        None => float_attribute(node, "value", 0.0)?,
        Some(name) => match lookup(graph, name)? {
            Value::Constant(c) if c.len() == 1 => c.floats()[0] as f32,
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
    let refuse = |why: String| {
        Err(format!(
            "{why}; K-NN has no `pad`: knn imports a Pad only when its pads are all 0, or when it pads the two spatial axes of a (1, C, H, W) image with 0.0 for the one Conv, or AveragePool with count_include_pad = 1, that reads it (then added to that node's pads)"
        ))
    };
    let mode = attribute(node, "mode").map_or("constant".into(), |a| String::from_utf8_lossy(&a.s).into_owned());
    if mode != "constant" {
        return refuse(format!("mode = {mode:?} pads with copies of the image, not a constant"));
    }
    if value != 0.0 {
        return refuse(format!("it pads with {value}, not 0"));
    }
    if per_axis.iter().any(|&(b, e)| b < 0 || e < 0) {
        return refuse(format!("pads = {pads:?} crops (a negative pad)"));
    }
    let (&[c, h, w], [1, _, _, _]) = (&graph.tensor[..], &shape[..]) else {
        return refuse(format!(
            "it pads a value of shape {shape:?}, {}",
            if graph.tensor.len() == 1 {
                "which the program reads as a vector (no Conv or pool in the graph reads an image)"
            } else {
                "not a (1, C, H, W) image"
            }
        ));
    };
    if per_axis[..2].iter().any(|&p| p != (0, 0)) {
        return refuse(format!("pads = {pads:?} pads the batch or channel axis, not only the rows and columns"));
    }
    let output = &node.output[0];
    let readers: Vec<&NodeProto> = later.iter().filter(|n| n.input.contains(output)).collect();
    match readers[..] {
        [reader] if reader.input.first() == Some(output) && folds_into(reader) => {}
        [reader] => {
            let name = if reader.name.is_empty() { String::new() } else { format!(" \"{}\"", reader.name) };
            return refuse(format!("the node that reads it,{name} ({}), cannot take the padding", reader.op_type));
        }
        [] => return refuse("no node reads it".into()),
        _ => return refuse(format!("{} nodes read it (the graph branches)", readers.len())),
    }
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
