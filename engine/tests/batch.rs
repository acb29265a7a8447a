//! Batches: a plan run on many rows at once gives each row exactly what a run on that row
//! alone gives, and what the small-step reference gives, whatever the grouping; fast math stays
//! within its stated tolerance.

use std::fmt::Write;

use knn_engine::bigstep::ops::Op;
use knn_engine::bigstep::rows::FRAME_BUDGET;
use knn_engine::bigstep::{Binding, ExecOptions, InputData, Plan, RowResult, compile, run_rows, verdict};
use knn_engine::tensor::LANE_GROUP;
use knn_engine::tensor::Precision;
use knn_semantics::Profile;
use knn_semantics::engine::{Engine, Observed, SmallStep, Verdict};
use knn_semantics::inputs::TensorInput;
use knn_semantics::syntax::{Elements, Exp, parse_program, parse_program_with_elements};

/// A seeded stream in `[-1, 1)`.
struct Stream(u64);

impl Stream {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

/// An MLP over input `x` with the given widths: `linear`, bias `let`s on most rows (not every
/// row, so absent biases are exercised), relu between layers; `tail` ends the program (`ArgMax`
/// of the last layer, the layer itself, …). Widths cross the kernels' panel height (8) and
/// column block (128).
fn mlp(widths: &[usize], tail: &str) -> String {
    let mut stream = Stream(widths.iter().sum::<usize>() as u64);
    let mut source = String::new();
    let mut input = "x".to_string();
    for (l, pair) in widths.windows(2).enumerate() {
        let (cols, rows) = (pair[0], pair[1]);
        write!(source, "let W{l} = initTensor({rows}, {cols}) in ").unwrap();
        for i in 0..rows {
            for j in 0..cols {
                write!(source, "let W{l}[{i}, {j}] = {:?} in ", stream.next() / (cols as f64).sqrt()).unwrap();
            }
        }
        write!(source, "let z{l} = linear(W{l}, {input}) in ").unwrap();
        for i in (0..rows).filter(|i| i % 5 != 3) {
            write!(source, "let z{l}[{i}] = z{l}[{i}] + {:?} in ", stream.next() * 0.1).unwrap();
        }
        input = if l + 2 < widths.len() {
            write!(source, "let h{l} = reluTensor(z{l}) in ").unwrap();
            format!("h{l}")
        } else {
            format!("z{l}")
        };
    }
    source + &tail.replace("OUT", &input)
}

/// Rows of width `n`: seeded values, then rows that fail in some layer (NaN, infinities that
/// meet as `inf - inf`), zeros and negative zeros.
fn rows(n: usize, count: usize) -> Vec<Vec<f64>> {
    let mut stream = Stream(99);
    let mut rows: Vec<Vec<f64>> = (0..count).map(|_| (0..n).map(|_| stream.next() * 3.0).collect()).collect();
    let special = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0, 1e308];
    for (k, value) in special.into_iter().enumerate() {
        let row = &mut rows[(7 * k + 3) % count];
        row[k % n] = value;
        if value.is_infinite() {
            row[(k + 1) % n] = -value;
        }
    }
    rows
}

fn run(program: &Exp, n: usize, rows: &[Vec<f64>], options: ExecOptions) -> Vec<RowResult> {
    let plan = compile(program, &[Binding { name: "x".into(), shape: vec![n], data: InputData::Symbolic }]);
    let refs: Vec<Vec<&[f64]>> = rows.iter().map(|r| vec![r.as_slice()]).collect();
    run_rows(&plan, &refs, options)
}

fn one(program: &Exp, row: &[f64]) -> Verdict {
    let input = TensorInput { name: "x".into(), shape: vec![row.len()], data: row.to_vec() };
    SmallStep::revised().evaluate(program, &[input]).expect("the input binds")
}

const TAILS: [&str; 3] = ["ArgMax(OUT)", "OUT", "OUT[0] + OUT[1]"];

#[test]
fn every_grouping_gives_each_row_the_reference_result() {
    let widths = [6, 130, 13, 4];
    let rows = rows(6, 70);
    for tail in TAILS {
        let program = parse_program(&mlp(&widths, tail), Profile::revised().grammar).expect("the MLP parses");
        let reference: Vec<Verdict> = rows.iter().map(|row| one(&program, row)).collect();
        assert!(reference.iter().any(|v| matches!(v, Verdict::Error { .. })), "{tail}: some rows fail");
        assert!(reference.iter().filter(|v| matches!(v, Verdict::Value(_))).count() > 60, "{tail}: most rows run");
        for group in [Some(16), Some(48), None] {
            let options = ExecOptions { precision: Precision::Exact, group };
            let batch = run(&program, 6, &rows, options);
            assert_eq!(batch.len(), rows.len());
            for (k, (got, want)) in batch.into_iter().zip(&reference).enumerate() {
                let got = verdict(got);
                assert!(got.agrees_with(want), "{tail}, group {group:?}, row {k}: {got} but the reference says {want}");
            }
        }
        // A row alone takes the one-input kernels: the same again.
        for (k, row) in rows.iter().enumerate().step_by(9) {
            let alone = verdict(run(&program, 6, std::slice::from_ref(row), ExecOptions::default()).remove(0));
            assert!(alone.agrees_with(&reference[k]), "{tail}, row {k} alone: {alone} vs {}", reference[k]);
        }
    }
}

