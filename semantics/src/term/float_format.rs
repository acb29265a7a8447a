//! K's printed form of a Float (the LLVM backend's `floatToString`): the value rounded to 17
//! significant digits (`mpfr_get_str` with `n = 0` at precision 53) written as
//! `0.DDDDDDDDDDDDDDDDDeE`, e.g. `4.0` as `0.40000000000000000e1`, `-3.0` as
//! `-0.30000000000000000e1`, zero as `0.00000000000000000e0`; `NaN`, `Infinity`, `-Infinity`.

/// `x` as krun prints it.
pub fn k_float(x: f64) -> String {
    if x.is_nan() {
        return "NaN".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.to_string();
    }
    // `{:.16e}` rounds the exact binary value to 17 significant digits, ties to even, as
    // MPFR's round-to-nearest does.
    let scientific = format!("{:.16e}", x);
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let exponent: i32 = exponent.parse().unwrap_or(0);
    // 0.d1d2… × 10^(e+1) = d1.d2… × 10^e; zero has exponent 0.
    let exponent = if x == 0.0 { 0 } else { exponent + 1 };
    format!("{sign}0.{digits}e{exponent}")
}

#[cfg(test)]
mod tests {
    use super::k_float;

    #[test]
    fn matches_the_authors_krun_outputs() {
        assert_eq!(k_float(4.0), "0.40000000000000000e1");
        assert_eq!(k_float(-3.0), "-0.30000000000000000e1");
        assert_eq!(k_float(0.0), "0.00000000000000000e0");
        assert_eq!(k_float(17.0), "0.17000000000000000e2");
        assert_eq!(k_float(36.0), "0.36000000000000000e2");
        assert_eq!(k_float(0.5), "0.50000000000000000e0");
    }

    #[test]
    fn special_values_and_small_numbers() {
        assert_eq!(k_float(-0.0), "-0.00000000000000000e0");
        assert_eq!(k_float(f64::NAN), "NaN");
        assert_eq!(k_float(f64::INFINITY), "Infinity");
        assert_eq!(k_float(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(k_float(0.1), "0.10000000000000001e0");
        assert_eq!(k_float(-0.7615941559557649), "-0.76159415595576485e0");
        assert_eq!(k_float(1e-320), "0.99998886718268301e-320");
    }
}
