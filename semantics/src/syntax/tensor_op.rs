//! The element-wise tensor functions of Ext-8 (`subTensor`, `mulTensor`, `divTensor`; `addTensor`
//! is Ext-1's), as the grammar names them.

/// The element-wise tensor functions Ext-8 adds beside `addTensor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TensorOp {
    Sub,
    Mul,
    Div,
}

impl TensorOp {
    pub fn keyword(self) -> &'static str {
        match self {
            TensorOp::Sub => "subTensor",
            TensorOp::Mul => "mulTensor",
            TensorOp::Div => "divTensor",
        }
    }
}
