//! Every kernel variant this CPU runs against the reference's sum, written plainly.

use knn_semantics::numeric::k_max;

use super::*;

/// `((0.0 + w[i][0]*x[0]) + w[i][1]*x[1]) + …`: a left fold, multiply then add.
pub(super) fn reference(w: &Matrix, x: &[f64]) -> Vec<f64> {
    (0..w.rows()).map(|i| x.iter().enumerate().fold(0.0, |acc, (j, xj)| acc + w.get(i, j) * xj)).collect()
}

pub(super) fn pseudo_random(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

/// Lane `l` of a feature-major batch is `xs[l]`.
pub(super) fn feature_major(xs: &[Vec<f64>], cols: usize) -> Vec<f64> {
    let lanes = xs.len();
    let mut out = vec![0.0; cols * lanes];
    for (l, x) in xs.iter().enumerate() {
        for (j, v) in x.iter().enumerate() {
            out[j * lanes + l] = *v;
        }
    }
    out
}

/// Rows around the panel height, columns around the column block (128), and empty sums; rows
/// past one AVX-512 tile of one input (64) and one AVX2 pass (52); and a matrix of 312 KB,
/// several row blocks of `x86::WEIGHT_BLOCK` (128 KiB) with three column blocks each.
const SHAPES: [(usize, usize); 14] = [
    (1, 1),
    (5, 3),
    (7, 2),
    (8, 8),
    (9, 1),
    (13, 50),
    (50, 50),
    (17, 0),
    (64, 9),
    (9, 128),
    (3, 129),
    (10, 300),
    (65, 7),
    (130, 300),
];

/// The instruction sets every kernel test here runs on, printed for the CI log (`.ci/run`
/// shows this line): each test loops over [`Isa::available`], and this one checks that the
/// list holds every variant the CPU reports, so that none is skipped unnoticed.
#[test]
fn kernel_isas_tested() {
    let tested = Isa::available();
    assert!(tested.contains(&Isa::Portable), "the portable kernels run everywhere");
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        let avx2 = has!("avx2") && has!("fma");
        let avx512 = has!("avx512f") && has!("fma");
        assert_eq!(tested.contains(&Isa::Avx2), avx2, "the CPU has AVX2 and FMA: {avx2}");
        assert_eq!(tested.contains(&Isa::Avx512), avx512, "the CPU has AVX-512F and FMA: {avx512}");
    }
    let names: Vec<&str> = tested.iter().rev().map(|isa| isa.name()).collect();
    eprintln!("kernels tested: {}", names.join(", "));
}

#[test]
fn every_variant_gives_the_reference_bits() {
    for isa in Isa::available() {
        for (rows, cols) in SHAPES {
            // `w` runs batches first (its panels made), then single inputs read those panels;
            // `fresh` runs single inputs only, on its column layout.
            let w = Matrix::new(rows, cols, pseudo_random(rows * cols, 1));
            let fresh = Matrix::new(rows, cols, pseudo_random(rows * cols, 1));
            for lanes in [LANE_GROUP, 3 * LANE_GROUP] {
                let xs: Vec<Vec<f64>> = (0..lanes).map(|l| pseudo_random(cols, 100 + l as u64)).collect();
                let mut batch = vec![f64::NAN; rows * lanes];
                let nan = matmul_lanes_on(
                    isa,
                    &w,
                    &feature_major(&xs, cols),
                    &mut batch,
                    lanes,
                    Precision::Exact,
                    Epilogue::default(),
                );
                assert!(!nan, "no relu, nothing to report");
                for (l, x) in xs.iter().enumerate() {
                    let expected = reference(&w, x);
                    let (mut one, mut from_panels) = (vec![f64::NAN; rows], vec![f64::NAN; rows]);
                    matvec_on(isa, &fresh, x, &mut one, Precision::Exact, Epilogue::default());
                    assert!(w.panels_only().is_some(), "the batch made the panels, nothing else");
                    matvec_on(isa, &w, x, &mut from_panels, Precision::Exact, Epilogue::default());
                    for i in 0..rows {
                        let want = expected[i].to_bits();
                        assert_eq!(one[i].to_bits(), want, "{isa:?} matvec {rows}x{cols} [{i}]");
                        assert_eq!(from_panels[i].to_bits(), want, "{isa:?} matvec on panels {rows}x{cols} [{i}]");
                        assert_eq!(batch[i * lanes + l].to_bits(), want, "{isa:?} matmul {rows}x{cols} [{i}][{l}]");
                    }
                }
            }
        }
    }
}

