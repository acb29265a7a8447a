//! Skipping zero inputs against the reference's sum over every term, written plainly.

use knn_semantics::numeric::k_max;

use super::tests::{feature_major, pseudo_random, reference};
use super::*;

/// Inputs of which about `zeros` in ten are ±0.0 (either sign), with NaN, infinities and
/// subnormals among the rest: a NaN or an infinity is not zero, so its terms are kept.
fn relu_like(cols: usize, seed: u64, zeros: u64) -> Vec<f64> {
    let mut specials = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 5e-324, -1e-310].into_iter().cycle();
    pseudo_random(cols, seed)
        .into_iter()
        .enumerate()
        .map(|(j, v)| match (seed + j as u64 * 7) % 10 {
            k if k < zeros => {
                if k % 2 == 0 {
                    0.0
                } else {
                    -0.0
                }
            }
            _ if (seed + j as u64).is_multiple_of(37) => specials.next().expect("cycled"),
            _ => v,
        })
        .collect()
}

/// The reference's bits for every lane, or a message naming the first that differs.
fn check(isa: Isa, what: &str, w: &Matrix, xs: &[Vec<f64>], got: &[f64], lanes: usize) {
    for (l, x) in xs.iter().enumerate() {
        for (i, want) in reference(w, x).into_iter().enumerate() {
            let have = got[i * lanes + l];
            assert!(
                have.to_bits() == want.to_bits(),
                "{isa:?} {what} {}x{} [{i}][{l}]: {have:?}, the reference {want:?}",
                w.rows(),
                w.cols()
            );
        }
    }
}

#[test]
fn skipping_zero_inputs_keeps_the_reference_bits() {
    for isa in Isa::available() {
        // Up to 52 rows in one pass of 4-row vectors (AVX2), 128 of 8-row ones (AVX-512);
        // 256 and 300 take two and three.
        let shapes = [(1, 1), (5, 3), (8, 8), (9, 1), (13, 50), (50, 50), (17, 0), (64, 9), (10, 300), (130, 60)];
        for (rows, cols) in shapes.into_iter().chain([(128, 7), (256, 40), (300, 20)]) {
            let w = Matrix::new(rows, cols, pseudo_random(rows * cols, 11));
            for zeros in [0, 5, 9, 10] {
                let lanes = 2 * LANE_GROUP;
                let xs: Vec<Vec<f64>> = (0..lanes).map(|l| relu_like(cols, 300 + l as u64, zeros)).collect();
                let x = feature_major(&xs, cols);
                let mut skipping = vec![f64::NAN; rows * lanes];
                let epilogue = Epilogue::default();
                matmul_lanes_skipping_zeros_on(isa, &w, &x, &mut skipping, lanes, Precision::Exact, epilogue);
                check(isa, "skipping", &w, &xs, &skipping, lanes);
                let mut dense = vec![f64::NAN; rows * lanes];
                matmul_lanes_dense_on(isa, &w, &x, &mut dense, lanes, Precision::Exact, Epilogue::default());
                check(isa, "dense", &w, &xs, &dense, lanes);
                let mut chosen = vec![f64::NAN; rows * lanes];
                matmul_lanes_on(isa, &w, &x, &mut chosen, lanes, Precision::Exact, Epilogue::default());
                check(isa, "matmul", &w, &xs, &chosen, lanes);
                for x in &xs {
                    let mut one = vec![f64::NAN; rows];
                    matvec_on(isa, &w, x, &mut one, Precision::Exact, Epilogue::default());
                    check(isa, "matvec", &w, std::slice::from_ref(x), &one, 1);
                }
            }
        }
    }
}

#[test]
fn a_narrow_product_after_a_wide_one_sees_only_its_own_inputs() {
    // The kernels keep their scratch from call to call: what a product with more columns
    // left there must not count as inputs of the next one.
    let lanes = LANE_GROUP;
    for isa in Isa::available() {
        for cols in [130, 50, 3, 1, 0, 64, 2] {
            let rows = 7;
            let w = Matrix::new(rows, cols, pseudo_random(rows * cols, cols as u64));
            let xs: Vec<Vec<f64>> = (0..lanes).map(|l| relu_like(cols, 40 + l as u64, 5)).collect();
            let mut got = vec![f64::NAN; rows * lanes];
            matmul_lanes_skipping_zeros_on(
                isa,
                &w,
                &feature_major(&xs, cols),
                &mut got,
                lanes,
                Precision::Exact,
                Epilogue::default(),
            );
            check(isa, "skipping", &w, &xs, &got, lanes);
        }
    }
}

