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

/// How far a score must stay above an earlier one for the order to survive a softmax: `2^-40`.
///
/// The engine computes `softmax(z)_j = fl(exp(fl(z_j − M)) / S)` with `M = max z` and `S` the
/// sum from `0.0` of the `exp` terms (Ext-9's `ext-softmax-item`; `logSoftmax`:
/// `fl(fl(z_j − M) − fl(log S))`); `exp` and `log` are correctly rounded, so every step is
/// monotone and `z_i ≥ z_j` gives `p_i ≥ p_j`. Strictness can be lost (two `exp` rounding to
/// one value, both underflowing to 0), and a tie goes to the lower index; it is kept where it
/// matters with finite scores, fewer than `2^31` of them, and a margin: if `z_i = M` and
/// `z_i − z_j ≥ 2^-40`, then `fl(z_j − M) ≤ −2^-40`, `exp` of it rounds to at most
/// `1 − 2^-41 < 1 = exp(0)`, and `S ∈ [1, 2^31)` keeps `1/S` normal, so the quotients by `S`
/// stay apart (`2^-41` relative is thousands of ulps), and `fl(d − L)` with `L = fl(log S) < 22`
/// stays below `−L` (ulps there are at most `2^-48`). Hence (docs/verification.md):
///
/// - class `c`: if every earlier score is at least `2^-40` below `z_c` and every later one at
///   most `z_c`, then `z_c = M` and `p_c` is strictly above every earlier `p_j` and at least
///   every later one: the class is `c`;
/// - class `k` (to deny it): `p_j < p_k` gives `z_j < z_k`, and `p_k` maximal gives `z_k > M −
///   2^-40` (else `p_k` is below the maximal score's), so every later score is below
///   `z_k + 2^-40`.
pub const SOFTMAX_MARGIN: f64 = 1.0 / 1_099_511_627_776.0;

/// Scores beyond this bound (either sign) are unsafe for a softmax before `ArgMax`: the margin's
/// argument needs finite scores, and these atoms make the bounds show it.
pub const SOFTMAX_SCORE_BOUND: f64 = 1e300;

/// [`class_property`] for a program that takes `ArgMax` of a softmax of its outputs: the
/// outputs' unsafe region widened so that what the margin (above) proves of the scores holds
/// of the class: an earlier score within the margin of `Y_class` is unsafe (or, with
/// `negated`, a later one within it counts as class `class`), and so is any score beyond
/// [`SOFTMAX_SCORE_BOUND`].
pub fn softmax_class_property(region: InputBox, class: usize, outputs: usize, negated: bool) -> Property {
    let margin = |atom: Atom| match atom.strict {
        // `a − b ≤ 0` becomes `a − b − margin < 0`: within the margin.
        false => Atom { constants: vec![Constant::exact(-SOFTMAX_MARGIN)], strict: true, ..atom },
        true => atom,
    };
    let with_margins = |c: Conjunction| Conjunction { atoms: c.atoms.into_iter().map(margin).collect() };
    let mut unsafe_when: Vec<Conjunction> = if negated {
        vec![with_margins(class_is(class, outputs))]
    } else {
        class_is_not(class, outputs).into_iter().map(with_margins).collect()
    };
    for i in 0..outputs {
        for sign in [-1.0, 1.0] {
            // `sign·Y_i + BOUND ≤ 0`: `Y_i ≥ BOUND` (sign −1) or `Y_i ≤ −BOUND` (sign +1).
            let beyond = Atom {
                terms: vec![(i, Constant::exact(sign))],
                constants: vec![Constant::exact(SOFTMAX_SCORE_BOUND)],
                strict: false,
                span: None,
            };
            unsafe_when.push(Conjunction { atoms: vec![beyond] });
        }
    }
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
