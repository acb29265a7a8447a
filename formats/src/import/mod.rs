//! `knn import`: trained networks (`.nnet`, ONNX) as revised K-NN programs.
//!
//! Both readers produce a [`Network`]: the free input vector, then a list of [`Step`]s applied
//! to it in order, then the output name. [`emit`] turns that into program text. A network is a
//! chain on one vector, which is what K-NN can express: `linear`, element-wise arithmetic with
//! constants (`+`, `*`, `max`, `min`) and the tensor activations. A graph that branches (a
//! residual block) is the same chain walked in the graph's topological order, with values kept
//! for a later reader ([`Step::Keep`]), taken up again ([`Step::Resume`]) and added
//! ([`Step::AddKept`], `addTensor`).

pub mod emit;
mod error;
pub mod lint;
pub mod names;
pub mod nnet;
pub mod onnx;
mod window;

use std::path::Path;
use std::sync::Arc;

use knn_semantics::memory;
use knn_semantics::syntax::TensorOp;

pub use error::ImportError;
pub use window::{Conv, Pool, PoolKind};

/// A network as a chain of steps on one vector.
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    /// The model file, for the program's header comment.
    pub source: String,
    /// Which reader produced it (`.nnet` or ONNX), for the header.
    pub format: &'static str,
    /// The identifier of the free input tensor (bound with `--input`).
    pub input: String,
    /// The number of elements of the input.
    pub input_len: usize,
    /// The input's shape: `[input_len]` for a vector, `[C, H, W]` for an image a convolution
    /// reads.
    pub input_shape: Vec<usize>,
    /// The identifier of the result vector.
    pub output: String,
    pub steps: Vec<Step>,
    /// Extra lines for the header comment (where the names came from, normalisation, …).
    pub notes: Vec<String>,
}

/// One operation on the current vector.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// `linear(W, v)`: `weights` row-major `(rows, cols)`, `cols` the current length. Shared:
    /// the model's array becomes the program's literal (Ext-2) without a copy.
    Linear {
        rows: usize,
        cols: usize,
        weights: Arc<[f64]>,
    },
    /// `v[i] + c[i]` (a bias, or a subtraction of a constant written as the addition of its
    /// negation, which IEEE 754 defines to be the same operation).
    Add(Vec<f64>),
    /// `v[i] * c[i]` (a scaling; `-1.0` negates exactly).
    Mul(Vec<f64>),
    /// `max(min(v[i], high[i]), low[i])`: the `.nnet` input clipping.
    Clip {
        low: Vec<f64>,
        high: Vec<f64>,
    },
    Activation(Activation),
    /// `conv2d(v, W, b, strides = …, pads = …, dilations = …, group = …)` on the current
    /// `(C, H, W)` tensor: Ext-3.
    Conv(Conv),
    /// `maxPool2d` or `avgPool2d` on the current `(C, H, W)` tensor: Ext-4.
    Pool(Pool),
    /// `reshape(v, d1, …)` (`flatten(v)` when the shape has one dimension): the same elements
    /// in row-major order under another shape, Ext-5.
    Reshape(Vec<usize>),
    /// `transpose(v, p0, …)` of the current tensor: its axis `i` is axis `perm[i]`, the result's
    /// shape `output`, Ext-6.
    Transpose {
        perm: Vec<usize>,
        output: Vec<usize>,
    },
    /// `v[i] / c[i]` (Ext-7's `/`): an ONNX `Div` by a constant that is not a power of two
    /// (one that is stays `Mul` by its exact reciprocal).
    Div(Vec<f64>),
    /// The current tensor is value `slot`, which a later step reads again ([`Step::Resume`],
    /// [`Step::AddKept`]): from here on it is never written in place (element-wise steps on it
    /// write a copy).
    Keep(usize),
    /// The current tensor becomes the kept value `slot`: another branch of the graph starts
    /// from it.
    Resume(usize),
    /// `addTensor` of the current tensor and the kept value `slot` (the same shape) into a fresh
    /// tensor: the sum of two branches. `kept_first`: the kept value is the first operand.
    AddKept {
        slot: usize,
        kept_first: bool,
    },
    /// `softmax(v, axis)` or, with `log`, `logSoftmax(v, axis)` of the current tensor (Ext-9):
    /// the shape is kept.
    Softmax {
        axis: usize,
        log: bool,
    },
    /// `reduceSum(v, a0, …)` (or `reduceMean`, `reduceMax`, `reduceMin`) of the current tensor
    /// over `axes` (Ext-10): the result has shape `output`.
    Reduce {
        kind: Reduction,
        axes: Vec<usize>,
        output: Vec<usize>,
    },
    /// `slice(v, axis, begin, end, step)` of the current tensor (Ext-12): the result has shape
    /// `output`.
    Slice {
        axis: usize,
        begin: usize,
        end: usize,
        step: usize,
        output: Vec<usize>,
    },
    /// `concat` of the current tensor and the kept value `slot` along `axis` into a fresh
    /// tensor of shape `output` (Ext-11): two branches joined. `kept_first`: the kept value is
    /// the first operand.
    ConcatKept {
        slot: usize,
        kept_first: bool,
        axis: usize,
        output: Vec<usize>,
    },
    /// `pad(v, value, b0, …, a0, …)` of the current tensor (Ext-13): `pads` every axis's begin,
    /// then every axis's end; the result has shape `output`.
    Pad {
        value: f64,
        pads: Vec<usize>,
        output: Vec<usize>,
    },
    /// `matmul` of the current tensor and the kept value `slot` into a fresh tensor of shape
    /// `output` (Ext-15): the product of two branches (ONNX's `MatMul` of two computed values).
    /// `kept_first`: the kept value is the left operand.
    MatmulKept {
        slot: usize,
        kept_first: bool,
        output: Vec<usize>,
    },
    /// `addTensor` (`op` `None`), `subTensor`, `mulTensor` or `divTensor` of the kept value
    /// `slot` (the left operand) and the current tensor, whose shapes broadcast to `output`
    /// (Ext-8): ONNX's `Add`, `Sub`, `Mul`, `Div` of two computed values.
    ArithKept {
        slot: usize,
        op: Option<TensorOp>,
        output: Vec<usize>,
    },
    /// The current tensor becomes the constant `values` of shape `dims` (row-major), a tensor
    /// literal (Ext-2): a `Gemm`'s constant operand of `matmul` (`onnx/gemm.rs`).
    Literal {
        dims: Vec<usize>,
        values: Arc<[f64]>,
    },
}

