//! The program's header comment: where the network came from, its layer sizes, how to bind
//! its input and what its result is.

use std::fmt::Write;

use crate::import::Network;

/// `5` for a vector, `2×5×5` for a rank-3 tensor.
pub(super) fn shape_words(shape: &[usize]) -> String {
    shape.iter().map(usize::to_string).collect::<Vec<_>>().join("×")
}

pub(super) fn header(network: &Network, out: &mut dyn Write) {
    let sizes: Vec<String> = network.layer_shapes().iter().map(|s| shape_words(s)).collect();
    let _ = writeln!(out, "// Imported by `knn import` from {} ({}).", network.source, network.format);
    let _ = writeln!(out, "// Layer sizes: {} ({} parameters).", sizes.join(" -> "), network.parameter_count());
    for note in &network.notes {
        let _ = writeln!(out, "// {note}");
    }
    if let [len] = network.input_shape[..] {
        let _ = writeln!(
            out,
            "// Input: `{0}`, a vector of {len}: `knn run NET.knn --input '{0}=[…]'` or `knn batch NET.knn --input {0}=ROWS.npy`.",
            network.input
        );
    } else {
        let _ = writeln!(
            out,
            "// Input: `{0}`, a tensor of shape ({1}): `knn run NET.knn --input {0}=X.npy` (an array of that shape).",
            network.input,
            network.input_shape.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")
        );
    }
    match network.output_shape()[..] {
        [len] => {
            let _ = writeln!(out, "// Result: the vector `{}` ({len} values).", network.output);
        }
        ref shape => {
            let dims = shape.iter().map(usize::to_string).collect::<Vec<_>>().join(", ");
            let _ = writeln!(out, "// Result: the tensor `{}` of shape ({dims}).", network.output);
        }
    }
}
