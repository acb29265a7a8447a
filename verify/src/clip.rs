//! Domain clipping: cutting a box down to the part where an unsafe point can still be, before
//! splitting it (as α,β-CROWN's `enable_clip_domains` does for input splits).
//!
//! A linear lower bound of an atom's left side, `Σ c·Y(x) ≥ g·x + acc` for every `x` of the
//! box (exact arithmetic, [`super::linear::LowerBound`]), says that where the atom
//! `Σ c·Y + k ≤ 0` is true, `g·x ≤ −acc − k` holds. Every unsafe point of the box therefore
//! lies in the half-space `g·x ≤ limit` for any `limit ≥ −acc − k`; the box's part in it is
//! inside the box whose side `i` is cut at `(limit − Σ_{j≠i} min_j g_j·x_j) / g_i`. Every
//! number here is rounded outward (the limit up, the minima down, the quotient away from the
//! kept side), so the cut box holds every binary64 point of the half-space in the box: points
//! cut away are proved safe, not guessed. A box cut to nothing holds no unsafe point.

use super::float::{Interval, add_down, div_down, div_up, mul_down, sub_down, sub_up};
use super::linear::LowerBound;

/// The half-space `Σ_j coefficients_j·x_j ≤ limit`, in exact arithmetic.
#[derive(Clone, Debug)]
pub struct HalfSpace<'a> {
    pub coefficients: &'a [f64],
    pub limit: f64,
}

