//! The plan's per-element operations and sums over lanes (element `k` of lane `l` at
//! `k * lanes + l`): an `Elementwise` chain, an `AddBias`, a `Reduce`.

use super::ops::ElementStep;

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

/// `Reduce` over `lanes` rows (element `k` of lane `l` at `k * lanes + l`): each group's sum
/// from `0.0` in its order, then divided by its count for a mean (`ext-pool-mean`).
pub(super) fn reduce_lanes(mean: bool, group: usize, from: &[usize], input: &[f64], result: &mut [f64], lanes: usize) {
    for (g, acc) in result.chunks_exact_mut(lanes).enumerate() {
        acc.fill(0.0);
        for &j in &from[g * group..(g + 1) * group] {
            for (a, x) in acc.iter_mut().zip(&input[j * lanes..(j + 1) * lanes]) {
                *a += x;
            }
        }
        if mean {
            acc.iter_mut().for_each(|a| *a /= group as f64);
        }
    }
}
