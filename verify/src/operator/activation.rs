//! What the element-wise activations share: back-substitution through their relaxation lines,
//! the slope optimiser's pass through the lines chosen, and the band of lines around a
//! non-decreasing function (tanh and sigmoid; relu has lines of its own).

use knn_engine::bigstep::ops::Op;

use super::{Chain, ChosenLines, Layer, LowerChoice, Operator, Pass, Prepared};
use crate::float::{
    ETA, Interval, NonNegativeSum, UNIT_ROUNDOFF, add_down, add_up, gamma, mul_down, mul_up, sub_down, sub_up,
};
use crate::relax::{Line, LowerSlope};
use crate::unsupported::{Unsupported, unsupported};

/// Reads an `Activate` of the plan onto `chain`: relu, tanh or sigmoid on the whole of the
/// last vector.
pub fn read_activation(op: &Op, chain: &mut Chain) -> Result<(), Unsupported> {
    let Op::Activate { activation, input, in_at, out, len, span } = op else { unreachable!("an Activate") };
    if *input != chain.current || *in_at != 0 || *len != chain.len {
        return Err(unsupported(
            "an activation on part of a vector, or on a vector other than the last one computed",
            Some(*span),
        ));
    }
    chain.layers.push(Layer::activation(*activation));
    chain.current = *out;
    Ok(())
}

/// Pieces of the input range for the monotone-function band below.
const PIECES: usize = 32;

/// What back-substitution through an activation needs on one box: the lower lines per
/// element (for each [`LowerSlope`]), the upper lines, the input magnitudes, and `γ_m` and
/// `m·η` for the error of a row's sum of intercepts.
pub struct Relaxed {
    lower: [Vec<Line>; 2],
    pub upper: Vec<Line>,
    magnitude: Vec<f64>,
    sums: NonNegativeSum,
    gamma: f64,
    underflow: f64,
}

impl Relaxed {
    /// The lower lines for a choice of relu slope.
    pub fn lower(&self, slope: LowerSlope) -> &[Line] {
        &self.lower[slope as usize]
    }
}

/// The relaxation of `activation` on every element of `input`.
pub fn prepare(activation: &dyn Operator, input: &[Interval]) -> Prepared {
    let lines =
        |_: usize, z: &Interval, slope| activation.relaxation(*z, slope).expect("an activation has a relaxation");
    prepare_lines(input, activation.splits_at_zero(), lines)
}

/// The relaxation given by `lines(i, z_i, slope)` on every element of `input`; only a relu
/// (`splits_at_zero`) has a lower slope to choose.
pub fn prepare_lines(
    input: &[Interval],
    splits_at_zero: bool,
    lines: impl Fn(usize, &Interval, LowerSlope) -> (Line, Line),
) -> Prepared {
    let (adaptive, upper): (Vec<Line>, _) =
        input.iter().enumerate().map(|(i, z)| lines(i, z, LowerSlope::Adaptive)).unzip();
    // tanh's and sigmoid's bands are the same lines either way, and each costs 32 evaluations
    // of the function: computed once.
    let chord = if splits_at_zero {
        input.iter().enumerate().map(|(i, z)| lines(i, z, LowerSlope::Chord).0).collect()
    } else {
        adaptive.clone()
    };
    let magnitude: Vec<f64> = input.iter().map(Interval::magnitude).collect();
    let m = magnitude.len();
    Box::new(Relaxed {
        lower: [adaptive, chord],
        upper,
        magnitude,
        sums: NonNegativeSum::new(m),
        gamma: gamma(m),
        underflow: mul_up(m as f64, ETA),
    })
}

