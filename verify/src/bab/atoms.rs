//! The property's atoms on a box: their linear bounds over the last layer (fixed slopes in one
//! pass, then optimised slopes and sign multipliers for those still open), and which
//! conjunctions they refute.

use super::CaseSearch;
use crate::alpha::{SignConstraint, Steps, Warm, optimise_row_from};
use crate::deadline::Deadline;
use crate::float::Interval;
use crate::interval::Bounds;
use crate::linear::{LowerBound, back_substitute};
use crate::network::Network;
use crate::prepare::PreparedLayers;
use crate::property::Atom;
use crate::relax::LowerSlope;

/// An atom's coefficients over the last layer's vector and its constant, when they are
/// binary64 values (else it is decided by interval bounds alone).
pub(super) type DenseAtom = Option<(Vec<f64>, Interval)>;

/// The linear bounds of the atoms of the open conjunctions on one box: `owners[r]` is the
/// (conjunction, atom) of bound `r`.
pub(super) struct AtomBounds {
    pub(super) owners: Vec<(usize, usize)>,
    pub(super) fixed: Vec<LowerBound>,
    pub(super) optimised: Vec<Option<LowerBound>>,
    /// Per conjunction of the case.
    pub(super) refuted: Vec<bool>,
    /// Where each optimised bound's slopes and multipliers ended (for the parts of the box).
    pub(super) warm: WarmStarts,
}

/// Where the optimisation of each atom's bound ended on a box: `(conjunction, atom)` and its
/// [`Warm`], for the parts split from it.
pub type WarmStarts = Vec<((usize, usize), Warm)>;

/// An unsafe conjunction prepared for linear bounds.
pub(super) struct PreparedConjunction {
    pub(super) atoms: Vec<(Atom, DenseAtom)>,
}

impl CaseSearch<'_> {
    /// Linear bounds of every dense atom of the `open` conjunctions, with fixed slopes (in one
    /// pass) and, for atoms that leaves open, optimised ones (α-CROWN, a row at a time).
    /// On a part of a box cut out by relu signs (`signs`), the optimised bounds carry
    /// multipliers of those signs (β-CROWN) and hold on the part only. `None` when `deadline`
    /// passes first.
    pub(super) fn atom_bounds(
        &self,
        bounds: &Bounds,
        prepared: &mut PreparedLayers,
        open: &[usize],
        signs: &[SignConstraint],
        warm: Option<&WarmStarts>,
        deadline: Deadline,
    ) -> Option<AtomBounds> {
        let layers = &self.net.layers;
        let mut rows = Vec::new();
        let mut owners = Vec::new();
        for &c in open {
            for (a, (_, dense)) in self.conjunctions[c].atoms.iter().enumerate() {
                if let Some((coefficients, _)) = dense {
                    rows.extend_from_slice(coefficients);
                    owners.push((c, a));
                }
            }
        }
        let last = layers.len() - 1;
        let fixed = if owners.is_empty() {
            Vec::new()
        } else {
            back_substitute(layers, bounds, prepared, last, rows, self.width)
        };
        let mut refuted = vec![false; self.conjunctions.len()];
        let dense_of =
            |(c, a): (usize, usize)| self.conjunctions[c].atoms[a].1.as_ref().expect("only dense atoms have rows");
        let refutes = |owner: (usize, usize), bound: &LowerBound| {
            self.conjunctions[owner.0].atoms[owner.1].0.never_given(bound.value, dense_of(owner).1)
        };
        for (owner, bound) in owners.iter().zip(&fixed) {
            refuted[owner.0] |= refutes(*owner, bound);
        }
        // The optimised slopes only refute and steer: either alone splits some instances far
        // worse than both (docs/verification.md, "Branch and bound").
        let mut optimised: Vec<Option<LowerBound>> = vec![None; fixed.len()];
        let mut ended = Vec::new();
        let steps = if warm.is_some() { Steps::WARM } else { Steps::COLD };
        for ((owner, bound), slot) in owners.iter().zip(&fixed).zip(optimised.iter_mut()) {
            if refuted[owner.0] {
                continue;
            }
            if deadline.passed() {
                return None;
            }
            let row = &dense_of(*owner).0;
            let start = warm.and_then(|w| w.iter().find(|(o, _)| o == owner)).map(|(_, w)| w);
            let (better, end) = optimise_row_from(
                layers,
                bounds,
                prepared,
                last,
                row,
                LowerSlope::Chord,
                bound.clone(),
                f64::INFINITY,
                signs,
                start,
                steps,
            );
            refuted[owner.0] |= refutes(*owner, &better);
            *slot = Some(better);
            ended.push((*owner, end));
        }
        Some(AtomBounds { owners, fixed, optimised, refuted, warm: ended })
    }
}

