//! Programs the benchmarks run, generated so that their size is a parameter.

use std::fmt::Write;

/// `x` of length `n` and `W` of shape `(n, n)` written element by element (`n + n²` element
/// writes), then `y = linear(W, x)` and `y[0]`.
pub fn linear_program(n: usize) -> String {
    let mut source = format!("let x = initTensor({n}) in let W = initTensor({n}, {n}) in ");
    for i in 0..n {
        write!(source, "let x[{i}] = {}.5 in ", i % 10).unwrap();
    }
    for i in 0..n {
        for j in 0..n {
            write!(source, "let W[{i}, {j}] = {}.25 in ", (i * j) % 7).unwrap();
        }
    }
    source.push_str("(let y = linear(W, x) in y[0])");
    source
}

#[cfg(test)]
mod tests {
    use knn_semantics::syntax::{Grammar, parse_program};

    #[test]
    fn the_linear_program_parses_and_has_the_promised_writes() {
        let source = super::linear_program(3);
        assert_eq!(source.matches("let x[").count(), 3);
        assert_eq!(source.matches("let W[").count(), 9);
        assert!(parse_program(&source, Grammar::K).is_ok());
    }
}
