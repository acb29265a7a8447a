//! ONNX models whose graph is an MLP or a network of convolutions and pools: one float input,
//! `Conv`, `MaxPool`, `AveragePool`, `Gemm`, `MatMul`, `Add`/`Sub` with constants or of two
//! computed values, `Relu`, `Sigmoid`, `Tanh`, `Flatten`, `Reshape`, `Pad` (constant: folded into a window, or `pad`),
//! `Conv`, `MaxPool`, `AveragePool`, `Gemm` (a dense layer, or Ext-15's `matmul`: `gemm.rs`), `MatMul` (by a constant, or of two computed values:
//! Ext-15's `matmul`), `Add`/`Sub`/`Mul`/`Div` with constants or of two computed values (Ext-8's
//! broadcasting functions where the shapes differ: `arith.rs`), `Relu`, `Sigmoid`, `Tanh`, `Flatten`, `Reshape`, `Pad` (of zeros, folded),
//! `Identity`, `Constant` nodes, one output. Any other operator is an error that names it and
//! its node.
//!
//! The nodes are walked in their (topological) order, one value at a time: a value read by
//! several nodes is kept and taken up again (`branch.rs`), so residual blocks import. Each
//! computed value is one K-NN tensor: a vector
//! (its ONNX shape, say `[1, 5]`, or `[1, 1, 28, 28]` before a `Flatten`, is tracked so that
//! every operator can check that it acts on a vector, but the program sees the elements in C
//! order), or, in a graph with a `Conv` or a pool, the `(C, H, W)` image of a `(1, C, H, W)`
//! value, until a `Flatten` or `Reshape` makes it a vector (K-NN's `flatten`) or another
//! shape (`reshape`).

mod arith;
mod branch;
mod constant;
mod ops;
pub mod proto;

use std::collections::HashMap;
use std::path::Path;

use prost::Message;

use self::constant::{Constant, element_count};
use self::proto::{GraphProto, ModelProto, NodeProto, ValueInfoProto, data_type};
use super::names::identifier;
use super::{ImportError, Network, Step};

/// A value of the graph: a constant, or the vector the network computes.
#[derive(Clone, Debug)]
enum Value {
    Constant(Constant),
    /// The `generation`-th vector the walk made (a node reading one other than the current
    /// one takes it up again: `branch.rs`), with its ONNX shape.
    Vector {
        generation: usize,
        shape: Vec<usize>,
    },
}

/// The walk over the nodes: the values so far and the steps emitted.
struct Graph {
    values: HashMap<String, Value>,
    steps: Vec<Step>,
    generation: usize,
    /// The K-NN shape of the chain's current value: a vector (`[n]`, whatever its ONNX shape),
    /// or `[C, H, W]` for the `(1, C, H, W)` images convolutions read and make.
    tensor: Vec<usize>,
    /// A zero padding not written as a step (K-NN has no `pad`): the generation of the padded
    /// value a `Pad` node made and its `[top, left, bottom, right]`, which the `Conv` or
    /// `AveragePool` that reads it adds to its own pads (`ops/pad.rs`).
    pad: Option<(usize, [usize; 4])>,
    /// The generation of the newest value (the current one is older after a `Resume`).
    made: usize,
    /// The values kept for a later reader (`Step::Keep`): generation → K-NN shape.
    kept: HashMap<usize, Vec<usize>>,
    /// The index of the node being translated.
    position: usize,
    /// For each value name, the index of the last node that reads it (`branch.rs`).
    last_read: HashMap<String, usize>,
    /// The model's version of the default operator set (`Softmax` changed meaning at 13).
    opset: i64,
    /// Whether a node reads images (`ops::reads_images`): then a vector `Reshape`d to a
    /// `(1, C, H, W)` shape becomes the image `(C, H, W)` (`shape.rs`), as VNN-COMP 2022's
    /// `cifar_biasfield` networks make one from a dense layer before their convolutions.
    reads_images: bool,
}

impl Graph {
    fn new(values: HashMap<String, Value>, tensor: Vec<usize>) -> Graph {
        Graph {
            values,
            steps: Vec::new(),
            generation: 0,
            tensor,
            pad: None,
            made: 0,
            kept: HashMap::new(),
            position: 0,
            last_read: HashMap::new(),
            opset: 0,
            reads_images: false,
        }
    }
}

