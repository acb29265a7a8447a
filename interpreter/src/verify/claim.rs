//! The claims of `knn verify --claim` and the input regions of `--box` and `--around`, as
//! [`Property`]s. `argmax` is the revised `ArgMax` (`rev-argmax-step-greater`): the first
//! maximal index wins, so class `K` is the result exactly when every earlier score is
//! strictly below `Y_K` and every later one at most `Y_K`. The unsafe region is the
//! complement, atom by atom, strict where the claim is not.

use super::float::{add_down, add_up, sub_down, sub_up};
use super::property::{Atom, Case, Conjunction, Constant, InputBox, Property};

/// What is claimed of the program's class on the region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    /// The class is `K` everywhere.
    ArgmaxIs(usize),
    /// The class is never `K`.
    ArgmaxIsNot(usize),
    /// One class everywhere (the class at the centre, found first).
    ArgmaxStable,
}

impl Claim {
    /// `argmax=K`, `argmax!=K` or `argmax-stable`.
    ///
    /// ```
    /// use knn_interpreter::verify::claim::Claim;
    /// assert_eq!(Claim::parse("argmax!=2"), Ok(Claim::ArgmaxIsNot(2)));
    /// assert!(Claim::parse("argmin=0").unwrap_err().contains("expected argmax=K"));
    /// ```
    pub fn parse(text: &str) -> Result<Claim, String> {
        let class = |k: &str| k.trim().parse::<usize>().map_err(|_| format!("`{k}` is not a class index (0, 1, 2, …)"));
        if text == "argmax-stable" {
            Ok(Claim::ArgmaxStable)
        } else if let Some(k) = text.strip_prefix("argmax!=") {
            Ok(Claim::ArgmaxIsNot(class(k)?))
        } else if let Some(k) = text.strip_prefix("argmax=") {
            Ok(Claim::ArgmaxIs(class(k)?))
        } else {
            Err("expected argmax=K, argmax!=K or argmax-stable".to_string())
        }
    }
}

/// The outputs that make the class something other than `class`: some earlier score at least
/// `Y_class`, or some later one strictly above it.
pub fn class_is_not(class: usize, outputs: usize) -> Vec<Conjunction> {
    (0..outputs)
        .filter(|&j| j != class)
        .map(|j| {
            // j < K: Y_K ≤ Y_j breaks it (Y_K − Y_j ≤ 0); j > K: Y_K < Y_j (Y_K − Y_j < 0).
            Conjunction { atoms: vec![Atom::difference(class, j, j > class)] }
        })
        .collect()
}

/// The outputs whose class is `class`: every earlier score strictly below, every later one
/// at most `Y_class`.
pub fn class_is(class: usize, outputs: usize) -> Conjunction {
    let atoms = (0..outputs)
        .filter(|&j| j != class)
        // j < K: Y_j < Y_K (Y_j − Y_K < 0); j > K: Y_j ≤ Y_K.
        .map(|j| Atom::difference(j, class, j < class))
        .collect();
    Conjunction { atoms }
}

/// The property "the class is `class`" (or "is not", with `negated`) on `region`.
pub fn class_property(region: InputBox, class: usize, outputs: usize, negated: bool) -> Property {
    let unsafe_when = if negated { vec![class_is(class, outputs)] } else { class_is_not(class, outputs) };
    Property { inputs: region.len(), outputs, cases: vec![Case { input: region, unsafe_when }] }
}

/// The L∞ ball `|x − centre| ≤ eps`, cut to `[clip.0, clip.1]` when given: bounds as
/// written, `centre ± eps` enclosed by directed rounding (exact when the difference is).
pub fn ball(centre: &[Constant], eps: &Constant, clip: Option<(&Constant, &Constant)>) -> InputBox {
    let mut lower = Vec::with_capacity(centre.len());
    let mut upper = Vec::with_capacity(centre.len());
    for c in centre {
        let lo = Constant {
            text: format!("{c} - {eps}").into(),
            below: sub_down(c.below, eps.above),
            above: sub_up(c.above, eps.below),
        };
        let hi = Constant {
            text: format!("{c} + {eps}").into(),
            below: add_down(c.below, eps.below),
            above: add_up(c.above, eps.above),
        };
        match clip {
            Some((low, high)) => {
                lower.push(lo.max_lower(low.clone()));
                upper.push(hi.min_upper(high.clone()));
            }
            None => {
                lower.push(lo);
                upper.push(hi);
            }
        }
    }
    InputBox { lower, upper }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::property::Truth;

    fn truth_of(conjunctions: &[Conjunction], y: &[f64]) -> bool {
        conjunctions.iter().any(|c| c.atoms.iter().all(|a| a.truth_at(y) == Truth::True))
    }

    #[test]
    fn class_regions_follow_the_first_maximal_index() {
        // Scores with a tie between 1 and 2: ArgMax is 1 (the first maximal index).
        let y = [0.0, 5.0, 5.0];
        assert!(!truth_of(&class_is_not(1, 3), &y), "the class is 1");
        assert!(truth_of(&class_is_not(2, 3), &y), "the class is not 2");
        assert!(truth_of(&[class_is(1, 3)], &y));
        assert!(!truth_of(&[class_is(2, 3)], &y));
        // A strict maximum at 0.
        let z = [3.0, 2.0, 2.0];
        assert!(!truth_of(&class_is_not(0, 3), &z));
        assert!(truth_of(&[class_is(0, 3)], &z));
    }

    #[test]
    fn a_ball_is_cut_by_the_clip_range() {
        let centre = [Constant::exact(0.5), Constant::exact(0.0)];
        let eps = Constant::exact(0.25);
        let (low, high) = (Constant::exact(0.0), Constant::exact(0.6));
        let b = ball(&centre, &eps, Some((&low, &high)));
        assert_eq!((b.lower[0].below, b.upper[0].above), (0.25, 0.6));
        assert_eq!((b.lower[1].below, b.upper[1].above), (0.0, 0.25));
        assert!(b.lower[0].is_exact());
    }
}
