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
    // ceil_mode = 1 adds a last, partial window where the floor leaves one out: K-NN's pools
    // take whole windows only.
    if int_attribute(node, "ceil_mode", 0)? != 0 {
        return Err("ceil_mode = 1 is not supported (K-NN's pools round the output size down, ceil_mode = 0)".into());
    }
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
    let pads = spatial_pads(node, [h, w], kernel, strides, dilations)?;
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
