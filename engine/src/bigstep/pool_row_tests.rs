//! `pool_lanes` on one lane (`pool_row`: a row of outputs at a time, their chains interleaved)
//! and on three, against the one-row definition `pool_apply` (`ext-max-pool2d-helper-step`,
//! `ext-avg-pool2d-helper-step`, `ext-pool-mean`), bit for bit, over a grid of geometries with
//! output rows of 1 to 20, and with a NaN reaching `max`.

use super::*;

/// Values whose sums depend on their order: spread over 40 binades, both signs.
fn values(n: usize, seed: u64) -> Vec<f64> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let unit = (state >> 11) as f64 / (1u64 << 53) as f64;
            (unit - 0.5) * 2f64.powi((state % 40) as i32 - 20)
        })
        .collect()
}

/// Every pool of `[c, h, w]` under `attrs`, on one lane and on three: the one-row definition's
/// bits, and its NaN error on the same lanes.
fn check(dims: [i64; 3], attrs: WindowAttrs, nan_at: Option<usize>) -> usize {
    let Ok(g) = Pool2dGeometry::check("maxPool2d", "x", &dims, attrs) else { return 0 };
    let (len, out_len) = (dims.iter().product::<i64>() as usize, g.output.iter().product::<i64>() as usize);
    for pool in [Pool::Max, Pool::Avg] {
        for lanes in [1, 3] {
            let mut rows: Vec<Vec<f64>> = (0..lanes).map(|l| values(len, 11 + l as u64)).collect();
            if let Some(k) = nan_at {
                rows[0][k] = f64::NAN;
            }
            let mut input = vec![0.0; len * lanes];
            for (l, row) in rows.iter().enumerate() {
                row.iter().enumerate().for_each(|(k, &v)| input[k * lanes + l] = v);
            }
            let mut result = vec![f64::NAN; out_len * lanes];
            let failed = pool_lanes(pool, &g, &input, &mut result, lanes);
            let mut expected_failed = Vec::new();
            for (l, row) in rows.iter().enumerate() {
                let mut alone = vec![0.0; out_len];
                match pool_apply(pool, &g, row, &mut alone) {
                    Err(error) => expected_failed.push((l, error)),
                    Ok(()) => {
                        for (k, v) in alone.iter().enumerate() {
                            let got = result[k * lanes + l];
                            assert_eq!(v.to_bits(), got.to_bits(), "{pool:?} {dims:?} {attrs:?} lanes {lanes}: {k}");
                        }
                    }
                }
            }
            assert_eq!(format!("{failed:?}"), format!("{expected_failed:?}"), "{pool:?} {dims:?} {attrs:?}");
        }
    }
    out_len
}

#[test]
fn pools_on_one_lane_and_on_three_are_the_definitions_bit_for_bit() {
    let mut outputs = 0;
    for s in 1..=3 {
        for p in 0..=2 {
            for d in 1..=2 {
                for k in 1..=4 {
                    let attrs = WindowAttrs {
                        strides: [s, 4 - s],
                        pads: [p, 2 - p, 1, p],
                        dilations: [d, 3 - d],
                        group: 1,
                        kernel: [k, 5 - k],
                        count_pad: k % 2,
                    };
                    // Output rows of 1 to 20.
                    for dims in [[1, 3, 5], [2, 5, 17], [1, 4, 23]] {
                        outputs += check(dims, attrs, None);
                    }
                }
            }
        }
    }
    assert!(outputs > 5_000, "{outputs} outputs checked");
    // verivital's pool (4×4 at stride 4 on 32×27×27: rows of 6), and a max pool meeting a NaN
    // (channel 1, row 1, column 10).
    let verivital =
        WindowAttrs { strides: [4, 4], pads: [0; 4], dilations: [1, 1], group: 1, kernel: [4, 4], count_pad: 0 };
    assert_eq!(check([32, 27, 27], verivital, None), 32 * 6 * 6);
    let wide = WindowAttrs { kernel: [2, 2], strides: [1, 1], ..verivital };
    assert_eq!(check([2, 3, 21], wide, Some((3 + 1) * 21 + 10)), 2 * 2 * 20);
}
