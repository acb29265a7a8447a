//! Soundness of the verifier on random small convolutional networks — `conv2d` (strides,
//! padding, dilations, groups), relu, `maxPool2d` or `avgPool2d` (with or without counting the
//! padding), `flatten`, a dense layer, sometimes a per-channel `c[i] * a + b` after the
//! convolution and `transpose` of the input (stored channels last) or of the pooled map, and
//! the convolution's padding written as a `pad` of its input (Ext-13) — on C×H×W images: whenever it says `holds`, 10^4 random
//! points and the box's corners find no violation (the corners on the small-step reference
//! too); whenever it says `violated`, the counterexample replays on the reference.
//! `KNN_VERIFY_CASES` sets the number of networks (default 100).
//!
//! `unknown` is allowed here (it is always an honest answer): with up to 50 inputs and radii
//! up to 1, some draws are regions where the classes tie over a whole face (every relu off:
//! two outputs exactly 0), which only splitting every relu decides.

mod verify_support;

use knn_engine::bigstep::{ExecOptions, run_rows};
use knn_semantics::engine::Observed;
use knn_semantics::syntax::{Grammar, parse_program};
use knn_verify::Target;
use knn_verify::claim::Claim;
use knn_verify::falsify::SplitMix;
use quickcheck::TestResult;
use verify_support::answers::{Case, check_random_cases, checked_answer, uniform};

use verify_support::exact_box;

fn below(rng: &mut SplitMix, n: u64) -> i64 {
    (rng.next_u64() % n) as i64
}

fn literal(rng: &mut SplitMix, dims: &[i64], lo: f64, hi: f64) -> String {
    let n: i64 = dims.iter().product();
    let values: Vec<String> = (0..n).map(|_| format!("{:?}", uniform(rng, lo, hi))).collect();
    let dims: Vec<String> = dims.iter().map(i64::to_string).collect();
    format!("initTensor({})[{}]", dims.join(", "), values.join(", "))
}

/// Output positions along one axis, or `None` when the window does not fit.
fn extent(n: i64, pads: (i64, i64), k: i64, d: i64, s: i64) -> Option<i64> {
    let room = n + pads.0 + pads.1 - (d * (k - 1) + 1);
    (room >= 0).then(|| room / s + 1)
}

/// `strides = […], pads = […], dilations = […]` with small random values, and the output
/// extents of a window `k` on `h × w`; `None` when it does not fit.
fn window(rng: &mut SplitMix, (h, w): (i64, i64), (kh, kw): (i64, i64), dilate: bool) -> Option<(String, i64, i64)> {
    let strides = [1 + below(rng, 2), 1 + below(rng, 2)];
    let pads: Vec<i64> = (0..4).map(|_| if below(rng, 3) == 0 { 1 } else { 0 }).collect();
    // Padding must stay smaller than the window, as ONNX requires of pools.
    let pads: Vec<i64> =
        pads.iter().enumerate().map(|(a, p)| if a % 2 == 0 { *p.min(&(kh - 1)) } else { *p.min(&(kw - 1)) }).collect();
    let dilations = if dilate { [1 + below(rng, 2), 1 + below(rng, 2)] } else { [1, 1] };
    let oh = extent(h, (pads[0], pads[2]), kh, dilations[0], strides[0])?;
    let ow = extent(w, (pads[1], pads[3]), kw, dilations[1], strides[1])?;
    let mut attrs = format!(
        "strides = [{}, {}], pads = [{}]",
        strides[0],
        strides[1],
        pads.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
    );
    if dilate {
        attrs.push_str(&format!(", dilations = [{}, {}]", dilations[0], dilations[1]));
    }
    Some((attrs, oh, ow))
}

/// A random permutation of three axes, written `p0, p1, p2`.
fn permutation(rng: &mut SplitMix) -> [usize; 3] {
    let mut perm = [0, 1, 2];
    for i in (1..3).rev() {
        perm.swap(i, below(rng, i as u64 + 1) as usize);
    }
    perm
}

/// `network` with extras drawn by `rng` (its own stream, so that the networks of earlier seeds
/// stay as they were): half the time the convolution's output is scaled per channel, `c[i] * a
/// + b` (an imported batch normalisation, the plan's `Elementwise`); half the time the input is
/// stored channels last, `(H, W, C)`, and transposed to `(C, H, W)` first (Ext-6); half the
/// time the pooled map is transposed by a random permutation before `flatten`.
fn with_extras(
    rng: &mut SplitMix,
    (source, [c, h, w], [m, oh, ow]): (String, [i64; 3], [i64; 3]),
) -> (String, [i64; 3]) {
    let mut source = source;
    let mut shape = [c, h, w];
    if below(rng, 2) == 0 {
        let factors: Vec<f64> = (0..m).map(|_| uniform(rng, -2.0, 2.0)).collect();
        let shifts: Vec<f64> = (0..m).map(|_| uniform(rng, -0.5, 0.5)).collect();
        let mut lets = String::new();
        for (k, i, j) in (0..m).flat_map(|k| (0..oh).flat_map(move |i| (0..ow).map(move |j| (k, i, j)))) {
            let (a, b) = (factors[k as usize], shifts[k as usize]);
            lets += &format!("let c[{k}, {i}, {j}] = c[{k}, {i}, {j}] * {a:?} + {b:?} in ");
        }
        source = source.replace("let r = reluTensor(c) in", &format!("{lets}let r = reluTensor(c) in"));
    }
    if below(rng, 2) == 0 {
        let [a, b, d] = permutation(rng);
        source = source
            .replace("let f = flatten(p) in", &format!("let t = transpose(p, {a}, {b}, {d}) in let f = flatten(t) in"));
    }
    if below(rng, 2) == 0 {
        source = format!("let xi = transpose(x, 2, 0, 1) in {}", source.replace("conv2d(x,", "conv2d(xi,"));
        shape = [h, w, c];
    }
    (source, shape)
}

