//! The window steps of an imported network: a 2-D convolution and a 2-D pool, with the shapes
//! they read and make.

use std::sync::Arc;

/// A 2-D convolution (`conv2d`): its weights, bias and attributes, and the shapes it reads and
/// makes.
#[derive(Clone, Debug, PartialEq)]
pub struct Conv {
    /// `(C, H, W)`, the tensor it reads.
    pub input: [usize; 3],
    /// `(M, C / group, kH, kW)`, row-major, shared with the model's array.
    pub kernel: [usize; 4],
    pub weights: Arc<[f64]>,
    /// `M` values, added last (the rule's order).
    pub bias: Option<Arc<[f64]>>,
    pub strides: [usize; 2],
    /// `[top, left, bottom, right]`.
    pub pads: [usize; 4],
    pub dilations: [usize; 2],
    pub group: usize,
}

impl Conv {
    /// `(M, OH, OW)`, `None` when the kernel does not fit the padded input.
    pub fn output(&self) -> Option<[usize; 3]> {
        let extent = |axis: usize| -> Option<usize> {
            // Checked: the pads come from the model file, and a corrupt one can hold any size.
            let padded = self.input[1 + axis].checked_add(self.pads[axis])?.checked_add(self.pads[axis + 2])?;
            let reach = (self.kernel[2 + axis].checked_sub(1)?).checked_mul(self.dilations[axis])? + 1;
            Some(padded.checked_sub(reach)? / self.strides[axis].max(1) + 1)
        };
        Some([self.kernel[0], extent(0)?, extent(1)?])
    }

    /// The output's shape (checked when the step was made).
    pub fn output_shape(&self) -> Vec<usize> {
        self.output().expect("a checked convolution").to_vec()
    }
}

/// Which pool, and for the average what it divides by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolKind {
    Max,
    /// `count_pad`: divide by the whole window (`countPad = 1`) rather than by its taps inside
    /// the input.
    Average {
        count_pad: bool,
    },
}

/// A 2-D pool (`maxPool2d`, `avgPool2d`): its window, attributes and the shape it reads.
#[derive(Clone, Debug, PartialEq)]
pub struct Pool {
    pub kind: PoolKind,
    /// `(C, H, W)`, the tensor it reads.
    pub input: [usize; 3],
    /// `[kH, kW]`.
    pub kernel: [usize; 2],
    pub strides: [usize; 2],
    /// `[top, left, bottom, right]`.
    pub pads: [usize; 4],
    /// `[1, 1]` for the average (`avgPool2d` has no dilations).
    pub dilations: [usize; 2],
}

impl Pool {
    /// `(C, OH, OW)`, `None` when the window does not fit the padded input: the same
    /// arithmetic as a convolution's, with one output channel per input channel.
    pub fn output(&self) -> Option<[usize; 3]> {
        let [c, h, w] = self.input;
        let [kh, kw] = self.kernel;
        let conv = Conv {
            input: [c, h, w],
            kernel: [c, 1, kh, kw],
            weights: Arc::new([]),
            bias: None,
            strides: self.strides,
            pads: self.pads,
            dilations: self.dilations,
            group: 1,
        };
        conv.output()
    }

    pub fn output_shape(&self) -> Vec<usize> {
        self.output().expect("a checked pool").to_vec()
    }
}