/// Where in the graph an error is: `node "name" (Op)` or `node #3 (Op)`.
fn node_location(index: usize, node: &NodeProto) -> String {
    if node.name.is_empty() {
        format!("node #{index} ({})", node.op_type)
    } else {
        format!("node \"{}\" ({})", node.name, node.op_type)
    }
}

/// Decodes a model and translates its graph. The initializers' `raw_data` are slices of
/// `bytes`, not copies.
pub fn import(path: &Path, bytes: prost::bytes::Bytes) -> Result<Network, ImportError> {
    let model = ModelProto::decode(bytes).map_err(|e| {
        ImportError::new(path, "", format!("not a valid ONNX model (protobuf: {e}); is the file truncated?"))
    })?;
    let graph = model
        .graph
        .as_ref()
        .ok_or_else(|| ImportError::new(path, "", "the model has no graph (is this an ONNX model file?)"))?;
    let mut walk = Graph::new(HashMap::new(), Vec::new());
    walk.last_read = branch::last_reads(graph);
    walk.opset = model
        .opset_import
        .iter()
        .filter(|o| matches!(o.domain.as_str(), "" | "ai.onnx"))
        .map(|o| o.version)
        .max()
        .unwrap_or(1);
    for tensor in &graph.initializer {
        let constant = Constant::from_proto(tensor)
            .map_err(|e| ImportError::new(path, format!("initializer \"{}\"", tensor.name), e))?;
        walk.values.insert(tensor.name.clone(), Value::Constant(constant));
    }
    let input = graph_input(path, graph, &walk.values)?;
    let (input_len, shape) = input_shape(path, input)?;
    // A graph with a convolution reads a `(1, C, H, W)` image: the program's input is the
    // `(C, H, W)` tensor. Any other graph reads a vector, the input flattened; so does one
    // whose input is not an image but which has a `Reshape` that can make one (`shape.rs`).
    walk.reads_images = graph.node.iter().any(|n| ops::reads_images(&n.op_type));
    let may_reshape = graph.node.iter().any(|n| n.op_type == "Reshape");
    walk.tensor = if walk.reads_images {
        match shape[..] {
            [1, c, h, w] => vec![c, h, w],
            _ if may_reshape => vec![input_len],
            _ => {
                return Err(ImportError::new(
                    path,
                    format!("input \"{}\"", input.name),
                    format!(
                        "the graph {} its input, which has shape {shape:?}: knn imports images of shape (1, C, H, W) (a batch of one)",
                        if graph.node.iter().any(|n| n.op_type == "Conv") { "convolves" } else { "pools" }
                    ),
                ));
            }
        }
    } else {
        vec![input_len]
    };
    let input_shape = walk.tensor.clone();
    let input_is_vector = input_shape.len() == 1;
    walk.values.insert(input.name.clone(), Value::Vector { generation: 0, shape });
    branch::check_order(graph, |name| walk.values.contains_key(name))
        .map_err(|(location, message)| ImportError::new(path, location, message))?;
    for (index, node) in graph.node.iter().enumerate() {
        walk.position = index;
        if !matches!(node.domain.as_str(), "" | "ai.onnx") {
            return Err(ImportError::new(
                path,
                node_location(index, node),
                format!("operator domain `{}` is not supported (only the default ONNX operators)", node.domain),
            ));
        }
        ops::translate(&mut walk, node, &graph.node[index + 1..])
            .map_err(|e| ImportError::new(path, node_location(index, node), e))?;
    }
    let output = graph_output(path, graph, &mut walk)?;
    let producer =
        if model.producer_name.is_empty() { String::new() } else { format!(", made by {}", model.producer_name) };
    Ok(Network {
        source: path.display().to_string(),
        format: "ONNX",
        input: identifier(&input.name),
        input_len,
        input_shape,
        output: identifier(&output.name),
        steps: walk.steps,
        notes: vec![
            format!("ONNX graph `{}`{producer}: input `{}`, output `{}`.", graph.name, input.name, output.name),
            if input_is_vector {
                "The input is the graph's input tensor flattened in C order (batch dimensions of 1 dropped).".into()
            } else {
                "The input is the graph's (1, C, H, W) input without its batch dimension, (C, H, W).".into()
            },
        ],
    })
}

