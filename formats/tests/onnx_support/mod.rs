//! ONNX graphs built in tests: tensors, nodes with attributes, a model around them, and
//! running an imported model on both engines.

#![allow(dead_code, reason = "each test file uses its own share of these")]

use knn_engine::bigstep::{BigStep, Staging};
use knn_engine::tensor::Precision;
use knn_formats::import::emit::emit;
use knn_formats::import::onnx::proto::{
    AttributeProto, Dimension, GraphProto, ModelProto, NodeProto, TensorProto, TensorShapeProto, TensorTypeProto,
    TypeProto, ValueInfoProto,
};
use knn_formats::import::{Format, ImportError, ImportOptions, Network, import_file};
use knn_semantics::Profile;
use knn_semantics::engine::{Engine, Observed, SmallStep, Verdict};
use knn_semantics::inputs::TensorInput;
use knn_semantics::syntax::parse_program;
use prost::Message;

pub const FLOAT: i32 = 1;

pub fn floats(name: &str, dims: &[i64], data: &[f32]) -> TensorProto {
    // Half the tensors in raw_data, half in float_data: both encodings are read.
    let raw = name.len().is_multiple_of(2);
    TensorProto {
        name: name.into(),
        dims: dims.to_vec(),
        data_type: FLOAT,
        raw_data: if raw {
            data.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>().into()
        } else {
            Default::default()
        },
        float_data: if raw { vec![] } else { data.to_vec() },
        ..Default::default()
    }
}

pub fn ints(name: &str, data: &[i64]) -> TensorProto {
    TensorProto {
        name: name.into(),
        dims: vec![data.len() as i64],
        data_type: 7,
        int64_data: data.to_vec(),
        ..Default::default()
    }
}

pub fn node(op: &str, name: &str, inputs: &[&str], output: &str) -> NodeProto {
    NodeProto {
        op_type: op.into(),
        name: name.into(),
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: vec![output.into()],
        ..Default::default()
    }
}

pub fn with_int(mut node: NodeProto, name: &str, i: i64) -> NodeProto {
    node.attribute.push(AttributeProto { name: name.into(), i, r#type: 2, ..Default::default() });
    node
}

pub fn with_ints(mut node: NodeProto, name: &str, ints: &[i64]) -> NodeProto {
    node.attribute.push(AttributeProto { name: name.into(), ints: ints.to_vec(), r#type: 7, ..Default::default() });
    node
}

pub fn with_string(mut node: NodeProto, name: &str, s: &str) -> NodeProto {
    node.attribute.push(AttributeProto {
        name: name.into(),
        s: s.as_bytes().to_vec(),
        r#type: 3,
        ..Default::default()
    });
    node
}

pub fn with_float(mut node: NodeProto, name: &str, f: f32) -> NodeProto {
    node.attribute.push(AttributeProto { name: name.into(), f, r#type: 1, ..Default::default() });
    node
}

pub fn value_info(name: &str, dims: &[Option<i64>]) -> ValueInfoProto {
    let dim = dims
        .iter()
        .map(|d| match d {
            Some(v) => Dimension { dim_value: Some(*v), dim_param: None },
            None => Dimension { dim_value: None, dim_param: Some("batch".into()) },
        })
        .collect();
    ValueInfoProto {
        name: name.into(),
        r#type: Some(TypeProto {
            tensor_type: Some(TensorTypeProto { elem_type: FLOAT, shape: Some(TensorShapeProto { dim }) }),
        }),
    }
}

pub fn model(input: &[Option<i64>], output: &str, nodes: Vec<NodeProto>, initializer: Vec<TensorProto>) -> Vec<u8> {
    let graph = GraphProto {
        name: "test".into(),
        node: nodes,
        initializer,
        input: vec![value_info("input.1", input)],
        output: vec![value_info(output, &[Some(1), None])],
    };
    ModelProto { ir_version: 7, producer_name: "import_onnx.rs".into(), graph: Some(graph), ..Default::default() }
        .encode_to_vec()
}

pub fn import_bytes(bytes: &[u8]) -> Result<Network, ImportError> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.onnx");
    std::fs::write(&path, bytes).unwrap();
    import_file(&path, Some(Format::Onnx), &ImportOptions::default())
}

/// Imports, then runs the program on `x` with both engines; returns the result vector.
pub fn run(bytes: &[u8], x: &[f64]) -> Vec<f64> {
    let network = import_bytes(bytes).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(network.input, "input_1", "`input.1` made an identifier");
    let text = emit(&network);
    let program = parse_program(&text, Profile::revised().grammar).unwrap_or_else(|e| panic!("{text}\n{e}"));
    let input = TensorInput { name: network.input.clone(), shape: vec![x.len()], data: x.to_vec() };
    let big = BigStep { staging: Staging::Direct, precision: Precision::Exact }
        .evaluate(&program, std::slice::from_ref(&input));
    let small = SmallStep::revised().evaluate(&program, &[input]).unwrap();
    assert!(big.as_ref().unwrap().agrees_with(&small), "{text}");
    match small {
        Verdict::Value(Observed::Tensor(t)) => t.data,
        other => panic!("{text}\n{other}"),
    }
}

pub fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// `((0.0 + w0*x0) + w1*x1) + …` per row of a row-major `(rows, cols)` matrix.
pub fn linear(w: &[f64], cols: usize, x: &[f64]) -> Vec<f64> {
    w.chunks(cols).map(|row| row.iter().zip(x).fold(0.0, |acc, (w, x)| acc + w * x)).collect()
}

pub fn wide(v: &[f32]) -> Vec<f64> {
    v.iter().map(|&x| f64::from(x)).collect()
}