/// `source` with, a third of the time, the convolution's padding written as a `pad` (Ext-13)
/// of its input (its own stream, as [`with_extras`]): `let xp = pad(x, v, 0, t, l, 0, b, r) in`
/// and the convolution's pads 0, so that every shape stays; `v` is `0.0` or `-0.0` (the same
/// bits as the convolution's own padding) or another constant (other outputs, the same shapes).
fn with_pad(rng: &mut SplitMix, source: String) -> String {
    const VALUES: [f64; 5] = [0.0, -0.0, 0.5, -1.5, 2.0];
    if below(rng, 3) != 0 {
        return source;
    }
    let value = VALUES[below(rng, VALUES.len() as u64) as usize];
    let conv = source.find("let c = conv2d(").expect("the network has its convolution");
    let input_at = conv + "let c = conv2d(".len();
    let input = &source[input_at..input_at + source[input_at..].find(',').expect("operands")];
    let pads_at = conv + source[conv..].find("pads = [").expect("the convolution's pads") + "pads = [".len();
    let pads_end = pads_at + source[pads_at..].find(']').expect("a closed list");
    let pads: Vec<&str> = source[pads_at..pads_end].split(", ").collect();
    let [t, l, b, r] = pads[..] else { panic!("four pads: {pads:?}") };
    let padded = format!("let xp = pad({input}, {value:?}, 0, {t}, {l}, 0, {b}, {r}) in ");
    let conv_text = source[conv..pads_end].replacen(&format!("conv2d({input},"), "conv2d(xp,", 1);
    let conv_text = conv_text.replacen(&format!("pads = [{t}, {l}, {b}, {r}"), "pads = [0, 0, 0, 0", 1);
    format!("{}{padded}{conv_text}{}", &source[..conv], &source[pads_end..])
}

/// A random CNN on `x` (C×H×W), its input shape and its convolution's output shape, or `None`
/// when the draw does not fit.
fn random_network(rng: &mut SplitMix) -> Option<(String, [i64; 3], [i64; 3])> {
    let group = 1 + below(rng, 2);
    let (c, h, w) = (group * (1 + below(rng, 2)), 2 + below(rng, 4), 2 + below(rng, 4));
    let m = group * (1 + below(rng, 2));
    let (kh, kw) = (1 + below(rng, 3), 1 + below(rng, 3));
    let (conv_attrs, oh, ow) = window(rng, (h, w), (kh, kw), true)?;
    let mut source = format!("let W = {} in ", literal(rng, &[m, c / group, kh, kw], -1.0, 1.0));
    source.push_str(&format!("let B = {} in ", literal(rng, &[m], -0.5, 0.5)));
    source.push_str(&format!("let c = conv2d(x, W, B, {conv_attrs}, group = {group}) in let r = reluTensor(c) in "));
    let (ph, pw) = (1 + below(rng, 2), 1 + below(rng, 2));
    let (pool_attrs, qh, qw) = window(rng, (oh, ow), (ph, pw), false)?;
    let pool = match below(rng, 3) {
        0 => format!("maxPool2d(r, kernel = [{ph}, {pw}], {pool_attrs})"),
        1 => format!("avgPool2d(r, kernel = [{ph}, {pw}], {pool_attrs})"),
        _ => format!("avgPool2d(r, kernel = [{ph}, {pw}], {pool_attrs}, countPad = 1)"),
    };
    let features = m * qh * qw;
    let outputs = 2 + below(rng, 2);
    source.push_str(&format!("let p = {pool} in let f = flatten(p) in "));
    source.push_str(&format!("let L = {} in let y = linear(L, f) in y", literal(rng, &[outputs, features], -1.0, 1.0)));
    Some((source, [c, h, w], [m, oh, ow]))
}

