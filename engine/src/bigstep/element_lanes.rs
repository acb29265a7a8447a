//! The plan's per-element operations and sums over lanes (element `k` of lane `l` at
//! `k * lanes + l`): an `Elementwise` chain, an `AddBias`, a `Reduce`.

use knn_semantics::numeric::{k_max, k_min};

use super::ops::{ElementStep, ReduceKind};

/// Element `at + k` through its steps `steps[k]`, in order, in every lane.
pub(super) fn elementwise(buffer: &mut [f64], at: usize, steps: &[Vec<ElementStep>], lanes: usize) {
    for (k, chain) in steps.iter().enumerate() {
        for x in &mut buffer[(at + k) * lanes..(at + k + 1) * lanes] {
            for step in chain {
                match *step {
                    ElementStep::Mul(c) => *x *= c,
                    ElementStep::Add(c) => *x += c,
                    ElementStep::Sub(c) => *x -= c,
                    ElementStep::Div(c) => *x /= c,
                }
            }
        }
    }
}

/// `buffer[at + k] = buffer[at + k] + values[k]` in every lane, where `values[k]` is given.
pub(super) fn add_bias(buffer: &mut [f64], at: usize, values: &[Option<f64>], lanes: usize) {
    for (k, value) in values.iter().enumerate() {
        if let Some(b) = value {
            for x in &mut buffer[(at + k) * lanes..(at + k + 1) * lanes] {
                *x += b;
            }
        }
    }
}

/// `Reduce` over `lanes` rows (element `k` of lane `l` at `k * lanes + l`): each group in its
/// order, a sum from `0.0` (then divided by its count for a mean, `ext-pool-mean`), or the
/// scalar `max` from `-Infinity` / `min` from `Infinity` (`ext-reduce-helper-step`). The lanes
/// whose `max`/`min` met a NaN, each once, at the first group and element where it did, with the
/// accumulated value and the element (`rev-arith-invalid`'s operands, as the scalar path
/// reports them).
pub(super) fn reduce_lanes(
    kind: ReduceKind,
    group: usize,
    from: &[usize],
    input: &[f64],
    result: &mut [f64],
    lanes: usize,
) -> Vec<(usize, f64, f64)> {
    // Per lane, whether the group met a NaN: a 64-bit word beside each f64 lane, so that the
    // flags vectorise with the selects (as the max pool's do, `window_lanes.rs`).
    let (mut nan, mut stopped, mut failed) = (vec![0u64; lanes], vec![false; lanes], Vec::new());
    for (g, acc) in result.chunks_exact_mut(lanes).enumerate() {
        let members = &from[g * group..(g + 1) * group];
        let rows = |j: usize| &input[j * lanes..(j + 1) * lanes];
        match kind {
            ReduceKind::Sum | ReduceKind::Mean => {
                acc.fill(0.0);
                for &j in members {
                    for (a, x) in acc.iter_mut().zip(rows(j)) {
                        *a += x;
                    }
                }
                if kind == ReduceKind::Mean {
                    acc.iter_mut().for_each(|a| *a /= group as f64);
                }
            }
            ReduceKind::Max | ReduceKind::Min => {
                let max = kind == ReduceKind::Max;
                acc.fill(if max { f64::NEG_INFINITY } else { f64::INFINITY });
                nan.fill(0);
                for &j in members {
                    // `k_max`/`k_min` as selects: the same result on every non-NaN pair (ties:
                    // `max` keeps the accumulated value, `min` takes the element), and a NaN
                    // element leaves the accumulator as it was, flagged and replayed below.
                    if max {
                        extreme(acc, &mut nan, rows(j), |a, x| if a < x { x } else { a });
                    } else {
                        extreme(acc, &mut nan, rows(j), |a, x| if x <= a { x } else { a });
                    }
                }
                for lane in 0..lanes {
                    if nan[lane] == 0 || stopped[lane] {
                        continue;
                    }
                    let elements = members.iter().map(|&j| input[j * lanes + lane]);
                    if let Some((acc, element)) = first_nan(max, elements) {
                        stopped[lane] = true;
                        failed.push((lane, acc, element));
                    }
                }
            }
        }
    }
    failed
}

/// One element of each lane into the lanes' accumulators by `keep`, and whether it was NaN.
#[inline(always)]
fn extreme(acc: &mut [f64], nan: &mut [u64], xs: &[f64], keep: impl Fn(f64, f64) -> f64) {
    for ((a, &x), n) in acc.iter_mut().zip(xs).zip(nan.iter_mut()) {
        *a = keep(*a, x);
        *n |= u64::from(x.is_nan());
    }
}

/// The rules' `max`/`min` over a group's elements from `∓Infinity` (`k_max`, `k_min`): the
/// accumulated value and the element where it first has no result, if it does not.
fn first_nan(max: bool, elements: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    let mut acc = if max { f64::NEG_INFINITY } else { f64::INFINITY };
    for x in elements {
        match if max { k_max(acc, x) } else { k_min(acc, x) } {
            Some(next) => acc = next,
            None => return Some((acc, x)),
        }
    }
    None
}