/// The reductions of Ext-10.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    Sum,
    Mean,
    Max,
    Min,
}

impl Reduction {
    /// The K-NN function.
    pub fn keyword(self) -> &'static str {
        match self {
            Reduction::Sum => "reduceSum",
            Reduction::Mean => "reduceMean",
            Reduction::Max => "reduceMax",
            Reduction::Min => "reduceMin",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    Relu,
    Sigmoid,
    Tanh,
}

impl Activation {
    /// The K-NN tensor function that applies it.
    pub fn tensor_function(self) -> &'static str {
        match self {
            Activation::Relu => "reluTensor",
            Activation::Sigmoid => "sigmoidTensor",
            Activation::Tanh => "tanhTensor",
        }
    }
}

impl Network {
    /// The widths of the vector between `linear`, `conv2d`, pool and reshape steps, input first
    /// (a tensor's by its number of elements).
    pub fn layer_sizes(&self) -> Vec<usize> {
        self.layer_shapes().iter().map(|s| s.iter().product()).collect()
    }

    /// The shapes of the tensor between `linear`, `conv2d`, pool and reshape steps, input first.
    /// A [`Step::Resume`] adds the shape of the value it takes up, so the last shape is always
    /// the result's.
    pub fn layer_shapes(&self) -> Vec<Vec<usize>> {
        let mut shapes = vec![self.input_shape.clone()];
        let mut kept: Vec<(usize, Vec<usize>)> = Vec::new();
        for step in &self.steps {
            match step {
                Step::Linear { rows, .. } => shapes.push(vec![*rows]),
                Step::Conv(conv) => shapes.push(conv.output_shape()),
                Step::Pool(pool) => shapes.push(pool.output_shape()),
                Step::Reshape(shape)
                | Step::Transpose { output: shape, .. }
                | Step::Reduce { output: shape, .. }
                | Step::Slice { output: shape, .. }
                | Step::ConcatKept { output: shape, .. }
                | Step::Pad { output: shape, .. }
                | Step::MatmulKept { output: shape, .. }
                | Step::ArithKept { output: shape, .. }
                | Step::Literal { dims: shape, .. } => shapes.push(shape.clone()),
                Step::Keep(slot) => kept.push((*slot, shapes.last().cloned().unwrap_or_default())),
                Step::Resume(slot) => {
                    let shape = kept.iter().rev().find(|(k, _)| k == slot).map(|(_, s)| s.clone());
                    shapes.push(shape.expect("a resumed value was kept first"));
                }
                _ => {}
            }
        }
        shapes
    }

    /// The length of the result vector (the number of elements of the result).
    pub fn output_len(&self) -> usize {
        *self.layer_sizes().last().unwrap_or(&self.input_len)
    }

    /// The shape of the result.
    pub fn output_shape(&self) -> Vec<usize> {
        self.layer_shapes().pop().unwrap_or_else(|| self.input_shape.clone())
    }

    /// Number of weights and constants the program writes out.
    pub fn parameter_count(&self) -> usize {
        self.steps
            .iter()
            .map(|s| match s {
                Step::Linear { weights, .. } | Step::Literal { values: weights, .. } => weights.len(),
                Step::Add(c) | Step::Mul(c) | Step::Div(c) => c.len(),
                Step::Clip { low, high } => low.len() + high.len(),
                Step::Conv(conv) => conv.weights.len() + conv.bias.as_ref().map_or(0, |b| b.len()),
                Step::Activation(_) | Step::Pool(_) | Step::Reshape(_) | Step::Transpose { .. } => 0,
                Step::Keep(_)
                | Step::Resume(_)
                | Step::AddKept { .. }
                | Step::ConcatKept { .. }
                | Step::MatmulKept { .. }
                | Step::ArithKept { .. } => 0,
                Step::Softmax { .. } | Step::Reduce { .. } | Step::Slice { .. } | Step::Pad { .. } => 0,
            })
            .sum()
    }
}

