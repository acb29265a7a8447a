//! The claims of `knn verify --claim` and the input regions of `--box` and `--around`, as
//! [`Property`]s. `argmax` is the revised `ArgMax` (`rev-argmax-step-greater`): the first
//! maximal index wins, so class `K` is the result exactly when every earlier score is
//! strictly below `Y_K` and every later one at most `Y_K`. The unsafe region is the
//! complement, atom by atom, strict where the claim is not.

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
    /// use knn_verify::claim::Claim;
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

/// The L∞ ball `|x − centre| ≤ eps`, cut to `[clip.0, clip.1]` when given: its ends
/// `centre ± eps` computed exactly, the clip bounds as written where they cut. Refused when the
/// centre or `eps` is not finite (the ends would be undefined or meaningless).
pub fn ball(centre: &[Constant], eps: &Constant, clip: Option<(&Constant, &Constant)>) -> Result<InputBox, String> {
    if !eps.value().is_finite() {
        return Err(format!("the radius {eps} is not finite"));
    }
    let mut lower = Vec::with_capacity(centre.len());
    let mut upper = Vec::with_capacity(centre.len());
    for (k, c) in centre.iter().enumerate() {
        if !c.value().is_finite() {
            return Err(format!("element {k} of the centre, {c}, is not finite"));
        }
        let lo = c.sub(eps).expect("finite operands");
        let hi = c.add(eps).expect("finite operands");
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
    Ok(InputBox { lower, upper })
}

impl InputBox {
    /// [`ball`] around binary64 values, each taken exactly: `|x − centre| ≤ eps`, cut to
    /// `clip` when given. Refused when `eps` is negative or not finite, the clip is empty or
    /// NaN, or an element of the centre is not finite.
    pub fn around(centre: &[f64], eps: f64, clip: Option<(f64, f64)>) -> Result<InputBox, String> {
        if eps.is_nan() || eps < 0.0 {
            return Err(format!("the radius {eps:?} is not a non-negative number"));
        }
        if let Some((lo, hi)) = clip
            && (lo.is_nan() || hi.is_nan() || lo > hi)
        {
            return Err(format!("the range {lo:?}:{hi:?} is empty"));
        }
        let centre: Vec<Constant> = centre.iter().map(|&c| Constant::exact(c)).collect();
        let clip = clip.map(|(lo, hi)| (Constant::exact(lo), Constant::exact(hi)));
        ball(&centre, &Constant::exact(eps), clip.as_ref().map(|(lo, hi)| (lo, hi)))
    }
}

#[cfg(test)]
#[path = "claim_tests.rs"]
mod tests;
