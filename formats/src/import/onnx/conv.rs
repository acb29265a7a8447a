//! ONNX `Conv`: a `(1, C, H, W)` image's convolution as `conv2d`, its attributes mapped one to
//! one and `auto_pad` made explicit (docs/importing.md, "Convolutions").

use super::*;

pub(super) fn ints_attribute<'n>(node: &'n NodeProto, name: &str) -> Option<&'n [i64]> {
    attribute(node, name).map(|a| a.ints.as_slice())
}

/// What the node computes, in messages: "convolutions" or "pools".
fn kind(node: &NodeProto) -> &'static str {
    if node.op_type == "Conv" { "convolutions" } else { "pools" }
}

/// An attribute of two positive values (`strides`, `dilations`, `kernel_shape`), `[1, 1]`
/// when absent.
pub(super) fn pair(node: &NodeProto, name: &str) -> Result<[usize; 2], String> {
    match ints_attribute(node, name) {
        None => Ok([1, 1]),
        Some(&[a, b]) if a >= 1 && b >= 1 => Ok([a as usize, b as usize]),
        Some(values) => {
            Err(format!("{name} = {values:?}: knn imports 2-D {}, with two values of at least 1", kind(node)))
        }
    }
}

/// The `[top, left, bottom, right]` pads of a `Conv` or pool on an `h`×`w` image: `pads`, or
/// those `auto_pad` makes. `SAME_UPPER` and `SAME_LOWER` give per axis an output of
/// `ceil(in / stride)` and a padding of `(out - 1)·stride + (k - 1)·dilation + 1 - in`, the
/// odd one at the end (`SAME_UPPER`) or at the beginning (`SAME_LOWER`), as ONNX defines for
/// both operators.
pub(super) fn spatial_pads(
    node: &NodeProto,
    [h, w]: [usize; 2],
    [kh, kw]: [usize; 2],
    strides: [usize; 2],
    dilations: [usize; 2],
) -> Result<[usize; 4], String> {
    let auto_pad = attribute(node, "auto_pad").map(|a| String::from_utf8_lossy(&a.s).into_owned());
    let automatic = !matches!(auto_pad.as_deref(), None | Some("NOTSET"));
    // Some exporters write zero pads beside auto_pad: those say nothing.
    let explicit = ints_attribute(node, "pads").filter(|p| !(automatic && p.iter().all(|&v| v == 0)));
    Ok(match (auto_pad.as_deref().unwrap_or("NOTSET"), explicit) {
        ("NOTSET", None) => [0; 4],
        ("NOTSET", Some(&[t, l, b, r])) if [t, l, b, r].iter().all(|&p| p >= 0) => {
            [t as usize, l as usize, b as usize, r as usize]
        }
        ("NOTSET", Some(values)) => {
            return Err(format!("pads = {values:?}: knn imports 2-D {}, with four values of at least 0", kind(node)));
        }
        (_, Some(_)) => return Err("pads and auto_pad are both given (ONNX allows one)".into()),
        ("VALID", None) => [0; 4],
        (same @ ("SAME_UPPER" | "SAME_LOWER"), None) => {
            let upper = same == "SAME_UPPER";
            let [(t, b), (l, r)] = [0, 1].map(|axis| {
                let (size, kernel) = ([h, w][axis], [kh, kw][axis]);
                let out = size.div_ceil(strides[axis]);
                // Saturating: the sizes come from the model file; a huge pad then fails the fit
                // check of the caller rather than wrapping around.
                let reach = (kernel.max(1) - 1).saturating_mul(dilations[axis]).saturating_add(1);
                let total = (out.max(1) - 1).saturating_mul(strides[axis]).saturating_add(reach).saturating_sub(size);
                // The odd pad goes at the end for SAME_UPPER, at the beginning for SAME_LOWER.
                if upper { (total / 2, total - total / 2) } else { (total - total / 2, total / 2) }
            });
            [t, l, b, r]
        }
        (other, None) => return Err(format!("auto_pad = {other:?} is not NOTSET, VALID, SAME_UPPER or SAME_LOWER")),
    })
}

/// ONNX `Conv` on a `(1, C, H, W)` image: `conv2d` with the same attributes. `auto_pad`'s
/// pads are computed as ONNX defines them (`SAME_UPPER` puts the odd one at the end,
/// `SAME_LOWER` at the beginning); `kernel_shape`, when given, must be `W`'s.
pub(super) fn conv(graph: &mut Graph, node: &NodeProto) -> Result<Value, String> {
    if !(2..=3).contains(&node.input.len()) {
        return Err(format!("expected 2 or 3 inputs, found {}", node.input.len()));
    }
    let x = lookup(graph, &node.input[0])?;
    let shape = graph.vector(&x, node)?;
    let (&[c, h, w], [1, ..]) = (&graph.tensor[..], &shape[..]) else {
        return Err(format!("the input X has shape {shape:?}; knn imports convolutions of (1, C, H, W) images"));
    };
    let Value::Constant(weights) = lookup(graph, &node.input[1])? else {
        return Err("the weights W are not a constant".into());
    };
    let [m, cg, kh, kw] = weights.dims[..] else {
        return Err(format!("the weights W have shape {:?}, not (M, C/group, kH, kW)", weights.dims));
    };
    let group = int_attribute(node, "group", 1)?;
    let group = usize::try_from(group).ok().filter(|&g| g >= 1).ok_or(format!("group = {group} is not positive"))?;
    if !c.is_multiple_of(group) || c / group != cg || !m.is_multiple_of(group) {
        return Err(format!(
            "the weights W of shape {:?} do not fit an input of {c} channels in {group} group{}",
            weights.dims,
            if group == 1 { "" } else { "s" }
        ));
    }
    if let Some(kernel) = ints_attribute(node, "kernel_shape")
        && kernel != [kh as i64, kw as i64]
    {
        return Err(format!("kernel_shape = {kernel:?} is not the shape of W's kernels, [{kh}, {kw}]"));
    }
    let (strides, dilations) = (pair(node, "strides")?, pair(node, "dilations")?);
    let pads = spatial_pads(node, [h, w], [kh, kw], strides, dilations)?;
    // A zero `Pad` node before this one is folded into these pads (see `pad.rs`).
    let (input, pads) = graph.unfold_pad([c, h, w], pads, true)?;
    let bias = match node.input.get(2).filter(|name| !name.is_empty()) {
        None => None,
        Some(name) => {
            let Value::Constant(b) = lookup(graph, name)? else {
                return Err("the bias B is not a constant".into());
            };
            if b.len() != m || b.dims.len() != 1 {
                return Err(format!("the bias B has shape {:?}, not ({m})", b.dims));
            }
            Some(b.floats())
        }
    };
    let step =
        Conv { input, kernel: [m, cg, kh, kw], weights: weights.floats(), bias, strides, pads, dilations, group };
    let Some(output) = step.output().filter(|o| o.iter().all(|&d| d > 0)) else {
        return Err(format!(
            "the {kh}×{kw} kernel (dilations {dilations:?}) does not fit the {}×{} image padded by {pads:?}",
            step.input[1], step.input[2]
        ));
    };
    element_count(&output).ok_or("the output is too large")?;
    graph.steps.push(Step::Conv(step));
    let [om, oh, ow] = output;
    Ok(graph.next_tensor(vec![1, om, oh, ow], output.to_vec()))
}
