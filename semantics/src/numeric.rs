//! The scalar arithmetic of the rules, operation by operation, shared by both engines so that
//! they compute the same bits. Each function cites the rule it is the right-hand side of.

/// How an error's detail writes a Float operand, in both engines: its shortest decimal that
/// reads back as the same binary64 (`0.0`, `-1.5`, `NaN`, `inf`), so that the two engines word
/// one error the same (`max` cannot compute with NaN and 0.0).
pub fn float_words(x: f64) -> String {
    format!("{x:?}")
}

/// `expFloat`: correctly rounded (CORE-MATH), as MPFR's is.
pub fn exp_float(x: f64) -> f64 {
    core_math::exp(x)
}

/// `logFloat`: correctly rounded (CORE-MATH), as MPFR's is, so that both engines give the same
/// bits on every platform: the policy `expFloat` follows (Ext-9). `log(0.0)` is `-Infinity`,
/// `log` of a negative number or of NaN is NaN, `log(+Infinity)` is `+Infinity`.
pub fn log_float(x: f64) -> f64 {
    core_math::log(x)
}

/// `max(A:Float, B:Float)`: `B` when `A <Float B` (`max-right`), `A` when `A >=Float B`
/// (`max-left`); `None` when neither applies (a NaN).
pub fn k_max(a: f64, b: f64) -> Option<f64> {
    if a < b {
        Some(b)
    } else if a >= b {
        Some(a)
    } else {
        None
    }
}

/// `min(A:Float, B:Float)`: `A` when `A <Float B` (`min-left`), `B` when `A >=Float B`
/// (`min-right`); `None` for a NaN.
pub fn k_min(a: f64, b: f64) -> Option<f64> {
    if a < b {
        Some(a)
    } else if a >= b {
        Some(b)
    } else {
        None
    }
}

/// `tanh-item-float` (R64): `(expFloat(2.0 *Float X) -Float 1.0) /Float (expFloat(2.0 *Float X) +Float 1.0)`.
pub fn published_tanh(x: f64) -> f64 {
    let e = exp_float(2.0 * x);
    (e - 1.0) / (e + 1.0)
}

/// Rev-13: `(1.0 - e^{-2x}) / (1.0 + e^{-2x})` unless `X <Float 0.0` (NaN included), the
/// published formula below zero.
pub fn revised_tanh(x: f64) -> f64 {
    if x < 0.0 {
        published_tanh(x)
    } else {
        let e = exp_float(-2.0 * x);
        (1.0 - e) / (1.0 + e)
    }
}

/// `sigmoid-item-float` (R65): `1.0 /Float (1.0 +Float expFloat(0.0 -Float X))`.
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + exp_float(0.0 - x))
}

/// `Int2Float(I, 53, 11)`: the nearest binary64 (ties to even), as Rust's `as` rounds.
pub fn int_to_float(i: i64) -> f64 {
    i as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_and_min_follow_the_rules_including_signed_zeros_and_nan() {
        assert_eq!(k_max(1.0, 2.0), Some(2.0));
        assert_eq!(k_max(2.0, 1.0), Some(2.0));
        assert_eq!(k_max(-0.0, 0.0).map(f64::to_bits), Some((-0.0f64).to_bits()), "A >= B keeps A");
        assert_eq!(k_min(0.0, -0.0).map(f64::to_bits), Some((-0.0f64).to_bits()), "A >= B gives B");
        assert_eq!(k_max(f64::NAN, 0.0), None);
        assert_eq!(k_min(0.0, f64::NAN), None);
    }

    #[test]
    #[allow(clippy::excessive_precision, reason = "the 17 digits krun printed, kept verbatim")]
    fn tanh_and_sigmoid_match_the_authors_outputs() {
        // tanh_tensor.knn.out: 0.99505475368673046e0; sigmoid_tensor.knn.out: 0.95257412682243336e0.
        assert_eq!(published_tanh(3.0), 0.99505475368673046);
        assert_eq!(sigmoid(3.0), 0.95257412682243336);
        assert!(published_tanh(400.0).is_nan());
        assert_eq!(revised_tanh(400.0), 1.0);
        assert!(revised_tanh(f64::NAN).is_nan());
        assert_eq!(revised_tanh(-1.0), published_tanh(-1.0));
    }
}
