//! ONNX `MaxPool` and `AveragePool` (opsets 1 to 22) on a `(1, C, H, W)` image: `maxPool2d`
//! and `avgPool2d` with the same window, strides and pads (`auto_pad` made explicit as for
//! `Conv`). Both skip the padding as ONNX does: a max over the taps inside the image, and an
//! average over them divided by their number (`count_include_pad = 0`) or by the whole window
//! (`count_include_pad = 1`, K-NN's `countPad = 1`).

use super::conv::{ints_attribute, pair, spatial_pads};
use super::*;
use crate::import::{Pool, PoolKind};

pub(super) fn pool(graph: &mut Graph, node: &NodeProto) -> Result<Value, String> {
    let [x] = inputs::<1>(graph, node)?;
    let shape = graph.vector(&x, node)?;
    let (&[c, h, w], [1, ..]) = (&graph.tensor[..], &shape[..]) else {
        return Err(format!("the input X has shape {shape:?}; knn imports pools of (1, C, H, W) images"));
    };
    let average = node.op_type == "AveragePool";
    let kernel = match ints_attribute(node, "kernel_shape") {
        None => return Err("kernel_shape is required".into()),
        Some(_) => pair(node, "kernel_shape")?,
    };
    let (strides, dilations) = (pair(node, "strides")?, pair(node, "dilations")?);
    let ceil_mode = match int_attribute(node, "ceil_mode", 0)? {
        0 => false,
        1 => true,
        other => return Err(format!("ceil_mode = {other} is not 0 or 1")),
    };
    if average && dilations != [1, 1] {
        return Err(format!("dilations = {dilations:?}: K-NN's avgPool2d has no dilations"));
    }
    if !average && int_attribute(node, "storage_order", 0)? != 0 {
        return Err(
            "storage_order = 1 is not supported (it orders only the indices output, which knn does not import)".into(),
        );
    }
    let count_pad = match int_attribute(node, "count_include_pad", 0)? {
        0 => false,
        1 => true,
        other => return Err(format!("count_include_pad = {other} is not 0 or 1")),
    };
    let mut pads = spatial_pads(node, [h, w], kernel, strides, dilations)?;
    if ceil_mode {
        pads = ceil_pads([h, w], kernel, strides, dilations, pads);
        if average && count_pad && pads != spatial_pads(node, [h, w], kernel, strides, dilations)? {
            return Err("ceil_mode = 1 with count_include_pad = 1 makes a last, partial window, which ONNX divides by its taps inside the padded image and K-NN's countPad = 1 by the whole window".into());
        }
    }
    // A zero `Pad` node before an average over whole windows is folded into its pads (pad.rs).
    let (input, pads) = graph.unfold_pad([c, h, w], pads, average && count_pad)?;
    let kind = if average { PoolKind::Average { count_pad } } else { PoolKind::Max };
    let step = Pool { kind, input, kernel, strides, pads, dilations };
    let Some(output) = step.output().filter(|o| o.iter().all(|&d| d > 0)) else {
        return Err(format!(
            "the {}×{} window (dilations {dilations:?}) does not fit the {}×{} image padded by {pads:?}",
            kernel[0], kernel[1], input[1], input[2]
        ));
    };
    element_count(&output).ok_or("the output is too large")?;
    graph.steps.push(Step::Pool(step));
    let [oc, oh, ow] = output;
    Ok(graph.next_tensor(vec![1, oc, oh, ow], output.to_vec()))
}

/// The pads with which the floor of K-NN's output size is ONNX's `ceil_mode = 1` size: per
/// axis, `ceil((in + pads - reach) / stride) + 1` windows, less the last when it would start
/// past the image and its leading pad (ONNX from opset 19, onnxruntime's rule), the end pad
/// grown to hold the last window. The taps it adds are padding, which both pools skip, as
/// ONNX skips the part of a window past the input: the max and the average over the taps
/// inside (`count_include_pad = 0`) are ONNX's.
fn ceil_pads(
    [h, w]: [usize; 2],
    kernel: [usize; 2],
    strides: [usize; 2],
    dilations: [usize; 2],
    pads: [usize; 4],
) -> [usize; 4] {
    let mut pads = pads;
    for (axis, size) in [h, w].into_iter().enumerate() {
        let (begin, end) = (pads[axis], pads[axis + 2]);
        let padded = size.saturating_add(begin).saturating_add(end);
        let reach = (kernel[axis].max(1) - 1).saturating_mul(dilations[axis]).saturating_add(1);
        let stride = strides[axis].max(1);
        let Some(span) = padded.checked_sub(reach) else { continue };
        let mut windows = span.div_ceil(stride) + 1;
        if windows > span / stride + 1 && (windows - 1).saturating_mul(stride) >= size.saturating_add(begin) {
            windows -= 1;
        }
        let needed = (windows - 1).saturating_mul(stride).saturating_add(reach);
        pads[axis + 2] = end.saturating_add(needed.saturating_sub(padded));
    }
    pads
}
