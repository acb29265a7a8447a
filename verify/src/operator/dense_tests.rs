use super::ends::row_ends;
use super::*;
use crate::float::UNIT_ROUNDOFF;
use crate::relax::LowerSlope;

fn charges(layer: &Dense, input: &[Interval]) -> Charges {
    let prepared = layer.prepare(input);
    *prepared.downcast::<Charges>().expect("a dense layer is prepared as one")
}

#[test]
fn a_dense_layers_charge_is_the_documented_bound() {
    // One output, weights (3, 0.5), bias 4, inputs bounded by |u| ≤ (2, 4): a = 3·2 + 0.5·4
    // = 8, a + |b| = 12; n = 2 inputs, m = 1 output. docs/verification.md: the engine's
    // error γ_{n+1}(a + |b|) + (n+1)η = γ_3·12 + 3η, ours γ_m(a + |b|) = γ_1·12, with
    // γ_k = k·u/(1 − k·u): 12·(3u/(1 − 3u) + u/(1 − u)) ≈ 48u, u = 2^-53.
    let layer = Dense::new(Arc::new(Matrix::new(1, 2, vec![3.0, 0.5])), vec![Some(4.0)]);
    let Charges { charge, underflow, dead, .. } = charges(&layer, &[Interval::new(-2.0, 1.0), Interval::new(0.0, 4.0)]);
    let u = UNIT_ROUNDOFF;
    let expected = 12.0 * (3.0 * u / (1.0 - 3.0 * u) + u / (1.0 - u));
    assert!(charge[0] >= expected && charge[0] <= expected * (1.0 + 1e-12), "{} vs {expected}", charge[0]);
    // The underflow of G·W and G·b: m·η·(Σ|u| + 1) = 7η.
    assert!((7.0 * ETA..=8.0 * ETA).contains(&underflow), "{underflow}");
    assert_eq!(dead, Vec::<usize>::new(), "both inputs are live");
}

#[test]
fn inputs_that_are_exactly_zero_get_no_coefficient() {
    // W = [[1, 2, 3], [4, 5, 6]], g = (1, −1): g·W = (−3, −3, −3), but inputs 0 and 2 are
    // exactly zero on the box, so only input 1 keeps its coefficient.
    let layer = Dense::new(Arc::new(Matrix::new(2, 3, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])), vec![None, None]);
    let input = [Interval::new(0.0, 0.0), Interval::new(-1.0, 1.0), Interval::new(0.0, 0.0)];
    let prepared = layer.prepare(&input);
    assert_eq!(charges(&layer, &input).dead, vec![0, 2], "only input 1 is live");
    let mut pass = Pass { g: vec![1.0, -1.0], width: 2, count: 1, acc: vec![0.0] };
    layer.substitute(&prepared, &mut pass, LowerChoice::Prepared(LowerSlope::Chord));
    assert_eq!((pass.g, pass.width), (vec![0.0, -3.0, 0.0], 3));
    assert!(pass.acc[0] <= 0.0 && pass.acc[0] > -1e-12, "only the rounding charge: {}", pass.acc[0]);
}

#[test]
fn rows_times_the_weights_are_the_same_one_at_a_time_batched_and_term_by_term() {
    // Small integers: every product and sum is exact, so each way gives g·W exactly.
    let (m, n) = (5, 7);
    let w: Vec<f64> = (0..m * n).map(|k| ((k * 7) % 11) as f64 - 5.0).collect();
    let w = Matrix::new(m, n, w);
    let layer = Dense::new(Arc::new(w.clone()), vec![None; m]);
    for count in [1, 3, 20] {
        let g: Vec<f64> = (0..count * m).map(|k| ((k * 5) % 9) as f64 - 4.0).collect();
        let expected: Vec<f64> = (0..count)
            .flat_map(|r| {
                let g = &g;
                let w = &w;
                (0..n).map(move |j| (0..m).map(|i| g[r * m + i] * w.row(i)[j]).sum::<f64>())
            })
            .collect();
        assert_eq!(times_rows(layer.transposed(), &g, count), expected, "{count} rows");
        assert_eq!(rows_times_w(&w, &g, count), expected, "{count} rows, term by term");
    }
}

