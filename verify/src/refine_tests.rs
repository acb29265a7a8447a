use super::*;
use crate::falsify::SplitMix;
use crate::linear::back_substitute;
use crate::test_support::{boxed, fixed_bounds, fixed_on_a_box, random_network};

/// The box's own lower bound of `row·v` (`v` the last layer's output), fixed slopes.
fn box_bound(layers: &[Layer], bounds: &Bounds, row: &[f64]) -> f64 {
    let last = layers.len() - 1;
    back_substitute(layers, bounds, &mut PreparedLayers::new(layers.len()), last, row.to_vec(), row.len())
        .pop()
        .expect("one row")
        .value
}

/// Every layer's value at `count` points of the box (its corners among them).
fn samples(layers: &[Layer], input: &[Interval], count: usize, rng: &mut SplitMix) -> Vec<Vec<Vec<f64>>> {
    let corners = 1usize << input.len();
    (0..count)
        .map(|s| {
            let x: Vec<f64> = if s < corners {
                input.iter().enumerate().map(|(j, side)| if s >> j & 1 == 1 { side.hi } else { side.lo }).collect()
            } else {
                input.iter().map(|side| side.lo + rng.unit() * (side.hi - side.lo)).collect()
            };
            let mut values = Vec::with_capacity(layers.len());
            let mut v = x;
            for layer in layers {
                v = layer.apply(&v);
                values.push(v.clone());
            }
            values
        })
        .collect()
}

/// Every sampled value of layer `k` (`points` as [`samples`] gives them) lies inside `bounds`.
fn assert_layer_holds(points: &[Vec<Vec<f64>>], bounds: &[Interval], k: usize) {
    for values in points {
        for (value, z) in values[k].iter().zip(bounds) {
            assert!(z.lo <= *value && *value <= z.hi, "layer {k}: {value} outside {z:?}");
        }
    }
}

/// No bound of `after` is looser than its element's in `before`.
fn assert_never_looser<'a>(before: impl Iterator<Item = &'a Interval>, after: impl Iterator<Item = &'a Interval>) {
    for (b, a) in before.zip(after) {
        assert!(a.lo >= b.lo && a.hi <= b.hi, "refined {a:?} looser than {b:?}");
    }
}

#[test]
fn a_refined_bound_holds_at_every_sampled_point_and_is_tighter() {
    // Each output's two ends on random deep networks: the refined bound is at least the box's
    // own, at most every value the network computes on the box, and often strictly tighter.
    let mut rng = SplitMix::new(97);
    let (mut ends, mut tighter) = (0, 0);
    for _ in 0..30 {
        let layers = random_network(&mut rng, 3, 8, 3);
        let input = boxed(&[(-1.0, 1.0), (-0.5, 0.5), (0.0, 1.0)]);
        let bounds = fixed_bounds(&layers, input.clone());
        let points = samples(&layers, &input, 3000, &mut rng);
        let last = layers.len() - 1;
        for (i, sign) in [(0, 1.0), (0, -1.0), (1, 1.0), (1, -1.0)] {
            let mut row = vec![0.0; 2];
            row[i] = sign;
            let known = box_bound(&layers, &bounds, &row);
            let refined = refined_lower(&layers, &bounds, &row, known, f64::INFINITY, 64, Deadline::NEVER);
            assert!(refined >= known, "refined {refined} below the box's bound {known}");
            for values in &points {
                let value = sign * values[last][i];
                assert!(refined <= value, "output {i} ({sign}): bound {refined} above a value {value}");
            }
            ends += 1;
            tighter += usize::from(refined > known + 1e-9 * (1.0 + known.abs()));
        }
    }
    assert!(tighter * 2 >= ends, "refinement tightened only {tighter} of {ends} ends");
}

#[test]
fn enough_parts_close_most_of_the_gap_to_the_true_minimum() {
    // One input, so a fine grid finds the minimum: with parts to split every relu, the bound
    // is (up to the multipliers' few steps) the minimum over each region of fixed signs. On
    // average over the networks it closes most of the gap that the box's bound leaves.
    let mut rng = SplitMix::new(5);
    let (mut gap_before, mut gap_after) = (0.0, 0.0);
    for _ in 0..20 {
        let layers = random_network(&mut rng, 1, 4, 2);
        let input = boxed(&[(-2.0, 2.0)]);
        let bounds = fixed_bounds(&layers, input.clone());
        let row = vec![1.0, 0.0];
        let known = box_bound(&layers, &bounds, &row);
        let refined = refined_lower(&layers, &bounds, &row, known, f64::INFINITY, 10_000, Deadline::NEVER);
        let minimum = (0..=100_000)
            .map(|s| layers.iter().fold(vec![-2.0 + 4.0 * s as f64 / 100_000.0], |v, layer| layer.apply(&v))[0])
            .fold(f64::INFINITY, f64::min);
        assert!(refined <= minimum, "bound {refined} above the minimum {minimum}");
        gap_before += minimum - known;
        gap_after += minimum - refined;
    }
    assert!(gap_before > 1.0, "the box's bounds were already tight ({gap_before}): nothing tested");
    assert!(gap_after < 0.2 * gap_before, "the refined bounds closed too little: {gap_after} of {gap_before} left");
}

