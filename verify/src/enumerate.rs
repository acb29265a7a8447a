//! Small regions decided point by point: a case's box that holds few enough binary64 points
//! is not searched; every point is run on the engine and judged (docs/verification.md, "Small
//! regions: every point run").

use super::Target;
use super::bab::{Limit, first_breaking, with_both_zeros};
use super::float::Interval;
use super::judge::Judge;

/// The most binary64 points of a case's box that are all run, instead of a search, when the
/// box holds so few: the answer is then exact, whatever the bounds could prove (a NaN that
/// rules out every bound, a tie that no error bound decides).
const ENUMERABLE_POINTS: u64 = 1 << 16;

/// ... and at most this many multiply-adds in all (points times weights): a few milliseconds.
const ENUMERABLE_WORK: u64 = 1 << 26;

/// The point of `inner` that breaks the claim (`Some(Ok(Some(x)))`), or that none does
/// (`Some(Ok(None))`), when `inner` holds few enough binary64 points ([`ENUMERABLE_POINTS`],
/// [`ENUMERABLE_WORK`]); `None` when it holds more.
pub(super) fn enumerate(
    target: &Target,
    judge: Judge<'_>,
    inner: &[Interval],
) -> Option<Result<Option<Vec<f64>>, Limit>> {
    let weights = target.net.weights().max(1) as u64;
    let mut count: u64 = 1;
    for side in inner {
        count = count.checked_mul(binary64_points(side.lo, side.hi)?)?;
        if count > ENUMERABLE_POINTS || count.saturating_mul(weights) > ENUMERABLE_WORK {
            return None;
        }
    }
    let mut points: Vec<Vec<f64>> = vec![vec![]];
    for side in inner {
        let mut values: Vec<f64> =
            std::iter::successors(Some(side.lo), |v| (*v < side.hi).then(|| v.next_up())).collect();
        with_both_zeros(&mut values);
        points = points.iter().flat_map(|p| values.iter().map(move |v| [p.as_slice(), &[*v]].concat())).collect();
    }
    points.retain(|x| judge.case.input.contains(x));
    Some(first_breaking(&target.plan, &target.net, judge, &points))
}

/// The number of binary64 values in `[lo, hi]` (finite ends, `lo ≤ hi`), `−0` and `+0` two of
/// them; `None` past `u64`.
fn binary64_points(lo: f64, hi: f64) -> Option<u64> {
    // The values in order are ordered like their bit patterns read as sign and magnitude.
    let ordinal = |v: f64| -> i128 {
        let magnitude = i128::from(v.abs().to_bits());
        if v < 0.0 { -magnitude } else { magnitude }
    };
    let zeros = i128::from(lo <= 0.0 && 0.0 <= hi);
    u64::try_from(ordinal(hi) - ordinal(lo) + 1 + zeros).ok()
}
