//! The tokens of K-NN: the keywords (the grammar's reserved terminals), the token kinds the
//! scanner produces, and which names can be written as identifiers.

use super::super::ast::Span;
use super::super::grammar::Grammar;
use super::super::tensor_math::TensorMath;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keyword {
    Let,
    In,
    Max,
    Min,
    ArgMax,
    InitTensor,
    Relu,
    ReluTensor,
    Tanh,
    TanhTensor,
    Sigmoid,
    SigmoidTensor,
    Linear,
    /// `addTensor` (Ext-1): a keyword of the relaxed grammar only; the K grammar reads it as an
    /// identifier (see [`Keyword::in_grammar`]).
    AddTensor,
    /// `conv2d` (Ext-3): a keyword of the relaxed grammar only, as `addTensor`.
    Conv2d,
    /// `maxPool2d` and `avgPool2d` (Ext-4): keywords of the relaxed grammar only, as `addTensor`.
    MaxPool2d,
    AvgPool2d,
    /// `reshape` and `flatten` (Ext-5): keywords of the relaxed grammar only, as `addTensor`.
    Reshape,
    Flatten,
    /// `transpose` (Ext-6): a keyword of the relaxed grammar only, as `addTensor`.
    Transpose,
    /// `subTensor`, `mulTensor`, `divTensor` (Ext-8): keywords of the relaxed grammar only, as
    /// `addTensor`.
    SubTensor,
    MulTensor,
    DivTensor,
    /// `expTensor`, `logTensor`, `softmax`, `logSoftmax` (Ext-9) and the reductions (Ext-10):
    /// keywords of the relaxed grammar only, as `addTensor`.
    TensorMath(TensorMath),
    /// `concat` (Ext-11): a keyword of the relaxed grammar only, as `addTensor`.
    Concat,
    /// `slice` (Ext-12): a keyword of the relaxed grammar only, as `addTensor`.
    Slice,
    /// `pad` (Ext-13): a keyword of the relaxed grammar only, as `addTensor`.
    Pad,
    /// `matmul` (Ext-15): a keyword of the relaxed grammar only, as `addTensor`.
    Matmul,
    /// `batchNorm` (Ext-14): a keyword of the relaxed grammar only, as `addTensor`.
    BatchNorm,
}

impl Keyword {
    pub const ALL: [Keyword; 36] = [
        Keyword::Let,
        Keyword::In,
        Keyword::Max,
        Keyword::Min,
        Keyword::ArgMax,
        Keyword::InitTensor,
        Keyword::Relu,
        Keyword::ReluTensor,
        Keyword::Tanh,
        Keyword::TanhTensor,
        Keyword::Sigmoid,
        Keyword::SigmoidTensor,
        Keyword::Linear,
        Keyword::AddTensor,
        Keyword::Conv2d,
        Keyword::MaxPool2d,
        Keyword::AvgPool2d,
        Keyword::Reshape,
        Keyword::Flatten,
        Keyword::Transpose,
        Keyword::SubTensor,
        Keyword::MulTensor,
        Keyword::DivTensor,
        Keyword::TensorMath(TensorMath::ExpTensor),
        Keyword::TensorMath(TensorMath::LogTensor),
        Keyword::TensorMath(TensorMath::Softmax),
        Keyword::TensorMath(TensorMath::LogSoftmax),
        Keyword::TensorMath(TensorMath::ReduceSum),
        Keyword::TensorMath(TensorMath::ReduceMean),
        Keyword::TensorMath(TensorMath::ReduceMax),
        Keyword::TensorMath(TensorMath::ReduceMin),
        Keyword::Concat,
        Keyword::Slice,
        Keyword::Pad,
        Keyword::Matmul,
        Keyword::BatchNorm,
    ];