#[test]
fn a_refined_layer_holds_at_every_sampled_point_and_has_fewer_unstable_relus() {
    let mut rng = SplitMix::new(31);
    let mut fewer = 0;
    let unstable = |b: &Bounds| b.layers.iter().flatten().filter(|z| z.lo < 0.0 && z.hi > 0.0).count();
    for _ in 0..20 {
        let layers = random_network(&mut rng, 3, 10, 3);
        let input = boxed(&[(-1.0, 1.0), (-0.5, 0.5), (0.0, 1.0)]);
        let fixed = fixed_bounds(&layers, input.clone());
        let mut refined = fixed.clone();
        refine_hidden(&layers, &mut refined, 32, Deadline::NEVER, Deadline::NEVER).unwrap();
        assert_never_looser(fixed.layers.iter().flatten(), refined.layers.iter().flatten());
        let points = samples(&layers, &input, 3000, &mut rng);
        for (k, bounds) in refined.layers.iter().enumerate() {
            assert_layer_holds(&points, bounds, k);
        }
        fewer += usize::from(unstable(&refined) < unstable(&fixed));
    }
    assert!(fewer >= 10, "refinement made relus stable in only {fewer} of 20 networks");
}

#[test]
fn a_passed_deadline_leaves_the_bound_as_it_was() {
    let mut rng = SplitMix::new(3);
    let layers = random_network(&mut rng, 3, 8, 3);
    let bounds = fixed_bounds(&layers, boxed(&[(-1.0, 1.0), (-0.5, 0.5), (0.0, 1.0)]));
    let passed = Deadline::at(std::time::Instant::now());
    assert_eq!(refined_lower(&layers, &bounds, &[1.0, 0.0], -7.0, 0.0, 64, passed), -7.0);
    let mut refined = bounds.clone();
    refine_hidden(&layers, &mut refined, 64, passed, Deadline::NEVER).unwrap();
    assert_eq!(refined.layers, bounds.layers);
}

#[test]
fn a_batch_of_parts_bounds_each_part_with_the_bits_it_has_alone() {
    // The batched pass shares the dense layers' products and gives each part its own
    // charges, lines, signs and multipliers: every part of a batch gets the bits of its
    // bound bounded alone, fixed and optimised, and ends where it would alone. Parts of one or
    // two signs cut from a bounded box, a dozen a batch (the engine's batched kernel).
    let mut rng = SplitMix::new(4099);
    let mut compared = 0;
    for _ in 0..20 {
        let (layers, bounds) = fixed_on_a_box(&mut rng, 12, 3);
        let input = bounds.input.clone();
        let row: Vec<f64> = (0..2).map(|_| rng.unit() * 2.0 - 1.0).collect();
        let whole = Cut {
            bounds: Arc::new(bounds.layers.clone()),
            signs: Vec::new(),
            warm: None,
            prepared: PreparedLayers::new(layers.len()),
            known: f64::NEG_INFINITY,
        };
        let root = bound_parts(&layers, &input, vec![whole], &row, Deadline::NEVER).pop().expect("the box has points");
        let unstable: Vec<(usize, usize)> = (0..layers.len() - 1)
            .filter(|&k| layers[k + 1].splits_at_zero())
            .flat_map(|k| (0..root.bounds[k].len()).map(move |i| (k, i)))
            .filter(|&(k, i)| root.bounds[k][i].lo < 0.0 && root.bounds[k][i].hi > 0.0)
            .collect();
        if unstable.len() < 2 {
            continue;
        }
        let cuts: Vec<Cut> = (0..12)
            .map(|n| {
                let (mut cut, mut signs) = (root.bounds.to_vec(), Vec::new());
                for _ in 0..1 + (rng.unit() < 0.5) as usize {
                    let (k, i) = unstable[(rng.unit() * unstable.len() as f64) as usize];
                    let positive = rng.unit() < 0.5;
                    let side = if positive {
                        Interval::new(0.0, f64::INFINITY)
                    } else {
                        Interval::new(f64::NEG_INFINITY, 0.0)
                    };
                    cut[k][i] = cut[k][i].meet(side).unwrap_or(cut[k][i]);
                    signs.push(SignConstraint { output_of: k, neuron: i, positive });
                }
                signs.sort_by_key(|c| c.output_of);
                let first = signs[0].output_of + 1;
                // Every other part prepares all its layers on its own bounds (its own charges).
                let prepared =
                    if n % 2 == 0 { root.prepared.for_part(&layers, first) } else { PreparedLayers::new(layers.len()) };
                Cut { bounds: Arc::new(cut), signs, warm: Some(root.warm.clone()), prepared, known: f64::NEG_INFINITY }
            })
            .collect();
        let alone: Vec<Part> =
            cuts.iter().flat_map(|c| bound_parts(&layers, &input, vec![c.clone()], &row, Deadline::NEVER)).collect();
        let batch = bound_parts(&layers, &input, cuts, &row, Deadline::NEVER);
        assert_eq!(batch.len(), alone.len(), "the same parts hold no point");
        for (b, a) in batch.iter().zip(&alone) {
            assert_eq!(
                b.value.to_bits(),
                a.value.to_bits(),
                "{} alone, {} in the batch ({:?})",
                a.value,
                b.value,
                a.signs
            );
            assert_eq!((&b.signs, &b.warm, &b.bounds), (&a.signs, &a.warm, &a.bounds));
            compared += 1;
        }
    }
    assert!(compared >= 150, "only {compared} parts compared");
}