#[test]
fn fast_math_stays_within_its_tolerance() {
    let widths = [6, 130, 13, 4];
    let rows = rows(6, 64);
    let program = parse_program(&mlp(&widths, "OUT"), Profile::revised().grammar).expect("the MLP parses");
    let exact = run(&program, 6, &rows, ExecOptions::default());
    let fast = run(&program, 6, &rows, ExecOptions { precision: Precision::Fast, group: None });
    let mut compared = 0;
    for (k, (e, f)) in exact.iter().zip(&fast).enumerate() {
        match (e, f) {
            (Ok(Observed::Tensor(e)), Ok(Observed::Tensor(f))) => {
                for (a, b) in e.data.iter().zip(&f.data) {
                    if a.is_finite() {
                        approx::assert_relative_eq!(*a, *b, epsilon = 1e-12, max_relative = 1e-9);
                        compared += 1;
                    }
                }
            }
            (Err(e), Err(f)) => assert_eq!(e.kind, f.kind, "row {k}"),
            _ => panic!("row {k}: exact {e:?}, fast {f:?}"),
        }
    }
    assert!(compared >= 4 * 60, "{compared} elements compared");
}

/// `W{name}` of shape `(rows, cols)` with seeded weights, as element `let`s.
fn weights(name: &str, rows: usize, cols: usize, stream: &mut Stream) -> String {
    let mut source = format!("let {name} = initTensor({rows}, {cols}) in ");
    for i in 0..rows {
        for j in 0..cols {
            write!(source, "let {name}[{i}, {j}] = {:?} in ", stream.next()).unwrap();
        }
    }
    source
}

/// Programs whose operations do not follow one chain: a bias or relu on an older product
/// after a newer one, a register read before its element is overwritten and used after,
/// several `ArgMax` Ints per row combined and widened. Each row of a batch (groups of 16 and
/// more lanes) must get what the reference gives that row alone.
#[test]
fn interleaved_layers_give_each_row_the_reference_result() {
    let mut stream = Stream(7);
    let prelude = weights("A", 3, 4, &mut stream) + &weights("B", 3, 4, &mut stream) + &weights("C", 2, 3, &mut stream);
    let bodies = [
        // The bias goes to `y`, the older product, right after `z` was computed.
        "let y = linear(A, x) in let z = linear(B, x) in let y[1] = y[1] + 0.75 in y",
        // Read `z[0]`, write `y[0]` with it: not a bias of either buffer.
        "let y = linear(A, x) in let z = linear(B, x) in let y[0] = z[0] + 0.5 in y",
        // Relu of `y` right after the product `z` of the same shape.
        "let y = linear(A, x) in let z = linear(B, x) in let h = reluTensor(y) in h",
        // `a` is read before `y[0]` is overwritten and used after: the snapshot is needed.
        "let y = linear(A, x) in let a = y[0] in let y[0] = a + 0.5 in let t = tanh(a) in t + y[0]",
        // Three ArgMax results per row, in Int arithmetic, then widened.
        "let y = linear(A, x) in let z = linear(B, x) in let h = reluTensor(z) in \
         let u = linear(C, h) in (ArgMax(y) * 10 + ArgMax(z)) * 10 + ArgMax(u) + 0.5",
        "let y = linear(A, x) in let z = linear(B, x) in let i = ArgMax(y) in let k = ArgMax(z) in \
         let f = i + 0.25 in let g = k * 2 + 0.5 in f * g",
        // The second ArgMax is over elements from three places (an input element, a computed
        // Float, an element of a product), not one buffer: its own Int register per row.
        "let y = linear(A, x) in let v = initTensor(3) in let v[0] = x[2] in let v[1] = x[0] * 2.0 in \
         let v[2] = y[1] in let i = ArgMax(y) in let j = ArgMax(v) in i * 10 + j + 0.5",
        // The biased value is also the result: the addition must be computed, not only fused.
        "let y = linear(A, x) in let a = y[0] + 0.75 in let y[0] = a in a",
        // Biases of two buffers in a row: each goes to its own buffer.
        "let y = linear(A, x) in let z = linear(B, x) in let y[0] = y[0] + 0.5 in \
         let z[1] = z[1] + 0.25 in y",
        // Biases after a relu: one addition over three elements, each with its own value.
        "let y = linear(A, x) in let h = reluTensor(y) in let h[0] = h[0] + 0.1 in \
         let h[1] = h[1] + 0.2 in let h[2] = h[2] + 0.3 in h",
        // The biased value is written back and read twice more, once by `tanh` (an item): three
        // uses, so not a bias.
        "let y = linear(A, x) in let a = y[0] + 0.75 in let y[0] = a in let t = tanh(a) in t + a * 2.0",
        // The biased value is also an element of the result tensor.
        "let y = linear(A, x) in let v = initTensor(2) in let a = y[0] + 0.75 in let y[0] = a in \
         let v[0] = a in v",
    ];
    let rows = rows(4, 40);
    for body in bodies {
        let source = format!("{prelude}{body}");
        let program = parse_program(&source, Profile::revised().grammar).expect("the program parses");
        let reference: Vec<Verdict> = rows.iter().map(|row| one(&program, row)).collect();
        assert!(reference.iter().filter(|v| matches!(v, Verdict::Value(_))).count() > 30, "{body}: most rows run");
        for group in [Some(16), Some(32), None] {
            let batch = run(&program, 4, &rows, ExecOptions { precision: Precision::Exact, group });
            for (k, (got, want)) in batch.into_iter().zip(&reference).enumerate() {
                let got = verdict(got);
                assert!(got.agrees_with(want), "{body}, group {group:?}, row {k}: {got} but the reference says {want}");
            }
        }
    }
}

