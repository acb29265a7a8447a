//! The heads of `<k>`'s top item, by which the rules are indexed (`super::Rule::heads`).

use crate::config::KItem;
use crate::term::Node;

/// The head of the top item of `<k>`: rules are indexed by the heads they can match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Head {
    Float,
    Int,
    Tensor,
    Id,
    Index,
    Max,
    Min,
    ArgMax,
    Mul,
    Add,
    Let,
    LetFunc,
    DefineTensor,
    DefineTensorHelper,
    Lookup,
    StoreVal,
    StoreAtVal,
    ActHelper,
    ActItem,
    LinearHelper,
    LinearRows,
    LinearCols,
    LinearMac,
    ArgMaxHelper,
    Fun,
    Skip,
    Error,
    LinearChecked,
    Frozen,
    Alloc,
    Fill,
    WriteAt,
    BindTo,
    RestoreScope,
    AddTensorHelper,
    Conv2dHelper,
    Pool2dHelper,
    PoolMean,
    ReshapeHelper,
    TransposeHelper,
    /// `-` and `/` (Ext-7).
    Sub,
    Div,
    /// `broadcastHelper` (Ext-8).
    BroadcastHelper,
    MathItem,
    TensorMath,
    /// `concatHelper` (Ext-11).
    ConcatHelper,
    /// `sliceHelper` (Ext-12).
    SliceHelper,
    /// `padHelper` (Ext-13).
    PadHelper,
    /// `matmulHelper` (Ext-15).
    MatmulHelper,
    /// `batchNormHelper` (Ext-14).
    BatchNormHelper,
}

impl Head {
    pub const COUNT: usize = Head::BatchNormHelper as usize + 1;

    /// Heads on which a value sits (and cooling may apply).
    pub const VALUES: &'static [Head] = &[Head::Float, Head::Int, Head::Tensor];

    pub fn of(item: &KItem) -> Head {
        match item {
            KItem::Frozen(_) => Head::Frozen,
            KItem::Alloc(_) => Head::Alloc,
            KItem::Fill { .. } => Head::Fill,
            KItem::WriteAt(_) => Head::WriteAt,
            KItem::BindTo(_) => Head::BindTo,
            KItem::RestoreScope { .. } => Head::RestoreScope,
            KItem::TensorMath(_) => Head::TensorMath,
            KItem::Term(t) => match t.node() {
                Node::Float(_) => Head::Float,
                Node::Int(_) => Head::Int,
                Node::Tensor { .. } => Head::Tensor,
                Node::Id(_) => Head::Id,
                Node::Index { .. } => Head::Index,
                Node::Max(..) => Head::Max,
                Node::Min(..) => Head::Min,
                Node::ArgMax(_) => Head::ArgMax,
                Node::Mul(..) => Head::Mul,
                Node::Add(..) => Head::Add,
                Node::Let { .. } => Head::Let,
                Node::LetFunc { .. } => Head::LetFunc,
                Node::DefineTensor { .. } => Head::DefineTensor,
                Node::DefineTensorHelper { .. } => Head::DefineTensorHelper,
                Node::Lookup(_) => Head::Lookup,
                Node::StoreVal { .. } => Head::StoreVal,
                Node::StoreAtVal { .. } => Head::StoreAtVal,
                Node::ActHelper { .. } => Head::ActHelper,
                Node::ActItem { .. } => Head::ActItem,
                Node::LinearHelper { .. } => Head::LinearHelper,
                Node::LinearRows { .. } => Head::LinearRows,
                Node::LinearCols { .. } => Head::LinearCols,
                Node::LinearMac(..) => Head::LinearMac,
                Node::ArgMaxHelper { .. } => Head::ArgMaxHelper,
                Node::Fun(_) => Head::Fun,
                Node::Skip => Head::Skip,
                Node::Error { .. } => Head::Error,
                Node::LinearChecked { .. } => Head::LinearChecked,
                Node::AddTensorHelper { .. } => Head::AddTensorHelper,
                Node::Conv2dHelper(_) => Head::Conv2dHelper,
                Node::Pool2dHelper(_) => Head::Pool2dHelper,
                Node::PoolMean { .. } => Head::PoolMean,
                Node::ReshapeHelper { .. } => Head::ReshapeHelper,
                Node::TransposeHelper { .. } => Head::TransposeHelper,
                Node::Sub(..) => Head::Sub,
                Node::Div(..) => Head::Div,
                Node::BroadcastHelper(_) => Head::BroadcastHelper,
                Node::MathItem { .. } => Head::MathItem,
                Node::ConcatHelper { .. } => Head::ConcatHelper,
                Node::SliceHelper { .. } => Head::SliceHelper,
                Node::PadHelper(_) => Head::PadHelper,
                Node::MatmulHelper(_) => Head::MatmulHelper,
                Node::BatchNormHelper(_) => Head::BatchNormHelper,
                // `node()` never returns a pending substitution.
                Node::Subst(_) => Head::Frozen,
            },
        }
    }
}