fn random_case(seed: u64) -> (Case, Vec<usize>) {
    let mut rng = SplitMix::new(seed);
    let (source, shape) = loop {
        if let Some(drawn) = random_network(&mut rng) {
            let (source, shape) = with_extras(&mut SplitMix::new(seed ^ 0x7472_616e_7370_6f73), drawn);
            break (with_pad(&mut SplitMix::new(seed ^ 0x7061_6470_6164_7061), source), shape);
        }
    };
    let inputs = shape.iter().product::<i64>() as usize;
    let eps = uniform(&mut rng, 0.0, 1.0) * 10f64.powi(-((rng.next_u64() % 3) as i32));
    let centre: Vec<f64> = (0..inputs).map(|_| uniform(&mut rng, 0.0, 1.0)).collect();
    let lo: Vec<f64> = centre.iter().map(|c| c - eps).collect();
    let hi: Vec<f64> = centre.iter().map(|c| c + eps).collect();
    let claim = match rng.next_u64() % 4 {
        0 | 1 => Claim::ArgmaxStable,
        2 => Claim::ArgmaxIs((rng.next_u64() % 2) as usize),
        _ => Claim::ArgmaxIsNot((rng.next_u64() % 2) as usize),
    };
    let case = Case { source, region: exact_box(&lo, &hi), lo, hi, claim };
    (case, shape.iter().map(|&d| d as usize).collect())
}

/// The verifier's answer to case `seed`, checked (`verify_support::answers::checked_answer`).
fn sound_with(seed: u64, bounds_only: bool) -> TestResult {
    let (case, shape) = random_case(seed);
    checked_answer(seed, &case, shape, bounds_only)
}

fn sound(seed: u64) -> TestResult {
    sound_with(seed, false)
}

fn sound_by_bounds(seed: u64) -> TestResult {
    sound_with(seed, true)
}

#[test]
fn holds_and_violated_are_never_wrong_on_random_convolutional_networks() {
    check_random_cases(sound as fn(u64) -> TestResult);
}

#[test]
fn holds_is_never_wrong_when_the_bounds_decide_alone() {
    check_random_cases(sound_by_bounds as fn(u64) -> TestResult);
}

#[test]
fn a_pool_window_wholly_in_the_padding_is_unsupported_not_bounded() {
    // Window 0 of each pool reads only the padding row: avgPool2d divides 0.0 by 0 there
    // (NaN at every input), maxPool2d returns -Infinity; neither is bounded, both are named.
    for (pool, what) in [
        ("avgPool2d(x, kernel = [1, 1], pads = [1, 0, 0, 0])", "avgPool2d"),
        ("maxPool2d(x, kernel = [1, 1], pads = [1, 0, 0, 0])", "maxPool2d"),
    ] {
        let source = format!("let p = {pool} in let f = flatten(p) in f");
        let program = parse_program(&source, Grammar::Relaxed).expect("the program parses");
        let Err(refused) = Target::new(program, "x", vec![1, 1, 2], vec![]) else { panic!("{what}: bounded") };
        let message = format!("{refused:?}");
        assert!(message.contains(what) && message.contains("wholly in the padding"), "{message}");
    }
}

#[test]
fn window_operators_on_a_branch_are_read_and_compute_the_engines_bits() {
    // Each reads the input `x` after a relu of it was computed: a branch, carried beside the
    // relu's output on the chain's vector (verify/src/branches.rs), then summed with it.
    let kernel = "let K = initTensor(1, 1, 1, 1)[2.0] in ";
    for body in [
        format!("{kernel}let r = reluTensor(x) in let c = conv2d(x, K) in let s = addTensor(r, c) in let f = flatten(s) in f"),
        "let r = reluTensor(x) in let p = maxPool2d(x, kernel = [1, 1]) in let s = subTensor(r, p) in let f = flatten(s) in f"
            .to_string(),
        "let r = reluTensor(x) in let f = flatten(x) in let W = initTensor(1, 2)[1.0, 1.0] in let y = linear(W, f) in y"
            .to_string(),
    ] {
        let program = parse_program(&body, Grammar::Relaxed).expect("the program parses");
        let t = Target::new(program, "x", vec![1, 1, 2], vec![]).unwrap_or_else(|refused| panic!("{body}: {refused:?}"));
        let points = [[0.5, -1.5], [-0.0, 3.0], [-2.0, -7.25], [1e308, -1e-310]];
        let rows: Vec<Vec<&[f64]>> = points.iter().map(|x| vec![&x[..]]).collect();
        for (x, result) in points.iter().zip(run_rows(&t.plan, &rows, ExecOptions::default())) {
            let Ok(Observed::Tensor(engine)) = result else { panic!("{body}: {result:?}") };
            assert_eq!(t.net.eval(x), engine.data, "{body} at {x:?}");
        }
    }
}

#[test]
fn the_random_networks_pad_the_convolutions_input_and_the_verifier_reads_it() {
    // Some seeds draw the `pad`; each such program is a chain the verifier reads (the plan's
    // `Pad` as the Pad operator), its convolution reading `xp` with pads 0.
    let mut padded = 0;
    for seed in 0..60 {
        let (case, shape) = random_case(seed);
        if !case.source.contains("let xp = pad(") {
            continue;
        }
        padded += 1;
        assert!(case.source.contains("conv2d(xp, W, B, strides = [") && case.source.contains("pads = [0, 0, 0, 0]"));
        let program = parse_program(&case.source, Grammar::Relaxed).expect("the generated program parses");
        Target::new(program, "x", shape, vec![]).unwrap_or_else(|e| panic!("seed {seed}: {e:?}\n{}", case.source));
    }
    assert!(padded >= 5, "{padded} of 60 seeds draw a pad");
}