#[test]
fn the_open_parts_come_out_worst_bound_first() {
    // The search splits the part with the least bound first: that bound is the whole box's.
    let part = |value: f64| Part {
        value,
        bounds: Arc::new(Vec::new()),
        signs: Vec::new(),
        warm: Warm::default(),
        prepared: PreparedLayers::new(0),
    };
    let values = [3.0, -1.0, f64::NEG_INFINITY, 2.5, -0.0, 0.0, -7.25];
    let mut open: BinaryHeap<Part> = values.iter().map(|&v| part(v)).collect();
    let mut popped = Vec::new();
    while let Some(p) = open.pop() {
        popped.push(p.value);
    }
    assert_eq!(popped, [f64::NEG_INFINITY, -7.25, -1.0, -0.0, 0.0, 2.5, 3.0]);
    assert!(popped[3].is_sign_negative() && popped[4].is_sign_positive(), "−0 before +0 ({:?})", &popped[3..5]);
}

#[test]
fn refining_one_layer_holds_at_every_sampled_point_and_goes_past_the_optimised_slopes() {
    // `refine_layer` alone, on bounds already tightened with optimised slopes: it changes only
    // its layer, never loosens it, holds at every sampled point, and moves ends that the slopes
    // could not, lower ends and upper ends both.
    let mut rng = SplitMix::new(53);
    let (mut raised, mut lowered, mut pairs) = (0, 0, 0);
    for _ in 0..12 {
        let layers = random_network(&mut rng, 3, 10, 3);
        let input = boxed(&[(-1.0, 1.0), (-0.5, 0.5), (0.0, 1.0)]);
        let mut optimised = fixed_bounds(&layers, input.clone());
        let mut prepared = PreparedLayers::new(layers.len());
        tighten_from(&layers, &mut optimised, &mut prepared, Slopes::Optimised, 0, Deadline::NEVER).unwrap();
        let points = samples(&layers, &input, 2000, &mut rng);
        for k in refined_layers(&layers) {
            let mut refined = optimised.clone();
            refine_layer(&layers, &mut refined, k, 32, Deadline::NEVER).unwrap();
            for (j, (o, r)) in optimised.layers.iter().zip(&refined.layers).enumerate() {
                if j != k {
                    assert_eq!(o, r, "layer {j} changed when refining layer {k}");
                }
            }
            assert_never_looser(optimised.layers[k].iter(), refined.layers[k].iter());
            for (o, r) in optimised.layers[k].iter().zip(&refined.layers[k]) {
                raised += usize::from(r.lo > o.lo);
                lowered += usize::from(r.hi < o.hi);
            }
            assert_layer_holds(&points, &refined.layers[k], k);
            pairs += 1;
        }
    }
    assert_eq!(pairs, 24, "every network has two hidden layers to refine");
    // Under a deadline, each end gets a share of it (here far more than it needs).
    let layers = random_network(&mut rng, 3, 10, 3);
    let mut bounds = fixed_bounds(&layers, boxed(&[(-1.0, 1.0), (-0.5, 0.5), (0.0, 1.0)]));
    let before = bounds.layers[2].clone();
    let deadline = Deadline::at(std::time::Instant::now() + std::time::Duration::from_secs(600));
    refine_layer(&layers, &mut bounds, 2, 32, deadline).unwrap();
    assert_ne!(bounds.layers[2], before, "nothing refined within ten minutes");
    assert!(raised >= pairs && lowered >= pairs, "{raised} lower and {lowered} upper ends moved in {pairs} layers");
}

#[test]
fn the_refinement_of_a_whole_box_may_take_its_share_of_the_time_left() {
    use std::time::{Duration, Instant};
    let now = Instant::now();
    let until = refine_until(Deadline::at(now + Duration::from_secs(100))).instant().expect("a share of a finite time");
    let share = until.saturating_duration_since(now).as_secs_f64();
    assert!((39.0..=40.5).contains(&share), "{share} s of 100 s left");
    assert_eq!(refine_until(Deadline::NEVER), Deadline::NEVER);
}
