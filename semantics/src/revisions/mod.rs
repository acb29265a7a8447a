//! The revised profile: the published rules plus the patches Rev-0…Rev-13 of
//! docs/semantics.md §4, each a set of rules it removes and rules it adds, with its reason, and the
//! extensions (Ext-1: `addTensor`; Ext-2: tensor literals; Ext-3: `conv2d`; Ext-4: the pools;
//! Ext-5: `reshape`, `flatten`; Ext-6: `transpose`; Ext-7: `-`, `/`; Ext-8: broadcasting
//! `addTensor`, `subTensor`, `mulTensor`, `divTensor`; Ext-9: `expTensor`, `logTensor`,
//! `softmax`, `logSoftmax`; Ext-10: the reductions; Ext-11: `concat`; Ext-12: `slice`), which
//! add constructs K-NN lacks. A patch's
//! `softmax`, `logSoftmax`; Ext-10: the reductions; Ext-13: `pad`), which add constructs K-NN lacks. A patch's
//! `softmax`, `logSoftmax`; Ext-10: the reductions; Ext-15: `matmul`), which add constructs
//! K-NN lacks; Ext-14: `batchNorm`. A patch's
//! rules are written like the published ones: ID (`rev-…`, `ext-…`), K text, apply function.
//!
//! Where a patch's first draft left a choice open (its K was never compiled), the choice follows
//! the expected effects of docs/semantics.md §3's table and is documented on the rule and in
//! docs/semantics.md ("Choices made in implementing the patches").

pub mod rev00_porting;
pub mod rev01_unit_marker;
pub mod rev02_relu_every_rank;
pub mod rev03_assignment;
pub mod rev04_allocation;
pub mod rev05_bounds;
pub mod rev06_argmax;
pub mod rev07_shapes;
pub mod rev08_linear;
pub mod rev09_scalar_activations;
pub mod rev10_int_arithmetic;
pub mod rev11_determinism;
pub mod rev12_scoping;
pub mod rev13_tanh;

pub mod axes;
pub mod ext10_reduce;
pub mod ext11_concat;
pub mod ext12_slice;
pub mod ext13_pad;
pub mod ext14_batch_norm;
pub mod ext15_matmul;
pub mod ext1_add_tensor;
pub mod ext2_tensor_literal;
pub mod ext3_conv2d;
pub mod ext4_pool2d;
pub mod ext5_reshape;
pub mod ext6_transpose;
pub mod ext7_sub_div;
pub mod ext8_broadcast;
pub mod ext9_items;
pub mod ext9_softmax;

use crate::config::Config;
use crate::rules::Rule;
use crate::term::Node;

/// One revision: what it removes from the published rules and what it adds.
pub struct Patch {
    /// `Rev-5`, `Ext-1`.
    pub name: &'static str,
    pub title: &'static str,
    /// Why the published rules are changed.
    pub reason: &'static str,
    pub removes: &'static [&'static Rule],
    pub adds: &'static [&'static Rule],
}

/// Rev-0 … Rev-13, in order, then the extensions.
pub static PATCHES: &[&Patch] = &[
    &rev00_porting::PATCH,
    &rev01_unit_marker::PATCH,
    &rev02_relu_every_rank::PATCH,
    &rev03_assignment::PATCH,
    &rev04_allocation::PATCH,
    &rev05_bounds::PATCH,
    &rev06_argmax::PATCH,
    &rev07_shapes::PATCH,
    &rev08_linear::PATCH,
    &rev09_scalar_activations::PATCH,
    &rev10_int_arithmetic::PATCH,
    &rev11_determinism::PATCH,
    &rev12_scoping::PATCH,
    &rev13_tanh::PATCH,
    &ext1_add_tensor::PATCH,
    &ext2_tensor_literal::PATCH,
    &ext3_conv2d::PATCH,
    &ext4_pool2d::PATCH,
    &ext5_reshape::PATCH,
    &ext6_transpose::PATCH,
    &ext7_sub_div::PATCH,
    &ext8_broadcast::PATCH,
    &ext9_softmax::PATCH,
    &ext10_reduce::PATCH,
    &ext11_concat::PATCH,
    &ext12_slice::PATCH,
    &ext13_pad::PATCH,
    &ext15_matmul::PATCH,
    &ext14_batch_norm::PATCH,
];

/// `L |-> tensor(T, N)`: the header stored at `l`, as `(T, N)`.
pub fn header_at(config: &Config, l: i64) -> Option<(i64, i64)> {
    match config.store.get(l)?.node() {
        Node::Tensor { loc, len } => Some((*loc, *len)),
        _ => None,
    }
}

/// `0 <=Int I andBool I <Int N`
pub fn in_bounds(i: i64, n: i64) -> bool {
    0 <= i && i < n
}
