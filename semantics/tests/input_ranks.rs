//! `--input` binds tensors of rank 1 to 8 under the revised rules (a convolution reads a rank-3
//! image), every element where the row-major order puts it; the published rules, whose rank-3
//! tensors are broken (docs/semantics.md §3(b)), bind vectors and matrices only.

use knn_semantics::engine::Outcome;
use knn_semantics::inputs::{InputError, MAX_INPUT_RANK, TensorInput, initial_config};
use knn_semantics::syntax::parse_program;
use knn_semantics::term::term_of_program;
use knn_semantics::{Profile, StepOptions, run};

fn read(profile: &'static Profile, input: &TensorInput, index: &[usize]) -> f64 {
    let index: Vec<String> = index.iter().map(usize::to_string).collect();
    let source = format!("x[{}]", index.join(", "));
    let program = term_of_program(&parse_program(&source, profile.grammar).unwrap());
    let config = initial_config(profile, program, std::slice::from_ref(input)).unwrap();
    match run(profile, config, StepOptions::default()).outcome {
        Outcome::Value(v) => v.as_float().unwrap_or_else(|| panic!("{source}: {v:?}")),
        other => panic!("{source}: {other:?}"),
    }
}

#[test]
fn every_element_of_a_rank_3_and_a_rank_4_input_is_where_row_major_order_puts_it() {
    let profile = Profile::revised();
    for shape in [vec![2, 3, 2], vec![2, 1, 2, 3]] {
        let len: usize = shape.iter().product();
        let input = TensorInput { name: "x".into(), shape: shape.clone(), data: (0..len).map(|k| k as f64).collect() };
        for flat in 0..len {
            let mut index = vec![0; shape.len()];
            let mut rest = flat;
            for (slot, &d) in index.iter_mut().zip(&shape).rev() {
                *slot = rest % d;
                rest /= d;
            }
            assert_eq!(read(profile, &input, &index), flat as f64, "{shape:?} {index:?}");
        }
    }
}

#[test]
fn ranks_beyond_the_limit_and_rank_3_under_the_published_rules_are_refused() {
    let program = || term_of_program(&parse_program("1.0", Profile::revised().grammar).unwrap());
    let deep = TensorInput { name: "x".into(), shape: vec![1; MAX_INPUT_RANK + 1], data: vec![0.0] };
    let e = initial_config(Profile::revised(), program(), &[deep]).unwrap_err();
    assert_eq!(e, InputError::Rank { name: "x".into(), rank: 9, max: 8 });
    assert!(e.to_string().contains("has rank 9; inputs have rank 1 to 8"), "{e}");
    let image = TensorInput { name: "x".into(), shape: vec![1, 2, 2], data: vec![0.0; 4] };
    let e = initial_config(Profile::published(), program(), std::slice::from_ref(&image)).unwrap_err();
    assert_eq!(e, InputError::Rank { name: "x".into(), rank: 3, max: 2 });
    assert!(e.to_string().contains("under the published rules inputs must be vectors or matrices"), "{e}");
    assert!(initial_config(Profile::revised(), program(), &[image]).is_ok());
}
