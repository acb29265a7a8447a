//! Unit tests of the attack (`falsify/attack.rs`, `falsify/apgd.rs`, `falsify/objective.rs`):
//! the batched pass against the chain's, the margins, APGD's checkpoints, a small region in
//! many dimensions that sampling misses, determinism for a seed, and the deadline.

use std::time::{Duration, Instant};

use super::apgd::checkpoints;
use super::objective::{Goal, Objectives};
use super::*;
use crate::Target;
use crate::property::Property;
use crate::test_support::{IDENTITY, property_2d, target_and_property as setup};

fn falsifier<'a>(target: &'a Target, case: &'a Case) -> Falsifier<'a> {
    Falsifier { net: &target.net, plan: &target.plan, case, class: None, inner: case.input.inner().expect("points") }
}

/// A random chain `inputs → widths… → outputs` of dense layers (most rows with a bias), relu,
/// tanh and sigmoid between them, and a bias layer on its own after the second activation.
fn random_network(rng: &mut SplitMix, inputs: usize, widths: &[usize]) -> Network {
    use crate::operator::Layer;
    use knn_engine::tensor::Matrix;
    let mut layers = Vec::new();
    let mut n = inputs;
    for (k, &m) in widths.iter().enumerate() {
        let w: Vec<f64> = (0..m * n).map(|_| 2.0 * rng.unit() - 1.0).collect();
        let bias = (0..m).map(|i| (i % 3 != 0).then(|| rng.unit() - 0.5)).collect();
        layers.push(Layer::dense(std::sync::Arc::new(Matrix::new(m, n, w)), bias));
        if k + 1 < widths.len() {
            layers.push([Layer::relu(), Layer::tanh(), Layer::relu(), Layer::sigmoid()][k % 4].clone());
            if k == 1 {
                layers.push(Layer::bias((0..m).map(|i| (i % 2 == 0).then_some(0.25)).collect()));
            }
        }
        n = m;
    }
    let result = crate::network::ResultKind::Tensor(vec![n]);
    Network { input: "x".into(), input_len: inputs, layers, outputs: (0..n).collect(), result }
}

#[test]
fn the_batched_pass_gives_the_chains_values_and_gradients() {
    let mut rng = SplitMix::new(28);
    for (inputs, widths, lanes) in [(5, vec![7, 9, 3], 16), (13, vec![20, 17, 11, 4], 32), (3, vec![2, 2], 48)] {
        let net = random_network(&mut rng, inputs, &widths);
        let points: Vec<Vec<f64>> = (0..lanes).map(|_| (0..inputs).map(|_| 4.0 * rng.unit() - 2.0).collect()).collect();
        let x: Vec<f64> = (0..inputs).flat_map(|j| points.iter().map(move |p| p[j])).collect();
        let values = net.forward_lanes(&x, lanes);
        let last_width = *widths.last().unwrap();
        let seed: Vec<f64> = (0..last_width * lanes).map(|_| rng.unit() - 0.5).collect();
        let gradient = net.backpropagate_lanes(seed.clone(), &x, &values, lanes);
        let mut moving = 0;
        for (l, point) in points.iter().enumerate() {
            // Every layer's values, to the bit.
            let one = net.forward(point);
            for (k, v) in one.iter().enumerate() {
                let bits = |v: &mut dyn Iterator<Item = f64>| v.map(f64::to_bits).collect::<Vec<_>>();
                let batched = bits(&mut (0..v.len()).map(|i| values[k][i * lanes + l]));
                assert_eq!(batched, bits(&mut v.iter().copied()), "layer {k}, lane {l}");
            }
            // The gradient within rounding (the batched sums are fused, in another order).
            let mut g: Vec<f64> = (0..last_width).map(|i| seed[i * lanes + l]).collect();
            for (k, layer) in net.layers.iter().enumerate().rev() {
                let input = if k == 0 { point.as_slice() } else { one[k - 1].as_slice() };
                g = layer.backpropagate(g, input, &one[k]);
            }
            moving += usize::from(g.iter().any(|v| v.abs() > 1e-3));
            for (j, gj) in g.iter().enumerate() {
                let batched = gradient[j * lanes + l];
                assert!((batched - gj).abs() <= 1e-12 * (1.0 + gj.abs()), "input {j}, lane {l}: {batched} vs {gj}");
            }
        }
        assert!(moving >= lanes / 2, "{moving} of {lanes} gradients are not all zeros");
    }
}