/// The one graph input that is not an initializer.
fn graph_input<'g>(
    path: &Path,
    graph: &'g GraphProto,
    values: &HashMap<String, Value>,
) -> Result<&'g ValueInfoProto, ImportError> {
    let inputs: Vec<&ValueInfoProto> = graph.input.iter().filter(|i| !values.contains_key(&i.name)).collect();
    match inputs[..] {
        [input] => Ok(input),
        [] => Err(ImportError::new(path, "graph", "the graph has no input")),
        _ => Err(ImportError::new(
            path,
            "graph",
            format!(
                "the graph has {} inputs ({}); knn imports networks with one input vector",
                inputs.len(),
                inputs.iter().map(|i| format!("`{}`", i.name)).collect::<Vec<_>>().join(", ")
            ),
        )),
    }
}

/// The input's element count and ONNX shape; a symbolic leading dimension (a batch) counts 1.
fn input_shape(path: &Path, input: &ValueInfoProto) -> Result<(usize, Vec<usize>), ImportError> {
    let fail = |message: String| ImportError::new(path, format!("input \"{}\"", input.name), message);
    let tensor = input
        .r#type
        .as_ref()
        .and_then(|t| t.tensor_type.as_ref())
        .ok_or_else(|| fail("the input is not a tensor".into()))?;
    if !matches!(tensor.elem_type, data_type::FLOAT | data_type::DOUBLE) {
        return Err(fail(format!("the input's element type ({}) is not float or double", tensor.elem_type)));
    }
    let dims = tensor.shape.as_ref().map(|s| s.dim.as_slice()).unwrap_or_default();
    let mut shape = Vec::with_capacity(dims.len());
    for (axis, dim) in dims.iter().enumerate() {
        match dim.dim_value {
            Some(d) if d > 0 => shape.push(d as usize),
            _ if axis == 0 && dims.len() > 1 => shape.push(1),
            _ => return Err(fail(format!("dimension {axis} of the input has no fixed size"))),
        }
    }
    if shape.is_empty() {
        return Err(fail("the input has no shape; knn needs its size".into()));
    }
    let len = element_count(&shape).ok_or_else(|| fail(format!("the input shape {shape:?} is too large")))?;
    Ok((len, shape))
}

/// The one graph output, which must be the chain's last value (a vector, or an image).
fn graph_output<'g>(path: &Path, graph: &'g GraphProto, walk: &mut Graph) -> Result<&'g ValueInfoProto, ImportError> {
    let [output] = &graph.output[..] else {
        return Err(ImportError::new(
            path,
            "graph",
            format!("the graph has {} outputs; knn imports networks with one output", graph.output.len()),
        ));
    };
    if let Some(&Value::Vector { generation, .. }) = walk.values.get(&output.name) {
        // A graph whose last nodes compute something else ends on the output's value.
        walk.finish_on(generation).map_err(|e| ImportError::new(path, format!("output \"{}\"", output.name), e))?;
    }
    match walk.values.get(&output.name) {
        Some(Value::Vector { generation, shape }) if *generation == walk.generation => {
            if walk.tensor.len() == 1 && shape.iter().filter(|&&d| d != 1).count() > 1 {
                return Err(ImportError::new(
                    path,
                    format!("output \"{}\"", output.name),
                    format!("the output has shape {shape:?}, not a vector"),
                ));
            }
            Ok(output)
        }
        Some(Value::Vector { .. }) => Err(ImportError::new(
            path,
            format!("output \"{}\"", output.name),
            "the output is not the last value the chain computes (the graph branches)",
        )),
        Some(Value::Constant(_)) => Err(ImportError::new(
            path,
            format!("output \"{}\"", output.name),
            "the output does not depend on the input",
        )),
        None => Err(ImportError::new(path, format!("output \"{}\"", output.name), "no node computes the output")),
    }
}
