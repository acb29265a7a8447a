//! Program syntax: tokens, the parser, syntax errors and the source printer.

pub mod ast;
pub mod attrs;
pub mod diagnostic;
pub mod elements;
mod func;
pub mod grammar;
pub mod lexer;
pub mod parser;
pub mod print;
pub mod tensor_math;
pub mod tensor_op;

pub use ast::{Attr, AttrName, Attrs, Exp, ExpKind, Func, FuncKind, Ident, IntList, Pool, Span};
pub use diagnostic::SyntaxError;
pub use elements::{Elements, Number};
pub use grammar::Grammar;
pub use parser::{parse_program, parse_program_with_elements};
pub use print::to_source;
pub use tensor_math::{Axes, TensorMath};
pub use tensor_op::TensorOp;