#[test]
fn a_margin_is_the_largest_left_side_and_all_the_smallest_margin() {
    // Unsafe when (Y_0 ≥ 2 and Y_1 ≤ 5) or Y_1 ≥ 3: the atoms 2 − Y_0, Y_1 − 5 and 3 − Y_1.
    let unsafe_when = "(assert (or (and (>= Y_0 2.0) (<= Y_1 5.0)) (and (>= Y_1 3.0))))";
    let (target, property) = setup(IDENTITY, 2, &property_2d(["0.0", "0.0"], ["1.0", "1.0"], unsafe_when));
    let objectives = Objectives::new(&target.net, &property.cases[0]);
    assert_eq!(objectives.count(), 2);
    let margin = |goal, y: [f64; 2]| objectives.margin(goal, &y, 1, 0);
    assert_eq!(margin(Goal::One(0), [1.5, 4.0]), (0.5, Some((0, 0)))); // max(2 − 1.5, 4 − 5)
    assert_eq!(margin(Goal::One(0), [3.0, 7.5]), (2.5, Some((0, 1)))); // max(−1, 2.5)
    assert_eq!(margin(Goal::One(1), [3.0, 7.5]), (-4.5, Some((1, 0))));
    assert_eq!(margin(Goal::All, [1.5, 4.0]), (-1.0, Some((1, 0)))); // min(0.5, 3 − 4)
    assert_eq!(margin(Goal::All, [1.5, 1.0]), (0.5, Some((0, 0)))); // min(0.5, 2)
    // The gradient of the atom a margin comes from: −Y_1's for 3 − Y_1, Y_1's for Y_1 − 5.
    let mut g = vec![0.0; 2 * 16];
    objectives.seed(Some((1, 0)), &mut g, 16, 3);
    objectives.seed(Some((0, 1)), &mut g, 16, 5);
    assert_eq!((g[16 + 3], g[16 + 5]), (-1.0, 1.0));
    assert_eq!(g.iter().filter(|v| **v != 0.0).count(), 2);
    // Lanes aim in turn at all, then each conjunction; with one conjunction, all at all.
    let (one, single) = setup(IDENTITY, 2, &property_2d(["0.0", "0.0"], ["1.0", "1.0"], "(assert (>= Y_0 2.0))"));
    assert_eq!(objectives.goals(5), vec![Goal::All, Goal::One(0), Goal::One(1), Goal::All, Goal::One(0)]);
    assert_eq!(Objectives::new(&one.net, &single.cases[0]).goals(3), vec![Goal::All; 3]);
}

#[test]
fn checkpoints_are_apgds() {
    // p = 0, 0.22, 0.41, 0.57, 0.70, 0.80, 0.87, 0.93, 0.99 (steps of 0.19, 0.16, 0.13, 0.10,
    // 0.07, then 0.06).
    assert_eq!(checkpoints(100), vec![22, 41, 57, 70, 80, 87, 93, 99]);
    assert_eq!(checkpoints(ITERATIONS).last(), Some(&(ITERATIONS * 99 / 100)));
}

/// `y0 = −Σ|x_j − c_j|` over `c.len()` inputs through twice as many relus, `y1 = 0·h`; on
/// `[0, 1]^n`, unsafe when `y0 ≥ −radius` (a small L1 ball around `c`) or `y1 ≥ 5` (never).
fn l1_ball(c: &[f64], radius: &str) -> (Target, Property) {
    let n = c.len();
    let mut program = format!("let W = initTensor({}, {n}) in ", 2 * n);
    for j in 0..n {
        program += &format!("let W[{}, {j}] = 1.0 in let W[{}, {j}] = -1.0 in ", 2 * j, 2 * j + 1);
    }
    program += "let z = linear(W, x) in ";
    for (j, cj) in c.iter().enumerate() {
        let (a, b) = (2 * j, 2 * j + 1);
        program += &format!("let z[{a}] = z[{a}] + -{cj} in let z[{b}] = z[{b}] + {cj} in ");
    }
    program += &format!("let h = reluTensor(z) in let V = initTensor(2, {}) in ", 2 * n);
    for i in 0..2 * n {
        program += &format!("let V[0, {i}] = -1.0 in ");
    }
    program += "let y = linear(V, h) in y";
    let mut property = String::from("(declare-const Y_0 Real) (declare-const Y_1 Real) ");
    for j in 0..n {
        property += &format!("(declare-const X_{j} Real) (assert (>= X_{j} 0.0)) (assert (<= X_{j} 1.0)) ");
    }
    property += &format!("(assert (or (and (>= Y_0 -{radius})) (and (>= Y_1 5.0))))");
    setup(&program, n, &property)
}