/// The shape of an MLP's plan: one product per layer with its biases and the relu that
/// follows fused in, and nothing element by element. (The results would be the same without
/// fusion; this holds the compiler to the plan that makes networks fast.)
#[test]
fn an_mlp_compiles_to_one_fused_product_per_layer() {
    let program = parse_program(&mlp(&[6, 130, 13, 4], "OUT"), Profile::revised().grammar).expect("the MLP parses");
    let plan = compile(&program, &[Binding { name: "x".into(), shape: vec![6], data: InputData::Symbolic }]);
    let products: Vec<&Op> = plan.ops.iter().filter(|op| matches!(op, Op::MatVec { .. })).collect();
    assert_eq!(products.len(), 3, "{:#?}", plan.ops);
    assert_eq!(plan.ops.len(), 3, "only the products are left: {:#?}", plan.ops);
    for (layer, op) in products.into_iter().enumerate() {
        let Op::MatVec { bias, relu, w, .. } = op else { unreachable!() };
        let bias = bias.as_ref().unwrap_or_else(|| panic!("layer {layer} has its biases fused"));
        // `mlp` biases every row but those with `i % 5 == 3`.
        let biased: Vec<bool> = bias.iter().map(Option::is_some).collect();
        let expected: Vec<bool> = (0..w.rows()).map(|i| i % 5 != 3).collect();
        assert_eq!(biased, expected, "layer {layer}");
        assert_eq!(relu.is_some(), layer < 2, "layer {layer}: relu on the hidden layers only");
    }
}

/// A layer whose weights are a tensor literal (Ext-2) compiles to a product whose matrix is a
/// view of the literal's array: a network's weights are held once, by the program, not copied
/// again by the plan. A literal written to after it is bound is copied, with the write.
#[test]
fn a_literal_is_its_products_matrix_not_a_copy() {
    let weights: std::sync::Arc<[f64]> = (0..12).map(|k| f64::from(k) - 5.5).collect();
    let bind = [Binding { name: "x".into(), shape: vec![4], data: InputData::Symbolic }];
    let products = |source: &str| {
        let program =
            parse_program_with_elements(source, Profile::revised().grammar, vec![Elements::Floats(weights.clone())])
                .expect("the program parses");
        let plan = compile(&program, &bind);
        let ws: Vec<_> = plan
            .ops
            .iter()
            .filter_map(|op| if let Op::MatVec { w, .. } = op { Some(w.clone()) } else { None })
            .collect();
        assert_eq!(ws.len(), 1, "{:#?}", plan.ops);
        ws[0].clone()
    };
    let w = products("let W = initTensor(3, 4)[…] in let y = linear(W, x) in y");
    assert_eq!(w.elements(), &weights[..]);
    assert!(std::ptr::eq(w.elements().as_ptr(), weights.as_ptr()), "the literal's own array");
    let w = products("let W = initTensor(3, 4)[…] in let W[1, 2] = 100.0 in let y = linear(W, x) in y");
    let mut written = weights.to_vec();
    written[6] = 100.0;
    assert_eq!(w.elements(), &written[..], "the write is in the product");
    assert!(!std::ptr::eq(w.elements().as_ptr(), weights.as_ptr()));
}

