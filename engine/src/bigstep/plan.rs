//! A compiled program: the operations that depend on the inputs, in evaluation order, with the
//! registers and buffers they use, and where the result is.

use knn_semantics::engine::EnvTensors;

use super::ops::{BufId, FOperand, IOperand, Op, Reg};

/// A symbolic input: its name and the buffer that receives its elements (row-major).
#[derive(Clone, Debug, PartialEq)]
pub struct PlanInput {
    pub name: String,
    pub buf: BufId,
    pub len: usize,
}

/// An element of a tensor result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Leaf {
    Const(f64),
    Reg(Reg),
    Slot(BufId, usize),
}

/// Where the result of a row is.
#[derive(Clone, Debug, PartialEq)]
pub enum ResultSpec {
    Float(FOperand),
    Int(IOperand),
    /// A dense tensor: its shape and its elements, row-major.
    Tensor {
        shape: Vec<usize>,
        leaves: Vec<Leaf>,
    },
    /// A tensor value whose store is not a dense tensor of Floats.
    Malformed(String),
    /// The program fails for every row (the last operation raises).
    Failed,
}

/// Where each buffer of a plan lives in a frame (`layout.rs` computes it): offsets and the
/// frame's size, in elements per lane.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Layout {
    pub offsets: Vec<usize>,
    pub len: usize,
}

#[derive(Clone, Debug)]
pub struct Plan {
    pub ops: Vec<Op>,
    pub fregs: u32,
    pub iregs: u32,
    /// The length of each buffer.
    pub buffers: Vec<usize>,
    /// Where each buffer lives in a frame (buffers that are not live at once share space).
    pub layout: Layout,
    pub inputs: Vec<PlanInput>,
    pub result: ResultSpec,
    /// When the program, compiled with every input concrete, fails: `<env>` at its error (the
    /// engine contract's observables; `None` otherwise).
    pub env_at_failure: Option<EnvTensors>,
}