    pub fn text(self) -> &'static str {
        match self {
            Keyword::Let => "let",
            Keyword::In => "in",
            Keyword::Max => "max",
            Keyword::Min => "min",
            Keyword::ArgMax => "ArgMax",
            Keyword::InitTensor => "initTensor",
            Keyword::Relu => "relu",
            Keyword::ReluTensor => "reluTensor",
            Keyword::Tanh => "tanh",
            Keyword::TanhTensor => "tanhTensor",
            Keyword::Sigmoid => "sigmoid",
            Keyword::SigmoidTensor => "sigmoidTensor",
            Keyword::Linear => "linear",
            Keyword::AddTensor => "addTensor",
            Keyword::Conv2d => "conv2d",
            Keyword::MaxPool2d => "maxPool2d",
            Keyword::AvgPool2d => "avgPool2d",
            Keyword::Reshape => "reshape",
            Keyword::Flatten => "flatten",
            Keyword::Transpose => "transpose",
            Keyword::SubTensor => "subTensor",
            Keyword::MulTensor => "mulTensor",
            Keyword::DivTensor => "divTensor",
            Keyword::TensorMath(f) => f.keyword(),
            Keyword::Concat => "concat",
            Keyword::Slice => "slice",
            Keyword::Pad => "pad",
            Keyword::Matmul => "matmul",
            Keyword::BatchNorm => "batchNorm",
        }
    }

    pub(super) fn from_text(text: &str) -> Option<Keyword> {
        // Every word of a program is looked up here: a match on the text, not a search of ALL
        // (the test `keywords_read_back` holds the two together).
        Some(match text {
            "let" => Keyword::Let,
            "in" => Keyword::In,
            "max" => Keyword::Max,
            "min" => Keyword::Min,
            "ArgMax" => Keyword::ArgMax,
            "initTensor" => Keyword::InitTensor,
            "relu" => Keyword::Relu,
            "reluTensor" => Keyword::ReluTensor,
            "tanh" => Keyword::Tanh,
            "tanhTensor" => Keyword::TanhTensor,
            "sigmoid" => Keyword::Sigmoid,
            "sigmoidTensor" => Keyword::SigmoidTensor,
            "linear" => Keyword::Linear,
            "addTensor" => Keyword::AddTensor,
            "conv2d" => Keyword::Conv2d,
            "maxPool2d" => Keyword::MaxPool2d,
            "avgPool2d" => Keyword::AvgPool2d,
            "reshape" => Keyword::Reshape,
            "flatten" => Keyword::Flatten,
            "transpose" => Keyword::Transpose,
            "subTensor" => Keyword::SubTensor,
            "mulTensor" => Keyword::MulTensor,
            "divTensor" => Keyword::DivTensor,
            "expTensor" => Keyword::TensorMath(TensorMath::ExpTensor),
            "logTensor" => Keyword::TensorMath(TensorMath::LogTensor),
            "softmax" => Keyword::TensorMath(TensorMath::Softmax),
            "logSoftmax" => Keyword::TensorMath(TensorMath::LogSoftmax),
            "reduceSum" => Keyword::TensorMath(TensorMath::ReduceSum),
            "reduceMean" => Keyword::TensorMath(TensorMath::ReduceMean),
            "reduceMax" => Keyword::TensorMath(TensorMath::ReduceMax),
            "reduceMin" => Keyword::TensorMath(TensorMath::ReduceMin),
            "concat" => Keyword::Concat,
            "slice" => Keyword::Slice,
            "pad" => Keyword::Pad,
            "matmul" => Keyword::Matmul,
            "batchNorm" => Keyword::BatchNorm,
            _ => return None,
        })
    }

    /// Keywords that start a `Func` (the right-hand side of a let-Func).
    pub fn is_func(self) -> bool {
        !matches!(self, Keyword::Let | Keyword::In | Keyword::Max | Keyword::Min | Keyword::ArgMax)
    }

    /// Whether the keyword belongs to the grammar's syntax: the extensions' keywords
    /// (`addTensor`, Ext-1; `conv2d`, Ext-3; the pools, Ext-4; `reshape`, `flatten`, Ext-5;
    /// `transpose`, Ext-6; Ext-9's and Ext-10's functions; `concat`, Ext-11; `slice`, Ext-12) are not in
    /// `KNN-SYNTAX`, so K reads them as identifiers.
    /// `transpose`, Ext-6; Ext-9's and Ext-10's functions; `pad`, Ext-13) are not in `KNN-SYNTAX`, so K reads
    /// `transpose`, Ext-6; Ext-9's and Ext-10's functions; `matmul`, Ext-15) are not in `KNN-SYNTAX`, so K reads
    /// them as identifiers; nor is `batchNorm`, Ext-14.
    pub fn in_grammar(self, grammar: Grammar) -> bool {
        grammar == Grammar::Relaxed
            || !matches!(
                self,
                Keyword::AddTensor
                    | Keyword::Conv2d
                    | Keyword::MaxPool2d
                    | Keyword::AvgPool2d
                    | Keyword::Reshape
                    | Keyword::Flatten
                    | Keyword::Transpose
                    | Keyword::SubTensor
                    | Keyword::MulTensor
                    | Keyword::DivTensor
                    | Keyword::TensorMath(_)
                    | Keyword::Concat
                    | Keyword::Slice
                    | Keyword::Pad
                    | Keyword::Matmul
                    | Keyword::BatchNorm
            )
    }
}

/// Whether `name` can be written as an identifier in a program.
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && Keyword::from_text(name).is_none()
}

/// A token's kind and value. An identifier's name is its text (`Token::span` in the source), so
/// a token is copied without allocating.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TokenKind {
    Float(f64),
    Int(i64),
    Id,
    Keyword(Keyword),
    LParen,
    RParen,
    LBracket,
    RBracket,
    Comma,
    Equals,
    Star,
    Plus,
    /// `…`: the elements of a tensor literal held as data beside the text (a network built in
    /// memory, [`super::parser::parse_program_with_elements`]); no production of K-NN has it.
    Ellipsis,
    Eof,
    /// `-` and `/` (Ext-7): the relaxed grammar's subtraction and division; K's scanner has
    /// neither (a `-` only as the sign of a Float).
    Minus,
    Slash,
}

impl TokenKind {
    /// How the token is named in "expected …, found …" messages.
    pub fn describe(&self, text: &str) -> String {
        match self {
            TokenKind::Float(_) => format!("float `{text}`"),
            TokenKind::Int(_) => format!("integer `{text}`"),
            TokenKind::Id => format!("identifier `{text}`"),
            TokenKind::Eof => "end of program".to_string(),
            _ => format!("`{text}`"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Token {
    pub kind: TokenKind,
    pub span: Span,
}
