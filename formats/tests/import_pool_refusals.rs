//! ONNX pools, reshapes and pads that knn cannot import: each refused with a message that
//! names the node and says why (a `Pad` that crops, pads the batch axis or copies the image's
//! own elements); and the edge cases it does import (an empty indices output, a zero `Pad` in
//! any mode, `Flatten` to a matrix).

mod onnx_support;

use knn_formats::import::emit::emit;
use knn_formats::import::onnx::proto::{ModelProto, NodeProto, TensorProto};
use knn_formats::import::{Format, Step};
use onnx_support::*;
use prost::Message;

/// A model reading a `(1, 2, 4, 4)` image.
fn image(nodes: Vec<NodeProto>, inits: Vec<TensorProto>) -> Vec<u8> {
    model(&[Some(1), Some(2), Some(4), Some(4)], "y", nodes, inits)
}

/// The same, with a pool at the end so that the input is read as an image whatever the
/// nodes before it (the refusals come before the pool is reached).
fn pooled(mut nodes: Vec<NodeProto>, inits: Vec<TensorProto>) -> Vec<u8> {
    nodes.push(max_pool("tail", "unused", "z"));
    image(nodes, inits)
}

fn error_of(bytes: &[u8]) -> String {
    let e = import_bytes(bytes).expect_err("the model is refused");
    format!("{}: {}", e.location, e.message)
}

fn max_pool(name: &str, input: &str, output: &str) -> NodeProto {
    with_ints(node("MaxPool", name, &[input], output), "kernel_shape", &[2, 2])
}

fn average_pool(name: &str, input: &str, output: &str) -> NodeProto {
    with_ints(node("AveragePool", name, &[input], output), "kernel_shape", &[2, 2])
}

#[test]
fn pools_outside_the_language_are_refused_naming_the_node() {
    let refused = |node: NodeProto| error_of(&image(vec![node], vec![]));
    let e = refused(node("MaxPool", "p", &["input.1"], "y"));
    assert_eq!(e, "node \"p\" (MaxPool): kernel_shape is required");
    let e = refused(with_int(max_pool("p", "input.1", "y"), "ceil_mode", 2));
    assert_eq!(e, "node \"p\" (MaxPool): ceil_mode = 2 is not 0 or 1");
    // 4 columns, a window of 2, stride 3: ceil adds a window of one column, which ONNX divides
    // by 1 with count_include_pad = 1 (its part inside the padded image), K-NN by 2.
    let partial = with_int(with_ints(average_pool("a", "input.1", "y"), "strides", &[3, 3]), "ceil_mode", 1);
    let e = refused(with_int(partial, "count_include_pad", 1));
    assert!(
        e.starts_with(
            "node \"a\" (AveragePool): ceil_mode = 1 with count_include_pad = 1 makes a last, partial window"
        ),
        "{e}"
    );
    let e = refused(with_int(max_pool("p", "input.1", "y"), "storage_order", 1));
    assert!(e.starts_with("node \"p\" (MaxPool): storage_order = 1 is not supported"), "{e}");
    let mut indices = max_pool("p", "input.1", "y");
    indices.output.push("indices".into());
    let e = refused(indices);
    assert!(e.starts_with("node \"p\" (MaxPool): its second output, the indices of the maxima, is not supported"));
    let e = refused(with_ints(average_pool("a", "input.1", "y"), "dilations", &[2, 2]));
    assert_eq!(e, "node \"a\" (AveragePool): dilations = [2, 2]: K-NN's avgPool2d has no dilations");
    let e = refused(with_int(average_pool("a", "input.1", "y"), "count_include_pad", 2));
    assert_eq!(e, "node \"a\" (AveragePool): count_include_pad = 2 is not 0 or 1");
    let e = refused(with_ints(node("MaxPool", "p", &["input.1"], "y"), "kernel_shape", &[5, 5]));
    assert_eq!(
        e,
        "node \"p\" (MaxPool): the 5×5 window (dilations [1, 1]) does not fit the 4×4 image padded by [0, 0, 0, 0]"
    );
    let e = refused(with_ints(max_pool("p", "input.1", "y"), "strides", &[2]));
    assert!(e.starts_with("node \"p\" (MaxPool): strides = [2]: knn imports 2-D pools"), "{e}");
    let e = refused(with_ints(node("MaxPool", "p", &["input.1"], "y"), "kernel_shape", &[2, 2, 2]));
    assert!(e.contains("kernel_shape = [2, 2, 2]: knn imports 2-D pools"), "{e}");
    let e = refused(with_string(
        with_ints(average_pool("a", "input.1", "y"), "pads", &[1, 1, 1, 1]),
        "auto_pad",
        "SAME_UPPER",
    ));
    assert!(e.contains("pads and auto_pad are both given"), "{e}");
    let e = refused(with_ints(max_pool("p", "input.1", "y"), "pads", &[1, 1, 1]));
    assert!(e.contains("pads = [1, 1, 1]: knn imports 2-D pools"), "{e}");
    // A pool reads an image: the graph's input must be one.
    let vector = model(&[Some(1), Some(4)], "y", vec![max_pool("p", "input.1", "y")], vec![]);
    assert_eq!(
        error_of(&vector),
        "input \"input.1\": the graph pools its input, which has shape [1, 4]: knn imports images of shape (1, C, H, W) (a batch of one)"
    );
    // An indices output left out (an empty name) is no output.
    let mut unnamed = max_pool("p", "input.1", "y");
    unnamed.output.push(String::new());
    let network = import_bytes(&image(vec![unnamed], vec![])).unwrap();
    assert!(matches!(network.steps[..], [Step::Pool(_)]));
}

