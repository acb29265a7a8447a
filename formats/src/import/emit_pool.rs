//! The pools and the reshapes of an imported network: `maxPool2d`, `avgPool2d`, `reshape` and
//! `flatten`, each into a fresh tensor named like an activation's (`h1`), so that a pooled
//! layer reads `let h1 = maxPool2d(h0, kernel = [2, 2], strides = [2, 2]) in`.

use std::fmt::Write;

use knn_semantics::syntax::print::float_literal;

use super::{Emitter, shape_words};
use crate::import::{Network, Pool, PoolKind, Reduction};

impl Emitter<'_> {
    /// The target of a step that makes a tensor without weights: the output's name for the last
    /// one, `h{n}` otherwise.
    fn fresh(&mut self, network: &Network, name_as_output: bool) -> String {
        let target = if name_as_output { network.output.clone() } else { format!("h{}", self.copies) };
        self.copies += 1;
        target
    }

    /// `maxPool2d` or `avgPool2d` with the attributes that differ from the defaults (`kernel`
    /// is always written: the language requires it).
    pub(super) fn pool(&mut self, network: &Network, pool: &Pool, name_as_output: bool) -> Vec<bool> {
        let target = self.fresh(network, name_as_output);
        let output = pool.output_shape();
        let function = match pool.kind {
            PoolKind::Max => "maxPool2d",
            PoolKind::Average { .. } => "avgPool2d",
        };
        let [kh, kw] = pool.kernel;
        let mut operands = format!("{}, kernel = [{kh}, {kw}]", self.current);
        if pool.strides != [1, 1] {
            let _ = write!(operands, ", strides = [{}, {}]", pool.strides[0], pool.strides[1]);
        }
        if pool.pads != [0; 4] {
            let [t, l, b, r] = pool.pads;
            let _ = write!(operands, ", pads = [{t}, {l}, {b}, {r}]");
        }
        if pool.dilations != [1, 1] {
            let _ = write!(operands, ", dilations = [{}, {}]", pool.dilations[0], pool.dilations[1]);
        }
        if pool.kind == (PoolKind::Average { count_pad: true }) {
            operands.push_str(", countPad = 1");
        }
        let _ = writeln!(self.out, "\n// {function} {} -> {}", shape_words(&pool.input), shape_words(&output));
        let _ = writeln!(self.out, "let {target} = {function}({operands}) in");
        self.current = target;
        self.shape = output;
        let len = self.shape.iter().product();
        match pool.kind {
            // A maximum can be any element, `-0.0` too.
            PoolKind::Max => vec![false; len],
            // A sum from `0.0` is never `-0.0`, nor is its quotient by a positive count.
            PoolKind::Average { .. } => vec![true; len],
        }
    }

    /// `flatten` to a vector, `reshape` to any other shape. The elements are copied as they are,
    /// so nothing is known of their signs here.
    pub(super) fn reshape(&mut self, network: &Network, shape: &[usize], name_as_output: bool) -> Vec<bool> {
        let target = self.fresh(network, name_as_output);
        if let [_] = shape {
            let _ = writeln!(self.out, "let {target} = flatten({}) in", self.current);
        } else {
            let dims = shape.iter().map(usize::to_string).collect::<Vec<_>>().join(", ");
            let _ = writeln!(self.out, "let {target} = reshape({}, {dims}) in", self.current);
        }
        self.current = target;
        self.shape = shape.to_vec();
        vec![false; self.shape.iter().product()]
    }

    /// `let y = transpose(x, p0, …) in` (Ext-6): the elements moved, none computed.
    pub(super) fn transpose(
        &mut self,
        network: &Network,
        perm: &[usize],
        output: &[usize],
        name_as_output: bool,
    ) -> Vec<bool> {
        let target = self.fresh(network, name_as_output);
        let axes = perm.iter().map(usize::to_string).collect::<Vec<_>>().join(", ");
        let _ = writeln!(self.out, "let {target} = transpose({}, {axes}) in", self.current);
        self.current = target;
        self.shape = output.to_vec();
        vec![false; self.shape.iter().product()]
    }

    /// `slice(v, axis, begin, end, step)` (Ext-12; the step left out when it is 1): a fresh
    /// tensor of shape `output`.
    pub(super) fn slice(
        &mut self,
        network: &Network,
        [axis, begin, end, step]: [usize; 4],
        output: &[usize],
        name_as_output: bool,
    ) -> Vec<bool> {
        let target = self.fresh(network, name_as_output);
        let step = if step == 1 { String::new() } else { format!(", {step}") };
        let _ = writeln!(self.out, "let {target} = slice({}, {axis}, {begin}, {end}{step}) in", self.current);
        self.current = target;
        self.shape = output.to_vec();
        vec![false; self.shape.iter().product()]
    }

    /// `softmax(v, axis)` or `logSoftmax(v, axis)` (Ext-9): a fresh tensor of the same shape.
    /// A softmax is never `-0.0` (`exp` is `+0.0` at least, the sum positive); a log-softmax
    /// may be.
    pub(super) fn softmax(&mut self, network: &Network, axis: usize, log: bool, name_as_output: bool) -> Vec<bool> {
        let target = self.fresh(network, name_as_output);
        let function = if log { "logSoftmax" } else { "softmax" };
        let _ = writeln!(self.out, "let {target} = {function}({}, {axis}) in", self.current);
        self.current = target;
        vec![!log; self.shape.iter().product()]
    }

    /// `reduceSum(v, a0, …)` and the other reductions (Ext-10): a fresh tensor of shape `output`.
    pub(super) fn reduce(
        &mut self,
        network: &Network,
        kind: Reduction,
        axes: &[usize],
        output: &[usize],
        name_as_output: bool,
    ) -> Vec<bool> {
        let target = self.fresh(network, name_as_output);
        let axes = axes.iter().map(usize::to_string).collect::<Vec<_>>().join(", ");
        let _ = writeln!(self.out, "let {target} = {}({}, {axes}) in", kind.keyword(), self.current);
        self.current = target;
        self.shape = output.to_vec();
        vec![false; self.shape.iter().product()]
    }

    /// `pad(v, value, b0, …, a0, …)` (Ext-13): a fresh tensor of shape `output`. Whether an
    /// element is never `-0.0` is not followed through it.
    pub(super) fn pad(
        &mut self,
        network: &Network,
        value: f64,
        pads: &[usize],
        output: &[usize],
        name_as_output: bool,
    ) -> Vec<bool> {
        let target = self.fresh(network, name_as_output);
        let pads = pads.iter().map(usize::to_string).collect::<Vec<_>>().join(", ");
        let value = float_literal(value);
        let _ = writeln!(self.out, "let {target} = pad({}, {value}, {pads}) in", self.current);
        self.current = target;
        self.shape = output.to_vec();
        vec![false; self.shape.iter().product()]
    }
}
