//! The steps of a graph that branches: a value kept for a later reader, a branch taken up from
//! it, and the sum of two branches, `let h4 = addTensor(z3, h1) in` (Ext-1; in the element-`let`
//! style, which any grammar reads, a fresh tensor written element by element). Also the
//! constant operand of a product (`Step::Literal`), a tensor literal.

use knn_semantics::broadcast::operand_index;
use knn_semantics::matmul::{inner_extent, left_index, right_index};
use knn_semantics::syntax::TensorOp;
use knn_semantics::syntax::print::float_literal;

use super::{Emitter, Style, literal, shape_words};
use crate::import::{Network, Step};

/// Which elements are known not to be `-0.0` after a run of element-wise steps, given `flags`
/// before it (as [`super::element`] tracks them for each element's write).
pub(super) fn flags_after(steps: &[&Step], mut flags: Vec<bool>) -> Vec<bool> {
    for step in steps {
        for (i, flag) in flags.iter_mut().enumerate() {
            *flag = match step {
                // x + c is -0.0 only when x and c both are.
                Step::Add(c) => *flag || c[i].to_bits() != (-0f64).to_bits(),
                Step::Mul(c) => *flag && c[i] == 1.0,
                _ => false,
            };
        }
    }
    flags
}

impl Emitter<'_> {
    /// A [`Step::Keep`], [`Step::Resume`] or [`Step::AddKept`] after the element-wise steps
    /// before it were written; `flags` tells which elements of the current tensor are known
    /// not to be `-0.0`, and the result the same of the current tensor after the step.
    pub(super) fn branch_step(
        &mut self,
        network: &Network,
        step: &Step,
        name_as_output: bool,
        flags: Vec<bool>,
    ) -> Vec<bool> {
        match step {
            Step::Keep(slot) => {
                self.kept.push((*slot, self.current.clone(), self.shape.clone(), flags.clone()));
                self.protected.push(self.current.clone());
                flags
            }
            Step::Resume(slot) => {
                let (_, name, shape, kept_flags) = self.kept_value(*slot);
                self.current = name;
                self.shape = shape;
                kept_flags
            }
            Step::AddKept { slot, kept_first } => self.add_kept(network, *slot, *kept_first, name_as_output, flags),
            Step::ConcatKept { slot, kept_first, axis, output } => {
                self.concat_kept(network, *slot, *kept_first, (*axis, output), name_as_output)
            }
            Step::ArithKept { slot, op, output } => self.arith_kept(network, (*slot, *op), output, name_as_output),
            Step::MatmulKept { slot, kept_first, output } => {
                self.matmul_kept(network, (*slot, *kept_first), output, name_as_output)
            }
            _ => unreachable!("only branch steps"),
        }
    }

    /// `concat` of the current tensor and a kept one, in the graph's order (Ext-11): a fresh
    /// tensor of shape `output`.
    fn concat_kept(
        &mut self,
        network: &Network,
        slot: usize,
        kept_first: bool,
        (axis, output): (usize, &[usize]),
        name_as_output: bool,
    ) -> Vec<bool> {
        let (_, other, ..) = self.kept_value(slot);
        let target = if name_as_output { network.output.clone() } else { format!("h{}", self.copies) };
        self.copies += 1;
        let (a, b) = if kept_first { (other, self.current.clone()) } else { (self.current.clone(), other) };
        let _ = writeln!(self.out, "\n// Two branches joined along axis {axis}: {a}, {b}");
        let _ = writeln!(self.out, "let {target} = concat({a}, {b}, {axis}) in");
        self.current = target;
        self.shape = output.to_vec();
        // Which elements are known not to be -0.0 is not carried through the interleaving.
        vec![false; self.shape.iter().product()]
    }

    fn kept_value(&self, slot: usize) -> (usize, String, Vec<usize>, Vec<bool>) {
        self.kept.iter().rev().find(|(k, ..)| *k == slot).cloned().expect("a value is kept before it is read again")
    }

    /// `addTensor` of the current tensor and a kept one, in the graph's order.
    fn add_kept(
        &mut self,
        network: &Network,
        slot: usize,
        kept_first: bool,
        name_as_output: bool,
        flags: Vec<bool>,
    ) -> Vec<bool> {
        let (_, other, _, other_flags) = self.kept_value(slot);
        let target = if name_as_output { network.output.clone() } else { format!("h{}", self.copies) };
        self.copies += 1;
        let (a, b) = if kept_first { (other, self.current.clone()) } else { (self.current.clone(), other) };
        let _ = writeln!(self.out, "\n// The sum of two branches: {a} + {b} ({})", shape_words(&self.shape));
        if self.style == Style::ElementLets {
            let dims = self.shape.iter().map(usize::to_string).collect::<Vec<_>>().join(", ");
            let _ = writeln!(self.out, "let {target} = initTensor({dims}) in");
            for i in 0..flags.len() {
                let index = self.index(i);
                let _ = writeln!(self.out, "let {target}[{index}] = {a}[{index}] + {b}[{index}] in");
            }
        } else {
            let _ = writeln!(self.out, "let {target} = addTensor({a}, {b}) in");
        }
        self.current = target;
        // a + b is -0.0 only when a and b both are.
        flags.iter().zip(&other_flags).map(|(&x, &y)| x || y).collect()
    }

    /// `matmul` of the current tensor and a kept one, in the graph's order (Ext-15). In the
    /// element-`let` style, each element from `initTensor`'s 0.0 with its products in
    /// increasing order, `t[o] = t[o] + a[…] * b[…]`, as `ext-matmul-helper-step` writes them.
    fn matmul_kept(
        &mut self,
        network: &Network,
        (slot, kept_first): (usize, bool),
        output: &[usize],
        name_as_output: bool,
    ) -> Vec<bool> {
        let (_, other, other_shape, _) = self.kept_value(slot);
        let target = if name_as_output { network.output.clone() } else { format!("h{}", self.copies) };
        self.copies += 1;
        let (a, b) = if kept_first { (other, self.current.clone()) } else { (self.current.clone(), other) };
        let (a_shape, b_shape) =
            if kept_first { (other_shape, self.shape.clone()) } else { (self.shape.clone(), other_shape) };
        let _ = writeln!(self.out, "\n// The product of two branches: {a} times {b} ({})", shape_words(output));
        if self.style == Style::ElementLets {
            let dims = output.iter().map(usize::to_string).collect::<Vec<_>>().join(", ");
            let _ = writeln!(self.out, "let {target} = initTensor({dims}) in");
            let as_i64 = |d: &[usize]| d.iter().map(|&n| n as i64).collect::<Vec<i64>>();
            let (is, js) = (as_i64(&a_shape), as_i64(&b_shape));
            let words = |index: &[i64]| index.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
            let count: usize = output.iter().product();
            let mut o = vec![0i64; output.len()];
            for _ in 0..count {
                for p in 0..inner_extent(&is) {
                    let (l, r) = (left_index(&o, p, &is, &js), right_index(&o, p, &is, &js));
                    let (o, l, r) = (words(&o), words(&l), words(&r));
                    let _ = writeln!(self.out, "let {target}[{o}] = {target}[{o}] + {a}[{l}] * {b}[{r}] in");
                }
                for (slot, &d) in o.iter_mut().zip(output).rev() {
                    *slot += 1;
                    if *slot < d as i64 {
                        break;
                    }
                    *slot = 0;
                }
            }
        } else {
            let _ = writeln!(self.out, "let {target} = matmul({a}, {b}) in");
        }
        self.current = target;
        self.shape = output.to_vec();
        // Each element is a sum from 0.0, never -0.0 (x + y is -0.0 only when both are).
        vec![true; output.iter().product()]
    }

    /// `addTensor`, `subTensor`, `mulTensor` or `divTensor` of a kept tensor and the current
    /// one, broadcast (Ext-8). In the element-`let` style, each element of the result in
    /// row-major order from its operands' elements at their broadcast indices.
    fn arith_kept(
        &mut self,
        network: &Network,
        (slot, op): (usize, Option<TensorOp>),
        output: &[usize],
        name_as_output: bool,
    ) -> Vec<bool> {
        let (_, a, a_shape, _) = self.kept_value(slot);
        let (b, b_shape) = (self.current.clone(), self.shape.clone());
        let target = if name_as_output { network.output.clone() } else { format!("h{}", self.copies) };
        self.copies += 1;
        let (keyword, symbol) = match op {
            None => ("addTensor", "+"),
            Some(TensorOp::Sub) => ("subTensor", "-"),
            Some(TensorOp::Mul) => ("mulTensor", "*"),
            Some(TensorOp::Div) => ("divTensor", "/"),
        };
        let _ = writeln!(self.out, "\n// Two branches, element by element: {a} {symbol} {b} ({})", shape_words(output));
        if self.style == Style::ElementLets {
            let dims = output.iter().map(usize::to_string).collect::<Vec<_>>().join(", ");
            let _ = writeln!(self.out, "let {target} = initTensor({dims}) in");
            let as_i64 = |d: &[usize]| d.iter().map(|&n| n as i64).collect::<Vec<i64>>();
            let (is, js) = (as_i64(&a_shape), as_i64(&b_shape));
            let words = |index: &[i64]| index.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
            let mut o = vec![0i64; output.len()];
            for _ in 0..output.iter().product::<usize>() {
                let (l, r) = (words(&operand_index(&o, &is)), words(&operand_index(&o, &js)));
                let at = words(&o);
                let _ = writeln!(self.out, "let {target}[{at}] = {a}[{l}] {symbol} {b}[{r}] in");
                for (slot, &d) in o.iter_mut().zip(output).rev() {
                    *slot += 1;
                    if *slot < d as i64 {
                        break;
                    }
                    *slot = 0;
                }
            }
        } else {
            let _ = writeln!(self.out, "let {target} = {keyword}({a}, {b}) in");
        }
        self.current = target;
        self.shape = output.to_vec();
        // Which elements may be -0.0 is not tracked through two operands: none is known not to.
        vec![false; output.iter().product()]
    }
}