/// A `Pad` node of the opset 11 form (`pads` an input), its output `padded`.
fn pad(pads: &[i64]) -> (NodeProto, TensorProto) {
    (node("Pad", "pad", &["input.1", "P"], "padded"), ints("P", pads))
}

#[test]
fn paddings_knn_cannot_import_are_refused_naming_the_pad_node() {
    // (A padding that does not fold into its reader is K-NN's `pad`: tests/import_pad.rs.)
    let spatial = [0, 0, 1, 0, 0, 0, 0, 1];
    let refused = |reader: NodeProto, pads: &[i64]| {
        let (pad, p) = pad(pads);
        error_of(&pooled(vec![pad, reader], vec![p]))
    };
    let relu = || node("Relu", "r", &["padded"], "y");
    let e = refused(relu(), &[0, 0, -1, 0, 0, 0, 0, 0]);
    assert!(e.starts_with("node \"pad\" (Pad): pads = [0, 0, -1, 0, 0, 0, 0, 0] crops (a negative pad)"), "{e}");
    let e = refused(relu(), &[1, 0, 0, 0, 0, 0, 0, 0]);
    assert!(e.starts_with("node \"pad\" (Pad): it pads the batch axis of a value of shape [1, 2, 4, 4]"), "{e}");
    let e = refused(relu(), &[1, 1]);
    assert_eq!(e, "node \"pad\" (Pad): pads = [1, 1]: expected 8 values (a begin and an end per axis)");

    // Opset 2's form: the pads, mode and value attributes; every mode but `constant`.
    for mode in ["reflect", "edge", "wrap"] {
        let padding =
            with_ints(with_string(node("Pad", "pad", &["input.1"], "padded"), "mode", mode), "pads", &spatial);
        let e = error_of(&pooled(vec![padding, relu()], vec![]));
        let start = format!("node \"pad\" (Pad): mode = \"{mode}\" pads with copies of the tensor's own elements");
        assert!(e.starts_with(&start), "{e}");
    }
    let e = error_of(&image(vec![node("Pad", "pad", &["input.1"], "y")], vec![]));
    assert!(e.contains("the pads are missing (an attribute before opset 11, an input from 11)"), "{e}");
}