#[test]
fn every_row_end_at_once_has_the_bits_of_each_row_alone() {
    let mut rng = crate::falsify::SplitMix::new(5);
    let (m, n) = (9, 13);
    let w: Vec<f64> = (0..m * n).map(|_| (rng.unit() - 0.5) * 3.0).collect();
    let layer = Dense::new(Arc::new(Matrix::new(m, n, w)), (0..m).map(|i| (i % 2 == 0).then_some(0.25)).collect());
    // Some inputs are a relu's zeros, of both signs: skipped or not, the same bits. Others
    // end at 0 on one side only, and must never be skipped.
    let input: Vec<Interval> = (0..n)
        .map(|j| match j % 6 {
            1 => Interval::new(0.0, 0.0),
            2 => Interval::new(-0.0, 0.0),
            3 => Interval::new(-0.1 - rng.unit(), 0.0),
            4 => Interval::new(0.0, 0.1 + rng.unit()),
            _ => {
                let (a, b) = (rng.unit() - 0.5, rng.unit() - 0.5);
                Interval::new(a.min(b), a.max(b))
            }
        })
        .collect();
    for skip_zeros in [false, true] {
        let all = all_row_ends(layer.transposed(), &input, &layer.bias, skip_zeros);
        for (i, end) in all.iter().enumerate() {
            let alone = row_ends(layer.w.row(i).iter().copied().zip(input.iter().copied()), layer.bias[i]);
            let bits = |x: Interval| (x.lo.to_bits(), x.hi.to_bits());
            assert_eq!(bits(*end), bits(alone), "row {i}, zeros skipped: {skip_zeros}");
        }
    }
}

#[test]
fn a_zero_input_is_not_skipped_past_an_infinite_weight() {
    // ∞·0 is NaN on the engine: the interval of a row that meets it is not a finite one, so
    // a `[0, 0]` input may be skipped only when every weight is finite.
    let input = [Interval::new(1.0, 2.0), Interval::new(0.0, 0.0)];
    let finite = Dense::new(Arc::new(Matrix::new(2, 2, vec![1.0, 3.0, -1.0, 0.5])), vec![None, None]);
    let ends = finite.interval(&input).expect("finite weights: no NaN");
    assert_eq!(ends, [Interval::new(1.0, 2.0), Interval::new(-2.0, -1.0)]);
    let infinite = Dense::new(Arc::new(Matrix::new(2, 2, vec![1.0, f64::INFINITY, -1.0, 0.5])), vec![None, None]);
    assert_eq!(infinite.interval(&input), None, "row 0 computes ∞·0");
}

#[test]
fn a_batch_of_rows_times_the_weights_gives_each_row_the_bits_of_the_row_alone() {
    // What makes a batch of parts bound each part bit for bit as alone (crate::linear's
    // `back_substitute_parts`): every kernel sums a coefficient's terms in the same order,
    // one fused multiply-add a term, zeros skipped or not.
    let mut rng = crate::falsify::SplitMix::new(11);
    let (m, n) = (37, 300);
    let w: Vec<f64> = (0..m * n).map(|_| rng.unit() * 2.0 - 1.0).collect();
    let layer = Dense::new(Arc::new(Matrix::new(m, n, w)), vec![None; m]);
    // 512 rows take padded lanes (`unaliased_lanes`): the padding must come back as nothing.
    for count in [2, 9, 16, 23, 40, 512] {
        // A third of the coefficients zero, as a stable relu leaves them.
        let g: Vec<f64> =
            (0..count * m).map(|_| if rng.unit() < 0.33 { 0.0 } else { rng.unit() * 4.0 - 2.0 }).collect();
        let batched = times_rows(layer.transposed(), &g, count);
        for r in 0..count {
            let alone = times_rows(layer.transposed(), &g[r * m..(r + 1) * m], 1);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&batched[r * n..(r + 1) * n]), bits(&alone), "row {r} of {count}");
        }
    }
}

#[test]
fn lanes_hold_every_row_in_whole_groups_and_never_a_stride_of_4_kib() {
    for count in 1..3000 {
        let lanes = unaliased_lanes(count);
        assert!(lanes >= count && lanes.is_multiple_of(LANE_GROUP), "{count} rows in {lanes} lanes");
        assert!(!lanes.is_multiple_of(512), "{count} rows: a stride of {lanes} lanes aliases in the L1 cache");
        assert!(lanes < count + 2 * LANE_GROUP, "{count} rows: {lanes} lanes waste work");
    }
}