/// Biases that do not follow their product (here they follow a relu) still compile to one
/// `AddBias` per run of elements, not one operation per element.
#[test]
fn biases_after_a_relu_compile_to_one_addition_per_buffer() {
    let source = "let W = initTensor(3, 2) in let W[0, 0] = 1.0 in let W[1, 1] = -1.0 in let W[2, 0] = 0.5 in \
                  let z = linear(W, x) in let h = reluTensor(z) in \
                  let h[0] = h[0] + 0.1 in let h[1] = h[1] + 0.2 in let h[2] = h[2] + 0.3 in h";
    let program = parse_program(source, Profile::revised().grammar).expect("the program parses");
    let plan = compile(&program, &[Binding { name: "x".into(), shape: vec![2], data: InputData::Symbolic }]);
    let additions: Vec<&Op> = plan.ops.iter().filter(|op| matches!(op, Op::AddBias { .. })).collect();
    assert_eq!(additions.len(), 1, "{:#?}", plan.ops);
    let Op::AddBias { at, values, .. } = additions[0] else { unreachable!() };
    assert_eq!((*at, values.as_slice()), (0, &[Some(0.1), Some(0.2), Some(0.3)][..]));

    // Far apart (more than 64 elements past the last), they are two additions, not one mostly
    // empty; and `ArgMax` of the biased vector reads it in place.
    let source = "let W = initTensor(200, 2) in let z = linear(W, x) in let h = reluTensor(z) in \
                  let h[0] = h[0] + 0.1 in let h[1] = h[1] + 0.2 in let h[100] = h[100] + 0.3 in ArgMax(h)";
    let (plan, additions) = bias_additions(source);
    assert_eq!(additions, [(0, 2), (100, 1)], "{:#?}", plan.ops);
    assert!(matches!(plan.ops.last(), Some(Op::ArgMaxBuffer { at: 0, len: 200, .. })), "{:#?}", plan.ops);

    // The gap is counted from the end of the biased run, wherever it starts: biases at 2, 3, 4
    // then at 69 (64 past element 4) are two additions; at 68, one.
    for (last, expected) in [(69, &[(2, 3), (69, 1)][..]), (68, &[(2, 67)][..])] {
        let source = format!(
            "let W = initTensor(200, 2) in let z = linear(W, x) in let h = reluTensor(z) in \
             let h[2] = h[2] + 0.1 in let h[3] = h[3] + 0.2 in let h[4] = h[4] + 0.3 in \
             let h[{last}] = h[{last}] + 0.4 in ArgMax(h)"
        );
        let (plan, additions) = bias_additions(&source);
        assert_eq!(additions, expected, "{:#?}", plan.ops);
    }
}

/// The plan of `source` over a 2-vector `x`, and where each of its `AddBias` starts and how many
/// elements it covers.
fn bias_additions(source: &str) -> (Plan, Vec<(usize, usize)>) {
    let program = parse_program(source, Profile::revised().grammar).expect("the program parses");
    let plan = compile(&program, &[Binding { name: "x".into(), shape: vec![2], data: InputData::Symbolic }]);
    let additions = plan
        .ops
        .iter()
        .filter_map(|op| if let Op::AddBias { at, values, .. } = op { Some((*at, values.len())) } else { None })
        .collect();
    (plan, additions)
}

/// Groups fill the frame budget: as many rows (a multiple of the lane group) as fit in
/// `FRAME_BUDGET` bytes, at least one lane group, so one group's data stays in cache.
#[test]
fn a_group_holds_as_many_rows_as_fit_the_frame_budget() {
    for widths in [&[2, 3][..], &[6, 130, 13, 4], &[5, 50, 50, 50, 50, 50, 50, 5], &[784, 256, 256, 10]] {
        let program = parse_program(&mlp(widths, "OUT"), Profile::revised().grammar).expect("the MLP parses");
        let input = Binding { name: "x".into(), shape: vec![widths[0]], data: InputData::Symbolic };
        let plan = compile(&program, &[input]);
        let group = ExecOptions::default().group_for(&plan);
        let row_bytes = plan.layout.len * size_of::<f64>();
        assert!(group >= LANE_GROUP && group % LANE_GROUP == 0, "{widths:?}: {group}");
        assert!(group == LANE_GROUP || group * row_bytes <= FRAME_BUDGET, "{widths:?}: {group} rows overflow");
        let more = group + LANE_GROUP;
        assert!(more * row_bytes > FRAME_BUDGET || group >= 256, "{widths:?}: {group} rows, {more} would fit");
    }
}