#[test]
fn a_zero_pad_is_nothing_in_any_mode_and_flatten_can_make_a_matrix() {
    // All pads 0: the same value, whatever the mode or the value.
    let zero = with_string(node("Pad", "pad", &["input.1", "P"], "padded"), "mode", "edge");
    let bytes = image(vec![zero, max_pool("m", "padded", "y")], vec![ints("P", &[0; 8])]);
    let network = import_bytes(&bytes).unwrap();
    assert!(matches!(network.steps[..], [Step::Pool(_)]));
    // Flatten of a (1, 2, 4, 4) image (after a 1×1 pool, `h0`): at axis 2, (2, 16), K-NN's
    // `reshape`; at 3, (8, 4); at 0, 1, 4 (or -3, which is 1), a vector, K-NN's `flatten`.
    let flattened = |axis: i64| {
        let pool = with_ints(node("MaxPool", "m", &["input.1"], "m0"), "kernel_shape", &[1, 1]);
        let flat = with_int(node("Flatten", "f", &["m0"], "y"), "axis", axis);
        emit(&import_bytes(&image(vec![pool, flat], vec![])).unwrap())
    };
    for (axis, line) in [
        (2, "let y = reshape(h0, 2, 16) in"),
        (3, "let y = reshape(h0, 8, 4) in"),
        (0, "let y = flatten(h0) in"),
        (1, "let y = flatten(h0) in"),
        (4, "let y = flatten(h0) in"),
        (-3, "let y = flatten(h0) in"),
    ] {
        let text = flattened(axis);
        assert!(text.contains(line), "axis {axis}: {line}\n{text}");
    }
    assert!(import_bytes(&image(vec![with_int(node("Flatten", "f", &["input.1"], "y"), "axis", 5)], vec![])).is_err());
    // A symbolic batch dimension counts as 1: Flatten (axis 1) of the pooled image is a vector.
    let pool = max_pool("m", "input.1", "m0");
    let flat = node("Flatten", "f", &["m0"], "y");
    let symbolic = model(&[None, Some(2), Some(4), Some(4)], "y", vec![pool, flat], vec![]);
    let network = import_bytes(&symbolic).unwrap();
    assert_eq!((network.input_shape.clone(), network.output_shape()), (vec![2, 4, 4], vec![18]));
    assert!(matches!(network.steps[..], [Step::Pool(_), Step::Reshape(_)]));
    let mut graph = ModelProto::decode(&image(vec![], vec![])[..]).unwrap();
    graph.graph.as_mut().unwrap().node.push(node("Flatten", "f", &["input.1"], "y"));
    assert!(import_bytes(&graph.encode_to_vec()).is_ok(), "a graph without pools reads a vector: Flatten is nothing");
}

#[test]
fn huge_sizes_are_errors_not_overflows() {
    let huge = i64::MAX;
    let refused = |node: NodeProto| error_of(&image(vec![node], vec![]));
    let e = refused(with_ints(max_pool("p", "input.1", "y"), "pads", &[huge, 0, huge, 0]));
    assert!(e.contains("does not fit the 4×4 image padded by"), "{e}");
    // SAME's pads for a dilation of 2^63 - 1 are about 2^62 a side: sizes that still add up
    // in 64 bits, imported as ONNX defines them (every tap of a window but the first in the padding).
    let same = with_ints(max_pool("p", "input.1", "y"), "dilations", &[huge, huge]);
    let network = import_bytes(&image(vec![with_string(same, "auto_pad", "SAME_UPPER")], vec![])).unwrap();
    assert_eq!(network.output_shape(), vec![2, 4, 4], "SAME: ceil(4 / 1) rows and columns");
    let (pad, p) = (node("Pad", "pad", &["input.1", "P"], "padded"), ints("P", &[0, 0, huge, 0, 0, 0, huge, 0]));
    let reader = with_int(average_pool("a", "padded", "y"), "count_include_pad", 1);
    let e = error_of(&image(vec![pad, reader], vec![p]));
    assert_eq!(e, "node \"pad\" (Pad): the padded image is too large");
}

/// Every prefix of a pooling model, and the model with bytes changed, is imported or refused
/// with a message: never a panic (the tests run in debug too, where an overflow would be one).
#[test]
fn no_cut_or_changed_pool_model_panics() {
    let path = std::path::Path::new("model.onnx");
    for name in ["pad_conv", "pad_avgpool", "conv_relu_maxpool_gemm", "maxpool_pads_dilation", "conv_reshape_flatten"] {
        let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/pool/{name}.onnx"));
        let bytes = std::fs::read(fixture).unwrap();
        // From memory: the cases are many, and a file each would be most of the time.
        let import = |bytes: &[u8]| {
            if let Err(e) = knn_formats::import::import_bytes(path, bytes, Format::Onnx, &Default::default()) {
                assert!(!e.message.is_empty());
            }
        };
        for end in (0..bytes.len()).step_by(3) {
            import(&bytes[..end]);
        }
        for k in 0..bytes.len() {
            for flip in [0x01, 0x5a, 0xff] {
                let mut changed = bytes.clone();
                changed[k] ^= flip;
                import(&changed);
            }
        }
    }
}