#[test]
fn a_zero_times_an_infinite_weight_is_not_skipped() {
    // inf * 0.0 is NaN: the reference's sum is NaN, so the zero input must be multiplied.
    let (rows, cols, lanes) = (9, 20, LANE_GROUP);
    let mut weights = pseudo_random(rows * cols, 5);
    weights[3 * cols + 4] = f64::INFINITY;
    let w = Matrix::new(rows, cols, weights);
    assert!(!w.skips_zero_inputs());
    let xs: Vec<Vec<f64>> = (0..lanes).map(|l| relu_like(cols, 70 + l as u64, 9)).collect();
    assert!(xs.iter().any(|x| x[4] == 0.0), "some lane has a zero where the weight is infinite");
    for isa in Isa::available() {
        let mut batch = vec![0.0; rows * lanes];
        matmul_lanes_on(isa, &w, &feature_major(&xs, cols), &mut batch, lanes, Precision::Exact, Epilogue::default());
        check(isa, "matmul", &w, &xs, &batch, lanes);
        for x in &xs {
            let mut one = vec![0.0; rows];
            matvec_on(isa, &w, x, &mut one, Precision::Exact, Epilogue::default());
            check(isa, "matvec", &w, std::slice::from_ref(x), &one, 1);
        }
    }
}

#[test]
fn the_skipping_epilogue_adds_given_biases_then_applies_relu() {
    let (rows, cols, lanes) = (13, 40, 2 * LANE_GROUP);
    let w = Matrix::new(rows, cols, pseudo_random(rows * cols, 21));
    let xs: Vec<Vec<f64>> = (0..lanes).map(|l| relu_like(cols, 500 + l as u64, 6)).collect();
    let bias: Vec<Option<f64>> = (0..rows).map(|i| (i % 4 != 1).then_some(0.5 - 0.125 * i as f64)).collect();
    for isa in Isa::available() {
        let (mut z, mut h) = (vec![0.0; rows * lanes], vec![0.0; rows * lanes]);
        let epilogue = Epilogue { bias: Some(&bias), relu: Some(&mut h) };
        let x = feature_major(&xs, cols);
        let nan = matmul_lanes_skipping_zeros_on(isa, &w, &x, &mut z, lanes, Precision::Exact, epilogue);
        let mut any_nan = false;
        for (l, x) in xs.iter().enumerate() {
            for (i, product) in reference(&w, x).into_iter().enumerate() {
                let expected = bias[i].map_or(product, |b| product + b);
                let at = i * lanes + l;
                assert_eq!(z[at].to_bits(), expected.to_bits(), "{isa:?} z [{i}][{l}]");
                match k_max(expected, 0.0) {
                    Some(want) => assert_eq!(h[at].to_bits(), want.to_bits(), "{isa:?} relu [{i}][{l}]"),
                    None => {
                        any_nan = true;
                        assert!(h[at].is_nan(), "{isa:?} relu [{i}][{l}] of NaN");
                    }
                }
            }
        }
        assert!(any_nan, "the inputs hold NaNs, so some sums are NaN");
        assert_eq!(nan, any_nan, "{isa:?}: relu reports the NaN it met");
    }
}

#[test]
fn fused_products_skip_zeros_to_the_same_bits() {
    // fma(w, ±0.0, s) is s when s is not -0.0: skipping changes no fused sum either.
    let (rows, cols, lanes) = (20, 90, LANE_GROUP);
    let w = Matrix::new(rows, cols, pseudo_random(rows * cols, 31));
    let xs: Vec<Vec<f64>> = (0..lanes).map(|l| relu_like(cols, 900 + l as u64, 5)).collect();
    let x = feature_major(&xs, cols);
    for isa in Isa::available() {
        let mut skipping = vec![0.0; rows * lanes];
        matmul_lanes_skipping_zeros_on(isa, &w, &x, &mut skipping, lanes, Precision::Fast, Epilogue::default());
        for (l, x) in xs.iter().enumerate() {
            for i in 0..rows {
                let fused = (0..cols).fold(0.0f64, |acc, j| w.get(i, j).mul_add(x[j], acc));
                assert_eq!(skipping[i * lanes + l].to_bits(), fused.to_bits(), "{isa:?} [{i}][{l}]");
            }
        }
    }
}