/// Which reader a model file needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Nnet,
    Onnx,
}

impl Format {
    /// The format named by the file's extension.
    pub fn of_path(path: &Path) -> Option<Format> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "nnet" => Some(Format::Nnet),
            "onnx" => Some(Format::Onnx),
            _ => None,
        }
    }
}

/// What the user chose on the command line.
#[derive(Clone, Debug, Default)]
pub struct ImportOptions {
    /// `.nnet` only: add the input clipping and scaling and the output scaling.
    pub normalize: bool,
    /// Rename the input tensor.
    pub input_name: Option<String>,
    /// Rename the output tensor.
    pub output_name: Option<String>,
}

/// Reads a model file (`format`, or the one its extension names) as a [`Network`].
pub fn import_file(path: &Path, format: Option<Format>, options: &ImportOptions) -> Result<Network, ImportError> {
    let format = format.or_else(|| Format::of_path(path)).ok_or_else(|| {
        ImportError::new(path, "", "unknown model format: name the file .nnet or .onnx, or pass --format")
    })?;
    // The file is read whole, and its weights decoded next to it.
    let size =
        std::fs::metadata(path).map_err(|e| ImportError::new(path, "", format!("cannot read the file: {e}")))?.len();
    if let Err(too_large) = memory::check(size.checked_mul(3)) {
        return Err(ImportError {
            too_large: Some(too_large),
            ..ImportError::new(path, "", format!("reading it {too_large}"))
        });
    }
    let bytes = read_model(path).map_err(|e| ImportError::new(path, "", format!("cannot read the file: {e}")))?;
    import_owned(path, bytes, format, options)
}

/// Files from this size on are mapped rather than read.
const MAP_FROM: u64 = 1 << 20;

/// The bytes of a model file: a large regular file mapped into memory (its pages are the
/// kernel's cache, not copied into a buffer first; the weights are decoded straight from
/// them), anything else read.
fn read_model(path: &Path) -> std::io::Result<prost::bytes::Bytes> {
    let file = std::fs::File::open(path)?;
    let metadata = file.metadata()?;
    if metadata.is_file() && metadata.len() >= MAP_FROM {
        // SAFETY: the map is read-only and lives only while the model is decoded (the import
        // copies out every value it keeps). Another process truncating the file in that time
        // would fault the read (as it would for any program mapping a model); that is the
        // one risk, and it is the user's file changing under a running command.
        let map = unsafe { memmap2::MmapOptions::new().populate().map(&file) };
        if let Ok(map) = map {
            return Ok(prost::bytes::Bytes::from_owner(map));
        }
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut &file, &mut bytes)?;
    Ok(bytes.into())
}

/// Imports the bytes of a model file (`path` names it in errors): what [`import_file`] does once
/// the file is read and its size checked.
pub fn import_bytes(
    path: &Path,
    bytes: &[u8],
    format: Format,
    options: &ImportOptions,
) -> Result<Network, ImportError> {
    import_owned(path, prost::bytes::Bytes::copy_from_slice(bytes), format, options)
}

/// [`import_bytes`] on a buffer the import may keep slices of.
fn import_owned(
    path: &Path,
    bytes: prost::bytes::Bytes,
    format: Format,
    options: &ImportOptions,
) -> Result<Network, ImportError> {
    let mut network = match format {
        Format::Nnet => nnet::parse(path, &bytes)?.network(path, options.normalize),
        Format::Onnx => {
            if options.normalize {
                return Err(ImportError::new(
                    path,
                    "",
                    "--normalize applies to .nnet files only (an ONNX graph carries its own scaling as nodes)",
                ));
            }
            onnx::import(path, bytes)?
        }
    };
    names::rename(&mut network, options).map_err(|message| ImportError::new(path, "", message))?;
    // The program is text, one `let` per weight and per element written: a declared size (an
    // ONNX input of shape [400000000]) is checked before any of it is written.
    if let Err(too_large) = memory::check(lint::program_size(&network)) {
        let message = format!("the program for this network {too_large}");
        return Err(ImportError { too_large: Some(too_large), ..ImportError::new(path, "", message) });
    }
    Ok(network)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_reads_the_same_mapped_or_read() {
        let dir = tempfile::tempdir().unwrap();
        for len in [0, 1000, MAP_FROM as usize - 1, MAP_FROM as usize, 3 * MAP_FROM as usize + 5] {
            let contents: Vec<u8> = (0..len).map(|k| (k * 7 % 251) as u8).collect();
            let path = dir.path().join(format!("m{len}.onnx"));
            std::fs::write(&path, &contents).unwrap();
            assert_eq!(&read_model(&path).unwrap()[..], &contents[..], "{len} bytes");
        }
        let missing = read_model(&dir.path().join("none.onnx")).unwrap_err();
        assert_eq!(missing.kind(), std::io::ErrorKind::NotFound);
        assert!(read_model(dir.path()).is_err(), "a directory is not a model");
    }
}
