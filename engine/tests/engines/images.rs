//! What the tests of the image operators (`conv2d`, the pools) share: a 1×3×3 image `x` =
//! [[1, 2, 3], [4, 5, 6], [7, 8, 9]], bound two ways, and the check that both give the same
//! bits.

use super::*;

/// `v` = [1, …, 9] as an input, copied into `x`, one channel, so that `x`'s elements are
/// symbolic in the staged engine.
pub fn input_3x3() -> TensorInput {
    vector("v", &(1..=9).map(f64::from).collect::<Vec<_>>())
}

/// `x` from the input `v`, element by element.
pub fn x_from_input() -> String {
    let mut source = "let x = initTensor(1, 3, 3) in ".to_string();
    for k in 0..9 {
        source.push_str(&format!("let x[0, {}, {}] = v[{k}] in ", k / 3, k % 3));
    }
    source
}

/// The same `x` as a literal, so that the direct evaluation computes on constants.
pub const X_LITERAL: &str = "let x = initTensor(1, 3, 3)[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0] in ";

/// The tensor every engine agrees on for `source`.
pub fn tensor(source: &str, inputs: &[TensorInput]) -> (Vec<usize>, Vec<f64>) {
    match agree(source, inputs) {
        Verdict::Value(Observed::Tensor(t)) => (t.shape, t.data),
        other => panic!("{source}: {other}"),
    }
}

/// `program` after `x` bound both ways (an input, a literal): the same shape and bits.
pub fn both_ways(program: &str) -> (Vec<usize>, Vec<f64>) {
    let symbolic = tensor(&format!("{}{program}", x_from_input()), &[input_3x3()]);
    let constant = tensor(&format!("{X_LITERAL}{program}"), &[]);
    assert_eq!(
        (&symbolic.0, symbolic.1.iter().map(|v| v.to_bits()).collect::<Vec<_>>()),
        (&constant.0, constant.1.iter().map(|v| v.to_bits()).collect::<Vec<_>>())
    );
    symbolic
}