impl Emitter<'_> {
    /// A constant tensor as the current one (`Step::Literal`): `let W3 = initTensor(dims)[…] in`,
    /// or, in the element-`let` style, `initTensor(dims)` and one `let` per element that is not
    /// `+0.0`. Its elements may be anything, `-0.0` included.
    pub(super) fn constant(&mut self, dims: &[usize], values: &[f64]) -> Vec<bool> {
        let w = format!("W{}", self.linears);
        self.linears += 1;
        let words = dims.iter().map(usize::to_string).collect::<Vec<_>>().join(", ");
        let _ = writeln!(self.out, "\n// A constant matrix, {}", shape_words(dims));
        let row = dims.last().copied().unwrap_or(1).max(1);
        match self.style {
            Style::Skeleton => {
                let _ = writeln!(self.out, "let {w} = initTensor({words})[…] in");
            }
            Style::Literals => literal(self.out, &w, dims, row, values),
            Style::ElementLets => {
                let _ = writeln!(self.out, "let {w} = initTensor({words}) in");
                self.current = w.clone();
                self.shape = dims.to_vec();
                for (i, &v) in values.iter().enumerate() {
                    if v.to_bits() != 0f64.to_bits() {
                        let _ = writeln!(self.out, "let {w}[{}] = {} in", self.index(i), float_literal(v));
                    }
                }
            }
        }
        self.current = w;
        self.shape = dims.to_vec();
        values.iter().map(|v| v.to_bits() != (-0f64).to_bits()).collect()
    }
}
