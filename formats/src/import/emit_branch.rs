//! The steps of a graph that branches: a value kept for a later reader, a branch taken up from
//! it, and the sum of two branches, `let h4 = addTensor(z3, h1) in` (Ext-1; in the element-`let`
//! style, which any grammar reads, a fresh tensor written element by element).

use super::{Emitter, Style, shape_words};
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
}