#[test]
fn the_attack_finds_a_small_ball_in_many_dimensions_and_a_seed_fixes_what_it_finds() {
    // 40 inputs: random points are about 12 from c in L1, the centre about 8; 0.2 is needed.
    let c: Vec<f64> = (0..40).map(|j| ((j * 37 + 11) % 80 + 10) as f64 / 100.0).collect();
    let (target, property) = l1_ball(&c, "0.2");
    let search = falsifier(&target, &property.cases[0]);
    let (found, points) = search.sample(9);
    assert_eq!(found, None, "sampling alone should miss the ball");
    let distance = |x: &[f64]| x.iter().zip(&c).map(|(a, b)| (a - b).abs()).sum::<f64>();
    let nearest = points.iter().map(|x| distance(x)).fold(f64::INFINITY, f64::min);
    assert!(nearest > 4.0, "the nearest sampled point is {nearest} away");
    let x = search.descend(&points, 9, 0..ROUNDS, None).expect("the attack reaches the ball");
    assert!(distance(&x) <= 0.2, "{x:?} is {} away", distance(&x));
    assert!(x.iter().all(|v| (0.0..=1.0).contains(v)));
    // The same seed, the same point, to the bit; the round ranges compose.
    assert_eq!(search.descend(&points, 9, 0..ROUNDS, None), Some(x.clone()));
    let first = search.descend(&points, 9, 0..1, None);
    let rest = || search.descend(&points, 9, 1..ROUNDS, None);
    assert_eq!(first.or_else(rest), Some(x));
}

#[test]
fn the_attack_stops_at_its_deadline() {
    // 100 inputs, two tanh layers of 300: a round takes many steps of the whole batch.
    let mut program = String::from("let W = initTensor(300, 100) in let W[0, 0] = 1.0 in let z = linear(W, x) in ");
    for i in 0..300 {
        program += &format!("let z[{i}] = z[{i}] + 0.5 in ");
    }
    program += "let t = tanhTensor(z) in let U = initTensor(300, 300) in let U[0, 0] = 1.0 in \
                let u = linear(U, t) in let s = tanhTensor(u) in \
                let V = initTensor(2, 300) in let V[0, 0] = 1.0 in let y = linear(V, s) in y";
    let mut property = String::from("(declare-const Y_0 Real) (declare-const Y_1 Real) (assert (>= Y_0 2.0)) ");
    for j in 0..100 {
        property += &format!("(declare-const X_{j} Real) (assert (>= X_{j} -1.0)) (assert (<= X_{j} 1.0)) ");
    }
    let (target, property) = setup(&program, 100, &property);
    let search = falsifier(&target, &property.cases[0]);
    let (_, points) = search.sample(1);
    let started = Instant::now();
    assert_eq!(search.descend(&points, 1, 1..2, None), None, "tanh stays below 2");
    let round = started.elapsed();
    // A quarter of a round: the attack polls its deadline at every step (one of 110).
    let started = Instant::now();
    assert_eq!(search.descend(&points, 1, 0..ROUNDS, Some(started + round / 4)), None);
    let took = started.elapsed();
    assert!(took < round / 4 + round / 10 + Duration::from_millis(50), "{took:?} for a deadline of {:?}", round / 4);
    // A deadline already passed: nothing is evaluated.
    assert_eq!(search.descend(&points, 1, 0..ROUNDS, Some(Instant::now())), None);
}