#[test]
fn divisions_batch_norms_and_dropouts_knn_cannot_import_are_refused_naming_the_node() {
    // ERAN's normalisation divides by 0.3081: x · (1 / 0.3081) is not x / 0.3081 bit for bit (the
    // float32 0.3081 is 0.30809998512268066), so it is Ext-7's division (`formats/tests/
    // import_onnx.rs` runs one); a constant divided by a computed value is refused.
    let divisor = floats("d", &[1], &[0.3081]);
    let divided = vec![node("Div", "norm", &["input.1", "d"], "y"), max_pool("p", "y", "z")];
    let norm =
        import_bytes(&model(&[Some(1), Some(2), Some(4), Some(4)], "z", divided, vec![divisor.clone()])).unwrap();
    assert_eq!(norm.steps[0], Step::Div(vec![0.30809998512268066; 32]));
    let e = error_of(&pooled(vec![node("Div", "inv", &["d", "input.1"], "y")], vec![divisor]));
    assert!(e.contains("it divides a constant by a computed value"), "{e}");
    // A residual connection, an addition of two computed values, imports as `addTensor`
    // (tests/import_residual.rs): here the input added to itself, kept for its second read.
    let skip = vec![node("Add", "skip", &["input.1", "input.1"], "s"), max_pool("p", "s", "y")];
    let doubled = import_bytes(&image(skip, vec![])).unwrap();
    assert_eq!(doubled.steps[..2], [Step::Keep(0), Step::AddKept { slot: 0, kept_first: false }]);
    // Dividing by 4 is multiplying by 0.25, exactly: imported.
    let four = floats("d", &[1], &[4.0]);
    let divided = vec![node("Div", "q", &["input.1", "d"], "y"), max_pool("p", "y", "z")];
    let quarter = import_bytes(&model(&[Some(1), Some(2), Some(4), Some(4)], "z", divided, vec![four])).unwrap();
    assert_eq!(quarter.steps[0], Step::Mul(vec![0.25; 32]));
    let params: Vec<TensorProto> = ["s", "b", "m", "v"].iter().map(|n| floats(n, &[2], &[1.0, 1.0])).collect();
    let bn = |name: &str| node("BatchNormalization", name, &["input.1", "s", "b", "m", "v"], "y");
    let e = error_of(&pooled(vec![with_int(bn("bn"), "training_mode", 1)], params.clone()));
    assert_eq!(e, "node \"bn\" (BatchNormalization): training_mode = 1: knn imports networks for inference");
    let three: Vec<TensorProto> = ["s", "b", "m", "v"].iter().map(|n| floats(n, &[3], &[1.0, 1.0, 1.0])).collect();
    // var = −ε (both the float32 1e-5): sqrt(var + ε) = 0 and the folded scale is infinite.
    let mut zero_spread = params.clone();
    zero_spread[3] = floats("v", &[2], &[-1e-5, -1e-5]);
    let e = error_of(&pooled(vec![bn("bn")], zero_spread));
    assert!(e.starts_with("node \"bn\" (BatchNormalization): the folded scale or shift is not finite"), "{e}");
    let e = error_of(&pooled(vec![bn("bn")], three));
    assert_eq!(e, "node \"bn\" (BatchNormalization): scale has 3 values for 2 channels");
    let mut dropout = node("Dropout", "drop", &["input.1"], "y");
    dropout.output.push("mask".into());
    let e = error_of(&pooled(vec![dropout], vec![]));
    assert!(e.starts_with("node \"drop\" (Dropout): its second output, the mask, is not supported"), "{e}");
    let training = floats("t", &[], &[1.0]);
    let e = error_of(&pooled(vec![node("Dropout", "drop", &["input.1", "", "t"], "y")], vec![training]));
    assert!(e.contains("training_mode is not the constant false"), "{e}");
    let transpose = with_ints(node("Transpose", "t", &["input.1"], "y"), "perm", &[0, 1, 1, 2]);
    let e = error_of(&pooled(vec![transpose], vec![]));
    assert!(e.starts_with("node \"t\" (Transpose): perm = [0, 1, 1, 2] is not a permutation"), "{e}");
}