#[test]
fn the_epilogue_adds_given_biases_then_applies_relu_by_the_max_rules() {
    let (rows, cols, lanes) = (11, 150, 2 * LANE_GROUP);
    let mut weights = pseudo_random(rows * cols, 3);
    weights[2 * cols] = f64::INFINITY; // row 2: inf * 0.0 is NaN in the lanes where x[0] is 0.0
    let w = Matrix::new(rows, cols, weights);
    let mut xs: Vec<Vec<f64>> = (0..lanes).map(|l| pseudo_random(cols, 40 + l as u64)).collect();
    xs[5][0] = 0.0;
    let bias: Vec<Option<f64>> = (0..rows).map(|i| (i % 3 != 0).then_some(0.25 * i as f64 - 1.0)).collect();
    for isa in Isa::available() {
        let (mut z, mut h) = (vec![0.0; rows * lanes], vec![0.0; rows * lanes]);
        let epilogue = Epilogue { bias: Some(&bias), relu: Some(&mut h) };
        let nan = matmul_lanes_on(isa, &w, &feature_major(&xs, cols), &mut z, lanes, Precision::Exact, epilogue);
        assert!(nan, "{isa:?}: lane 5 of row 2 is NaN");
        for (l, x) in xs.iter().enumerate() {
            let products = reference(&w, x);
            let mut single = (vec![0.0; rows], vec![0.0; rows]);
            let one_nan = matvec_on(
                isa,
                &w,
                x,
                &mut single.0,
                Precision::Exact,
                Epilogue { bias: Some(&bias), relu: Some(&mut single.1) },
            );
            assert_eq!(one_nan, l == 5, "{isa:?} matvec lane {l}");
            for i in 0..rows {
                let expected = bias[i].map_or(products[i], |b| products[i] + b);
                for (got, what) in [(z[i * lanes + l], "batch z"), (single.0[i], "one z")] {
                    assert_eq!(got.to_bits(), expected.to_bits(), "{isa:?} {what} [{i}][{l}]");
                }
                for (got, what) in [(h[i * lanes + l], "batch relu"), (single.1[i], "one relu")] {
                    match k_max(expected, 0.0) {
                        Some(want) => assert_eq!(got.to_bits(), want.to_bits(), "{isa:?} {what} [{i}][{l}]"),
                        None => {
                            assert!(got.is_nan() && (i, l) == (2, 5), "{isa:?} {what} [{i}][{l}]: only NaN has no rule")
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn negative_zero_products_start_from_positive_zero() {
    // The reference adds every product to 0.0: 0.0 + (-0.0) is 0.0, not -0.0.
    let w = Matrix::new(1, 1, vec![-1.0]);
    for isa in Isa::available() {
        let mut out = [f64::NAN];
        matvec_on(isa, &w, &[0.0], &mut out, Precision::Exact, Epilogue::default());
        assert_eq!(out[0].to_bits(), 0.0f64.to_bits(), "{isa:?}");
    }
}

#[test]
fn fast_kernels_stay_close() {
    let (rows, cols, lanes) = (20, 300, LANE_GROUP);
    let w = Matrix::new(rows, cols, pseudo_random(rows * cols, 7));
    let xs: Vec<Vec<f64>> = (0..lanes).map(|l| pseudo_random(cols, 8 + l as u64)).collect();
    for isa in Isa::available() {
        let mut batch = vec![0.0; rows * lanes];
        matmul_lanes_on(isa, &w, &feature_major(&xs, cols), &mut batch, lanes, Precision::Fast, Epilogue::default());
        for (l, x) in xs.iter().enumerate() {
            let exact = reference(&w, x);
            let (mut fast, mut from_panels) = (vec![0.0; rows], vec![0.0; rows]);
            matvec_on(
                isa,
                &Matrix::new(rows, cols, w.elements().to_vec()),
                x,
                &mut fast,
                Precision::Fast,
                Epilogue::default(),
            );
            matvec_on(isa, &w, x, &mut from_panels, Precision::Fast, Epilogue::default());
            for i in 0..rows {
                approx::assert_relative_eq!(exact[i], fast[i], epsilon = 1e-12, max_relative = 1e-9);
                assert_eq!(
                    fast[i].to_bits(),
                    from_panels[i].to_bits(),
                    "{isa:?}: one fused multiply-add a term either way"
                );
                approx::assert_relative_eq!(exact[i], batch[i * lanes + l], epsilon = 1e-12, max_relative = 1e-9);
            }
        }
    }
}
