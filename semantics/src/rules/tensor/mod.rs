//! "Tensor" (k-nn.md L143–213), a file for each part of the section, in the K file's order:
//! allocation with `initTensor` (`allocation.rs`), lookups and indexing (`[anywhere]`,
//! `lookup.rs`) and element assignment through `storeVal` (`assignment.rs`).

mod allocation;
mod assignment;
mod lookup;

pub use allocation::{
    DEFINE_TENSOR_1D, DEFINE_TENSOR_HELPER_LAST, DEFINE_TENSOR_HELPER_STEP, DEFINE_TENSOR_ND, LET_INIT_TENSOR,
};
pub use assignment::{
    CTX_STOREVAL_BASE, CTX_STOREVAL_VALUE, LET_INDEX_ASSIGN, STORE_AT_VAL, STOREVAL_ID_1D, STOREVAL_LOOKUP,
    STOREVAL_SPLIT,
};
pub use lookup::{INDEX_TENSOR_ANYWHERE, INDEX_TENSOR_SPLIT_ANYWHERE, LOOKUP_ID, LOOKUP_LOC, build_index_published};

use super::{Rule, Section};

const SECTION: Section = Section::Tensor;

/// The rules and contexts of this section, in file order.
pub static RULES: &[&Rule] = &[
    &LET_INIT_TENSOR,
    &DEFINE_TENSOR_1D,
    &DEFINE_TENSOR_ND,
    &DEFINE_TENSOR_HELPER_STEP,
    &DEFINE_TENSOR_HELPER_LAST,
    &LOOKUP_ID,
    &INDEX_TENSOR_ANYWHERE,
    &INDEX_TENSOR_SPLIT_ANYWHERE,
    &LOOKUP_LOC,
    &LET_INDEX_ASSIGN,
    &CTX_STOREVAL_VALUE,
    &CTX_STOREVAL_BASE,
    &STOREVAL_SPLIT,
    &STOREVAL_ID_1D,
    &STOREVAL_LOOKUP,
    &STORE_AT_VAL,
];