impl<'a> HalfSpace<'a> {
    /// The half-space that the points of the box where an atom `Σ c·Y + k ≤ 0` (or `< 0`) is
    /// true lie in, from a lower bound of `Σ c·Y` and the enclosure of `k`.
    pub fn where_atom_can_hold(bound: &'a LowerBound, constant: Interval) -> HalfSpace<'a> {
        // g·x ≤ −acc − k ≤ −(acc + k.lo), and −add_down(acc, k.lo) is at least that.
        HalfSpace { coefficients: &bound.coefficients, limit: -add_down(bound.constant, constant.lo) }
    }
}

/// Cuts `region` down to a box holding every point of it inside `half`. Returns `false` when
/// no point of the region is inside (then `region` is left as it was, partly cut).
pub fn clip(region: &mut [Interval], half: &HalfSpace<'_>) -> bool {
    let g = half.coefficients;
    if g.len() != region.len() || half.limit.is_nan() {
        return true;
    }
    // The smallest value of each term g_j·x_j on the region, rounded down.
    let least = |j: usize, region: &[Interval]| {
        let x = region[j];
        if g[j] >= 0.0 { mul_down(g[j], x.lo) } else { mul_down(g[j], x.hi) }
    };
    let minima: Vec<f64> = (0..g.len()).map(|j| least(j, region)).collect();
    // Cutting side i moves the end of x_i that its minimum does not use (the upper end where
    // g_i > 0, the lower where g_i < 0), so the minima hold throughout and one pass makes
    // every cut. Σ_{j≠i} minima_j for every i comes from one total, so the pass costs O(n),
    // not O(n²) (on 784 inputs the quadratic sums took half of the search's time): `total`
    // is a lower bound of the exact Σ_j minima_j, so `total − minima_i`, rounded down, is one
    // of Σ_{j≠i}. A minimum of −∞ (an overflowed product) is left out of the total and
    // counted: one such term makes every other side's sum −∞ and its own side's the total.
    let mut total = 0.0;
    let mut unbounded = 0usize;
    for &m in &minima {
        if m == f64::NEG_INFINITY {
            unbounded += 1;
        } else {
            total = add_down(total, m);
        }
    }
    for i in 0..g.len() {
        if g[i] == 0.0 || !g[i].is_finite() {
            continue;
        }
        let others = match (unbounded, minima[i] == f64::NEG_INFINITY) {
            (0, _) => sub_down(total, minima[i]),
            (1, true) => total,
            _ => f64::NEG_INFINITY,
        };
        // g_i·x_i ≤ limit − Σ_{j≠i} g_j·x_j ≤ room for every point inside the half-space.
        let room = sub_up(half.limit, others);
        if room.is_nan() || room == f64::INFINITY {
            continue;
        }
        let side = &mut region[i];
        let end = if g[i] > 0.0 { div_up(room, g[i]) } else { div_down(room, g[i]) };
        if end.is_nan() {
            continue;
        }
        if g[i] > 0.0 {
            side.hi = side.hi.min(end);
        } else {
            side.lo = side.lo.max(end);
        }
        if side.lo > side.hi {
            return false;
        }
    }
    true
}

/// The share of `outer`'s volume that `inner` (a box inside it) takes, for progress reports:
/// sides of no width count as kept whole.
pub fn volume_share(inner: &[Interval], outer: &[Interval]) -> f64 {
    inner
        .iter()
        .zip(outer)
        .map(|(a, b)| {
            let whole = b.width();
            if whole > 0.0 { (a.width() / whole).clamp(0.0, 1.0) } else { 1.0 }
        })
        .product()
}

/// The smallest box holding all of `boxes` (none: `None`).
pub fn hull(boxes: impl IntoIterator<Item = Vec<Interval>>) -> Option<Vec<Interval>> {
    boxes
        .into_iter()
        .reduce(|a, b| a.iter().zip(&b).map(|(x, y)| Interval::new(x.lo.min(y.lo), x.hi.max(y.hi))).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::boxed;

    #[test]
    fn a_corner_half_space_cuts_both_sides() {
        // x + y ≤ 1 on [0, 4]²: every point inside has x ≤ 1 and y ≤ 1.
        let mut region = boxed(&[(0.0, 4.0), (0.0, 4.0)]);
        assert!(clip(&mut region, &HalfSpace { coefficients: &[1.0, 1.0], limit: 1.0 }));
        for side in &region {
            assert_eq!(side.lo, 0.0);
            assert!(side.hi >= 1.0 && side.hi <= 1.0 + 1e-12, "{side:?}");
        }
    }

    #[test]
    fn negative_coefficients_raise_the_lower_side() {
        // −x ≤ −3 on [0, 4]: x ≥ 3.
        let mut region = boxed(&[(0.0, 4.0)]);
        assert!(clip(&mut region, &HalfSpace { coefficients: &[-1.0], limit: -3.0 }));
        assert!(region[0].lo <= 3.0 && region[0].lo >= 3.0 - 1e-12 && region[0].hi == 4.0, "{region:?}");
    }

    #[test]
    fn a_half_space_missing_the_box_empties_it() {
        let mut region = boxed(&[(0.0, 4.0), (1.0, 2.0)]);
        assert!(!clip(&mut region, &HalfSpace { coefficients: &[1.0, 1.0], limit: 0.5 }));
    }

    #[test]
    fn a_side_of_no_width_inside_the_half_space_is_kept() {
        // x + y ≤ 2 on {1} × [0, 4]: the point (1, 1) is inside, so the box is not empty; its
        // first side is a single binary64 value (an input fixed by the property).
        let mut region = boxed(&[(1.0, 1.0), (0.0, 4.0)]);
        assert!(clip(&mut region, &HalfSpace { coefficients: &[1.0, 1.0], limit: 2.0 }), "{region:?}");
        assert_eq!(region[0], Interval::point(1.0));
        assert!(region[1].lo == 0.0 && region[1].hi >= 1.0 && region[1].hi <= 1.0 + 1e-12, "{region:?}");
        // −x ≤ −1 on {1}: the single point is inside (the cut meets it from below).
        let mut point = boxed(&[(1.0, 1.0)]);
        assert!(clip(&mut point, &HalfSpace { coefficients: &[-1.0], limit: -1.0 }), "{point:?}");
        assert_eq!(point[0], Interval::point(1.0));
    }

    #[test]
    fn a_half_space_of_another_dimension_leaves_the_box_alone() {
        let region = boxed(&[(0.0, 4.0), (0.0, 4.0)]);
        for coefficients in [&[1.0][..], &[1.0, 1.0, 1.0][..]] {
            let mut cut = region.clone();
            assert!(clip(&mut cut, &HalfSpace { coefficients, limit: 1.0 }));
            assert_eq!(cut, region, "{coefficients:?}");
        }
    }

    #[test]
    fn a_cut_that_only_a_second_round_allows_is_made() {
        // x − y ≤ −3 and y ≤ 4 on x ∈ [0, 4], y ∈ [0, 4]: the first side is cut to x ≤ 1 only
        // once y's minimum has risen to 3, which the first round finds after x.
        let mut region = boxed(&[(0.0, 4.0), (0.0, 4.0)]);
        assert!(clip(&mut region, &HalfSpace { coefficients: &[1.0, -1.0], limit: -3.0 }));
        assert!(region[1].lo >= 3.0 - 1e-12, "{region:?}");
        assert!(region[0].hi <= 1.0 + 1e-12, "{region:?}");
    }

    #[test]
    fn every_binary64_point_of_the_half_space_stays_in_the_cut_box() {
        // Small integer coefficients and dyadic points: g·x is exact, so membership is exact.
        let mut state = 0x1234_5678_9abc_def0u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut cut_somewhere = 0;
        for _ in 0..300 {
            let g: Vec<f64> = (0..3).map(|_| (next() % 9) as f64 - 4.0).collect();
            let lo: Vec<f64> = (0..3).map(|_| (next() % 8) as f64 - 4.0).collect();
            let region = boxed(&lo.iter().map(|&l| (l, l + 4.0)).collect::<Vec<_>>());
            let limit = (next() % 33) as f64 - 16.0 + 0.25;
            let mut cut = region.clone();
            let nonempty = clip(&mut cut, &HalfSpace { coefficients: &g, limit });
            if cut != region {
                cut_somewhere += 1;
            }
            // Every point of a grid of quarter steps inside the half-space is in the cut box.
            for a in 0..=16 {
                for b in 0..=16 {
                    for c in 0..=16 {
                        let x = [lo[0] + a as f64 / 4.0, lo[1] + b as f64 / 4.0, lo[2] + c as f64 / 4.0];
                        let value: f64 = g.iter().zip(&x).map(|(g, x)| g * x).sum();
                        if value <= limit {
                            assert!(nonempty, "{g:?}·x ≤ {limit} at {x:?} but the box was emptied");
                            assert!(
                                x.iter().zip(&cut).all(|(v, s)| s.lo <= *v && *v <= s.hi),
                                "{x:?} is inside {g:?}·x ≤ {limit} but outside {cut:?}"
                            );
                        }
                    }
                }
            }
        }
        assert!(cut_somewhere > 100, "the cases must exercise cutting: {cut_somewhere}");
    }

    #[test]
    fn an_overflowed_minimum_leaves_only_its_own_side_to_cut() {
        // 1e308·x0 + x1 ≤ 0 on [−MAX, MAX] × [0, 1]: the least value of 1e308·x0 is −∞, so
        // no bound on the other sides follows (x1 is not cut), while x0 ≤ −x1/1e308 ≤ 0 is:
        // its side is cut just above 0, and every point with x0 ≤ 0 stays.
        let mut region = boxed(&[(-f64::MAX, f64::MAX), (0.0, 1.0)]);
        assert!(clip(&mut region, &HalfSpace { coefficients: &[1e308, 1.0], limit: 0.0 }));
        assert_eq!(region[1], Interval::new(0.0, 1.0));
        assert!(region[0].lo == -f64::MAX && region[0].hi >= 0.0 && region[0].hi <= 1e-300, "{region:?}");
        // Two overflowed minima: nothing bounds any side's rest, nothing is cut.
        let mut region = boxed(&[(-f64::MAX, f64::MAX), (-f64::MAX, f64::MAX), (0.0, 1.0)]);
        assert!(clip(&mut region, &HalfSpace { coefficients: &[1e308, 1e308, 1.0], limit: 0.0 }));
        assert_eq!(region, boxed(&[(-f64::MAX, f64::MAX), (-f64::MAX, f64::MAX), (0.0, 1.0)]));
    }

    #[test]
    fn the_limit_comes_from_the_bound_and_the_constant_rounded_up() {
        // Σ c·Y ≥ 2x + 0.1 and the atom Σ c·Y − 1 ≤ 0: unsafe points have 2x ≤ 0.9 (+ rounding).
        let bound = LowerBound { coefficients: vec![2.0], constant: 0.1, value: 0.1 };
        let half = HalfSpace::where_atom_can_hold(&bound, Interval::point(-1.0));
        assert!(half.limit >= 0.9 && half.limit <= 0.9 + 1e-15, "{}", half.limit);
        let mut region = boxed(&[(0.0, 1.0)]);
        assert!(clip(&mut region, &half));
        assert!(region[0].hi >= 0.45 && region[0].hi < 0.46, "{region:?}");
    }

    #[test]
    fn shares_and_hulls() {
        let outer = boxed(&[(0.0, 4.0), (0.0, 2.0), (1.0, 1.0)]);
        let inner = boxed(&[(0.0, 1.0), (0.0, 1.0), (1.0, 1.0)]);
        assert_eq!(volume_share(&inner, &outer), 0.125);
        // Widths, not sums of the ends: [3, 4] is a quarter of [2, 6].
        assert_eq!(volume_share(&boxed(&[(3.0, 4.0)]), &boxed(&[(2.0, 6.0)])), 0.25);
        let joined = hull([boxed(&[(0.0, 1.0)]), boxed(&[(2.0, 3.0)])]).unwrap();
        assert_eq!(joined, boxed(&[(0.0, 3.0)]));
        assert!(hull(Vec::<Vec<Interval>>::new()).is_none());
    }
}