/// An atom's coefficients over the last layer's vector (output `k` is element
/// `net.outputs[k]` there) and its constant, when exact.
pub(super) fn dense_over_last(net: &Network, atom: &Atom, width: usize) -> DenseAtom {
    let (over_outputs, constant) = atom.dense(net.outputs.len())?;
    let mut over_last = vec![0.0; width];
    for (k, c) in over_outputs.into_iter().enumerate() {
        if c == 0.0 {
            continue;
        }
        let slot = &mut over_last[net.outputs[k]];
        if *slot != 0.0 {
            // Two outputs that are the same element: keep it simple and exact.
            return None;
        }
        *slot = c;
    }
    Some((over_last, constant))
}

#[cfg(test)]
mod tests {
    use knn_semantics::syntax::{Grammar, parse_program};

    use super::*;
    use crate::interval::network_bounds;
    use crate::property::{Case, Conjunction, Constant, InputBox};
    use crate::tighten::{Slopes, tighten};
    use knn_engine::bigstep::{Binding, InputData, compile};

    /// `Y_0 + c ≤ 0`: the output is at most `−c`.
    fn at_most(c: f64) -> Conjunction {
        Conjunction {
            atoms: vec![Atom {
                terms: vec![(0, Constant::exact(1.0))],
                constants: vec![Constant::exact(c)],
                strict: false,
                span: None,
            }],
        }
    }

    #[test]
    fn fixed_slopes_refute_first_and_optimised_slopes_refute_the_rest() {
        // y = relu(x) on [−1, 3]. The fixed lower line (slope 3/4, alpha.rs's test
        // `a_network_that_is_one_relu_is_optimised_too`) bounds y below by −3/4; optimised
        // slopes reach the true minimum 0. "y ≤ −1" is refuted by the fixed bound
        // (−3/4 + 1 > 0) and must then cost no optimisation; "y ≤ −1/2" is refuted only by the
        // optimised one (−3/4 + 1/2 < 0 < 0 + 1/2).
        let program = parse_program("let h = reluTensor(x) in h", Grammar::Relaxed).unwrap();
        let plan = compile(&program, &[Binding { name: "x".into(), shape: vec![1], data: InputData::Symbolic }]);
        let net = Network::from_plan(&plan).unwrap();
        let region = InputBox { lower: vec![Constant::exact(-1.0)], upper: vec![Constant::exact(3.0)] };
        let case = Case { input: region, unsafe_when: vec![at_most(1.0), at_most(0.5)] };
        let search = CaseSearch::new(&net, &plan, &case).unwrap();
        let input = search.root().to_vec();
        let mut bounds = Bounds { layers: network_bounds(&net.layers, &input).unwrap(), input };
        let mut prepared = PreparedLayers::new(net.layers.len());
        tighten(&net.layers, &mut bounds, &mut prepared, Slopes::Fixed, Deadline::NEVER).unwrap();
        let found =
            search.atom_bounds(&bounds, &mut prepared, &[0, 1], &[], None, Deadline::NEVER).expect("no deadline");
        assert_eq!(found.owners, [(0, 0), (1, 0)]);
        assert!((found.fixed[1].value + 0.75).abs() < 1e-12, "the fixed bound: {}", found.fixed[1].value);
        assert_eq!(found.refuted, [true, true]);
        assert!(found.optimised[0].is_none(), "refuted by the fixed bound, not optimised");
        assert!(found.optimised[1].as_ref().is_some_and(|b| b.value > -0.5), "{:?}", found.optimised[1]);
        // After the deadline the optimisation "y ≤ −1/2" needs is not started: nothing is found.
        let late = Deadline::at(std::time::Instant::now());
        assert!(search.atom_bounds(&bounds, &mut prepared, &[0, 1], &[], None, late).is_none());
    }
}
