//! The generator reaches every rule of the revised profile: run on the reference with
//! coverage, a few thousand generated programs fire each revised rule at least once.

use knn_differential::generate::{self, Shape};
use knn_semantics::engine::Coverage;
use knn_semantics::inputs::initial_config;
use knn_semantics::syntax::{Grammar, parse_program};
use knn_semantics::term::term_of_program;
use knn_semantics::{Profile, StepOptions, run};

/// Revised rules no source program can fire: `alloc` of a negative dimension (dimensions are
/// Int literals, and `-1` is a Float in K).
const UNREACHABLE_FROM_SOURCE: [&str; 1] = ["rev-alloc-negative"];

#[test]
fn generated_programs_fire_every_revised_rule() {
    let profile = Profile::revised();
    let mut total = Coverage::new(profile);
    for seed in 0..3000 {
        let program = generate::program(seed, Shape::default());
        let exp = parse_program(&program.source(), Grammar::Relaxed).expect("generated programs parse");
        let config = initial_config(profile, term_of_program(&exp), &program.first_inputs()).expect("inputs bind");
        let ran = run(profile, config, StepOptions { max_steps: Some(1_000_000), trace: false });
        total.merge(&ran.coverage);
    }
    let never: Vec<&str> =
        total.never_fired().map(|r| r.id).filter(|id| !UNREACHABLE_FROM_SOURCE.contains(id)).collect();
    assert!(never.is_empty(), "no generated program fires {never:?}");
}

/// The staged engine's fused operations are reached too: in the plans of a few thousand
/// generated programs (their input symbolic), each kind appears, so that the differential
/// properties hold the fusions to the reference and not only the element-by-element path.
#[test]
fn generated_programs_reach_every_fused_operation() {
    use knn_engine::bigstep::ops::{Activation, CombineOperand, ElementStep, Item, Op, ReduceKind};
    use knn_engine::bigstep::{Binding, InputData, compile};
    let mut seen = std::collections::BTreeMap::<&str, usize>::new();
    for seed in 0..3000 {
        for shape in [Shape::default(), Shape::batched()] {
            let program = generate::program(seed, shape);
            let Some(input) = &program.input else { continue };
            let exp = parse_program(&program.source(), Grammar::Relaxed).expect("generated programs parse");
            let binding = Binding { name: input.name.clone(), shape: input.shape.clone(), data: InputData::Symbolic };
            for op in compile(&exp, &[binding]).ops {
                // Ext-14: a batch normalisation fused, its steps those of ONNX's formula.
                if let Op::Elementwise { steps, .. } = &op
                    && steps.iter().any(|s| {
                        use ElementStep::{Add, Div, Mul, Sub};
                        matches!(s[..], [Sub(_), Div(_), Mul(_), Add(_)])
                    })
                {
                    *seen.entry("Elementwise(batchNorm)").or_default() += 1;
                }
                let kind = match op {
                    Op::MatVec { .. } => "MatVec",
                    Op::AddBias { .. } => "AddBias",
                    Op::Elementwise { .. } => "Elementwise",
                    // Each function one `Activate` computes: Ext-9's exp and log included.
                    Op::Activate { activation, .. } => match activation {
                        Activation::Relu => "Activate(relu)",
                        Activation::Tanh => "Activate(tanh)",
                        Activation::Sigmoid => "Activate(sigmoid)",
                        Activation::Exp => "Activate(exp)",
                        Activation::Log => "Activate(log)",
                    },
                    Op::Conv2d { .. } => "Conv2d",
                    Op::Pool2d { .. } => "Pool2d",
                    Op::Copy { .. } => "Copy",
                    Op::Permute { .. } => "Permute",
                    Op::Softmax { .. } => "Softmax",
                    Op::Reduce { kind: ReduceKind::Sum, .. } => "Reduce(sum)",
                    Op::Reduce { kind: ReduceKind::Mean, .. } => "Reduce(mean)",
                    Op::Reduce { kind: ReduceKind::Max, .. } => "Reduce(max)",
                    Op::Reduce { kind: ReduceKind::Min, .. } => "Reduce(min)",
                    Op::Gather { .. } => "Gather",
                    // Each way a Combine reads an operand: a run, a broadcast gather, constants.
                    Op::Combine { a, b, .. } => match (a, b) {
                        (CombineOperand::Constants(_), _) | (_, CombineOperand::Constants(_)) => "Combine(constants)",
                        (CombineOperand::Gather { .. }, _) | (_, CombineOperand::Gather { .. }) => "Combine(gather)",
                        _ => "Combine(run)",
                    },
                    Op::Pad { .. } => "Pad",
                    // `x·W` on the tensor core's kernels, and the loop of the other cases.
                    Op::MatMul { geometry, .. } if geometry.by_rows.is_some() => "MatMul(rows)",
                    Op::MatMul { .. } => "MatMul",
                    // Ext-14: a variance known only when the plan runs (its root an `Item`).
                    Op::Item { item: Item::Sqrt, .. } => "Item(sqrt)",
                    _ => continue,
                };
                *seen.entry(kind).or_default() += 1;
            }
        }
    }
    let kinds = [
        "MatVec",
        "AddBias",
        "Elementwise",
        "Activate(relu)",
        "Activate(tanh)",
        "Activate(sigmoid)",
        "Activate(exp)",
        "Activate(log)",
        "Conv2d",
        "Pool2d",
        "Copy",
        "Permute",
        "Softmax",
        "Reduce(sum)",
        "Reduce(mean)",
        "Gather",
        "Pad",
        "Reduce(max)",
        "Reduce(min)",
    ];
    let combines = ["Combine(run)", "Combine(gather)", "Combine(constants)"];
    for kind in
        kinds.into_iter().chain(combines).chain(["MatMul", "Elementwise(batchNorm)", "Item(sqrt)", "MatMul(rows)"])
    {
        assert!(seen.get(kind).copied().unwrap_or(0) > 0, "no generated plan holds a {kind}: {seen:?}");
    }
}
