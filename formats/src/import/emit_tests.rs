//! The emitter's unit tests: a layer in each style, element-wise steps fused, a network
//! without layers, streaming.

use super::*;
use crate::import::Activation;

fn network(steps: Vec<Step>) -> Network {
    Network {
        source: "t.nnet".into(),
        format: ".nnet",
        input: "x".into(),
        input_len: 2,
        input_shape: vec![2],
        output: "y".into(),
        steps,
        notes: vec![],
    }
}

#[test]
fn a_layer_is_a_literal_linear_bias_activation() {
    let text = emit(&network(vec![
        Step::Linear { rows: 2, cols: 2, weights: vec![1.5, 0.0, -0.0, 1e-7].into() },
        Step::Add(vec![0.0, -2.0]),
        Step::Activation(Activation::Relu),
    ]));
    assert!(text.contains("let W0 = initTensor(2, 2)[\n  1.5, 0.0,\n  -0.0, 1e-7\n] in\n"), "{text}");
    assert!(
        text.contains("let z0 = linear(W0, x) in\n\nlet z0[1] = z0[1] + -2.0 in\nlet y = reluTensor(z0) in\n\ny\n"),
        "{text}"
    );
    // Nine elements a row wrap after eight.
    let text = emit(&Network {
        input_len: 9,
        input_shape: vec![9],
        ..network(vec![Step::Linear { rows: 1, cols: 9, weights: (1..=9).map(f64::from).collect() }])
    });
    assert!(text.contains("[\n  1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0,\n  9.0\n] in"), "{text}");
}

#[test]
fn a_layer_is_weights_linear_bias_activation() {
    let text = emit_with(
        &network(vec![
            Step::Linear { rows: 2, cols: 2, weights: vec![1.5, 0.0, -0.0, 1e-7].into() },
            Step::Add(vec![0.0, -2.0]),
            Step::Activation(Activation::Relu),
        ]),
        Style::ElementLets,
    );
    assert!(
        text.contains(
            "let W0 = initTensor(2, 2) in\nlet W0[0, 0] = 1.5 in\nlet W0[1, 0] = -0.0 in let W0[1, 1] = 1e-7 in\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("let z0 = linear(W0, x) in\n\nlet z0[1] = z0[1] + -2.0 in\nlet y = reluTensor(z0) in\n\ny\n"),
        "{text}"
    );
    assert!(!text.contains("z0[0] + 0.0"), "a +0.0 bias after linear is left out: {text}");
}

#[test]
fn element_wise_steps_on_the_input_fuse_into_a_copy() {
    let text = emit(&network(vec![
        Step::Clip { low: vec![-1.0, 0.0], high: vec![1.0, f64::INFINITY] },
        Step::Add(vec![-0.5, -0.0]),
        Step::Mul(vec![2.0, 1.0]),
        Step::Linear { rows: 1, cols: 2, weights: vec![1.0, 1.0].into() },
        Step::Mul(vec![3.0]),
        Step::Add(vec![0.25]),
    ]));
    assert!(text.contains("let t0 = flatten(x) in\nlet t0[0] = (max(min(t0[0], 1.0), -1.0) + -0.5) * 2.0 in\nlet t0[1] = max(min(t0[1], Infinity), 0.0) in\n"), "{text}");
    // For any grammar: a fresh tensor, every element written from the input.
    let any = emit_with(&network(vec![Step::Add(vec![-0.5, 0.0])]), Style::ElementLets);
    assert!(any.contains("let y = initTensor(2) in\nlet y[0] = x[0] + -0.5 in\nlet y[1] = x[1] + 0.0 in\n"), "{any}");
    assert!(text.contains("let y = linear(W0, t0) in\n\nlet y[0] = y[0] * 3.0 + 0.25 in\n\ny\n"), "{text}");
}

#[test]
fn a_network_without_layers_copies_its_input() {
    let text = emit(&network(vec![]));
    assert!(text.ends_with("let y = flatten(x) in\n\ny\n"), "{text}");
    let any = emit_with(&network(vec![]), Style::ElementLets);
    assert!(any.ends_with("let y = initTensor(2) in\nlet y[0] = x[0] in\nlet y[1] = x[1] in\n\ny\n"), "{any}");
}

#[test]
fn a_program_streams_as_the_same_text_and_a_failed_write_stops_it() {
    let net = network(vec![
        Step::Linear { rows: 2, cols: 2, weights: vec![1.5, 0.0, -0.0, 1e-7].into() },
        Step::Add(vec![0.0, -2.0]),
        Step::Activation(Activation::Relu),
    ]);
    for style in [Style::Literals, Style::ElementLets, Style::Skeleton] {
        let mut bytes = Vec::new();
        emit_to(&net, style, &mut bytes).unwrap();
        assert_eq!(String::from_utf8(bytes).unwrap(), emit_with(&net, style), "{style:?}");
    }
    /// Takes `room` bytes, then fails; counts the writes tried after the failure.
    struct Full {
        room: usize,
        after: usize,
    }
    impl io::Write for Full {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.room == 0 {
                self.after += 1;
                return Err(io::Error::other("disk full"));
            }
            let n = buf.len().min(self.room);
            self.room -= n;
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut full = Full { room: 100, after: 0 };
    let error = emit_to(&net, Style::Literals, &mut full).unwrap_err();
    assert_eq!((error.to_string(), full.after), ("disk full".to_string(), 1), "the first error ends the writing");
}