/// One back-substitution step through the lines: `g·f(z) ≥ g·(s·z + c)` with the lower line
/// where `g ≥ 0`, the upper one elsewhere; the intercepts go to the constant, with the error
/// of their sum and of the rounded slope products charged (docs/verification.md,
/// "Activations").
pub fn substitute(prepared: &Prepared, pass: &mut Pass, lower: LowerChoice<'_>) {
    let relaxed: &Relaxed = prepared.downcast_ref().expect("prepared by activation::prepare");
    let Relaxed { upper, magnitude, sums, gamma, underflow, .. } = relaxed;
    let m = magnitude.len();
    for r in 0..pass.count {
        let lower: &[Line] = match lower {
            LowerChoice::Prepared(slope) => relaxed.lower(slope),
            LowerChoice::Given(given) => given,
            LowerChoice::PerRow(given) => &given[r * m..(r + 1) * m],
        };
        let gr = &mut pass.g[r * m..(r + 1) * m];
        // Σ g·c over the lines' intercepts (fast, its error charged below), and
        // Σ|fl(g·s)|·|z|, Σ|z| over rounded slope products, for (2).
        let (mut constant, mut constant_magnitude) = (0.0, 0.0);
        let (mut rounded, mut rounded_magnitude) = (0.0, 0.0);
        for (((gi, low), high), z) in gr.iter_mut().zip(lower).zip(upper).zip(magnitude) {
            let g = *gi;
            if g == 0.0 {
                continue;
            }
            let line = if g >= 0.0 { low } else { high };
            let term = g * line.intercept;
            constant += term;
            constant_magnitude += term.abs();
            let product = g * line.slope;
            if line.slope != 0.0 && line.slope != 1.0 {
                rounded += product.abs() * z;
                rounded_magnitude += z;
            }
            *gi = product;
        }
        // |fl(Σ g·c) − Σ g·c| ≤ γ_m·Σ|g·c| + m·η; |g·s − fl(g·s)| ≤ u·|fl(g·s)| + η.
        let mut charged = add_up(mul_up(*gamma, sums.bound(constant_magnitude)), *underflow);
        if rounded_magnitude != 0.0 {
            let slopes = add_up(mul_up(UNIT_ROUNDOFF, sums.bound(rounded)), mul_up(ETA, sums.bound(rounded_magnitude)));
            charged = add_up(charged, slopes);
        }
        pass.acc[r] = sub_down(add_down(pass.acc[r], constant), charged);
    }
}

/// The values of the lines a bound chose, at `d`.
pub fn relaxed_forward(d: Vec<f64>, lines: &ChosenLines<'_>) -> Vec<f64> {
    lines
        .coefficients
        .iter()
        .enumerate()
        .map(|(i, &gi)| {
            let line = if gi >= 0.0 { lines.lower[i] } else { lines.upper[i] };
            d[i] * line.slope + line.intercept
        })
        .collect()
}

/// The enclosure of a non-decreasing function on each interval: its values at the ends.
pub fn monotone_interval(f: fn(f64) -> f64, v: &[Interval]) -> Vec<Interval> {
    v.iter().map(|x| Interval::new(f(x.lo), f(x.hi))).collect()
}

/// A band of two parallel lines around a non-decreasing function, from its values at the
/// ends of `PIECES` pieces of the range only: on a piece `[t, t']`, `f̂(z) − s·z` lies in
/// `[f̂(t) − s·t', f̂(t') − s·t]` for `s ≥ 0`. Sound for any non-decreasing `f̂`; the engine's
/// tanh, sigmoid, exp and log are (docs/verification.md, "Monotone activations"). Where an end
/// or the width is infinite (`exp` past 709.78, `log(0)`), the band is the two constant lines
/// of the interval bounds.
pub fn monotone_band(f: fn(f64) -> f64, z: Interval) -> (Line, Line) {
    let (flo, fhi) = (f(z.lo), f(z.hi));
    if z.lo == z.hi || !(z.hi - z.lo).is_finite() || !flo.is_finite() || !fhi.is_finite() {
        return (Line { slope: 0.0, intercept: flo }, Line { slope: 0.0, intercept: fhi });
    }
    let slope = ((fhi - flo) / (z.hi - z.lo)).max(0.0);
    if !slope.is_finite() {
        // A steep rise over a subnormal width (`log` near 0): the constant lines.
        return (Line { slope: 0.0, intercept: flo }, Line { slope: 0.0, intercept: fhi });
    }
    let width = z.hi - z.lo;
    let point = |k: usize| if k == PIECES { z.hi } else { (z.lo + width * (k as f64 / PIECES as f64)).min(z.hi) };
    let (mut low, mut high) = (f64::INFINITY, f64::NEG_INFINITY);
    let (mut t, mut ft) = (z.lo, flo);
    for k in 1..=PIECES {
        let t_next = point(k);
        let f_next = f(t_next);
        low = low.min(sub_down(ft, mul_up(slope, t_next)));
        high = high.max(sub_up(f_next, mul_down(slope, t)));
        (t, ft) = (t_next, f_next);
    }
    (Line { slope, intercept: low }, Line { slope, intercept: high })
}
