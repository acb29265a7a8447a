//! Ext-2's promise: `let X = initTensor(Is)[Vs] in E` is exactly the element `let`s it
//! replaces. Both programs run to the end under the revised rules and their final configurations
//! print the same, cell for cell; the literal takes one step where the element `let`s take
//! dozens. Plus what the grammar accepts and refuses.

mod common;

use std::fmt::Write;

use common::*;
use knn_semantics::config::config_to_string;
use knn_semantics::syntax::{Grammar, parse_program, to_source};
use knn_semantics::{Profile, Run, StepOptions, run};

/// The elements of the tests: Floats of every kind and Ints, in a fixed order.
const VALUES: &[&str] =
    &["0.5", "-1.0", "2", "NaN", "-0.0", "Infinity", "-Infinity", "5e-324", "1.7976931348623157e308", "7"];

fn element(k: usize) -> &'static str {
    VALUES[k % VALUES.len()]
}

/// Every index of `dims` in row-major order.
fn indices(dims: &[usize]) -> Vec<Vec<usize>> {
    let mut all = vec![vec![]];
    for &d in dims {
        all = all.into_iter().flat_map(|prefix| (0..d).map(move |i| [prefix.clone(), vec![i]].concat())).collect();
    }
    all
}

fn join(items: impl IntoIterator<Item = String>) -> String {
    items.into_iter().collect::<Vec<_>>().join(", ")
}

/// `(literal program, element-let program)`, both ending in `body`.
fn programs(dims: &[usize], body: &str) -> (String, String) {
    let shape = join(dims.iter().map(usize::to_string));
    let all = indices(dims);
    let literal = format!(
        "let a = initTensor(2) in let t = initTensor({shape})[{}] in {body}",
        join((0..all.len()).map(|k| element(k).to_string()))
    );
    let mut lets = format!("let a = initTensor(2) in let t = initTensor({shape}) in ");
    for (k, index) in all.iter().enumerate() {
        write!(lets, "let t[{}] = {} in ", join(index.iter().map(usize::to_string)), element(k)).unwrap();
    }
    lets.push_str(body);
    (literal, lets)
}

fn revised_traced(source: &str) -> Run {
    let program = parse_program(source, Grammar::Relaxed).unwrap_or_else(|e| panic!("{source}\n{e}"));
    let config = knn_semantics::Config::initial(knn_semantics::term::term_of_program(&program));
    run(Profile::revised(), config, StepOptions { max_steps: Some(1_000_000), trace: true })
}

#[test]
fn a_literal_ends_in_the_configuration_of_its_element_lets() {
    let shapes: &[&[usize]] = &[&[1], &[3], &[10], &[2, 3], &[3, 2], &[2, 2, 2], &[1, 3, 2, 2], &[0], &[2, 0], &[0, 3]];
    for dims in shapes {
        // The tensor itself, and a body that reads its last element when it has one.
        let mut bodies = vec!["t".to_string()];
        if let Some(last) = indices(dims).last().filter(|i| !i.is_empty() && dims.iter().all(|&d| d > 0)) {
            bodies.push(format!("t[{}]", join(last.iter().map(usize::to_string))));
        }
        for body in bodies {
            let (literal, lets) = programs(dims, &body);
            let (by_literal, by_lets) = (revised_traced(&literal), revised_traced(&lets));
            assert_eq!(
                config_to_string(&by_literal.config),
                config_to_string(&by_lets.config),
                "{dims:?}, body {body}:\n{literal}\n{lets}"
            );
            assert_eq!(format!("{:?}", by_literal.outcome), format!("{:?}", by_lets.outcome));
            let literal_steps = rule_ids(&by_literal).iter().filter(|&&id| id == "ext-let-tensor-literal").count();
            assert_eq!(literal_steps, 1, "one step binds the whole literal");
            let elements: usize = dims.iter().product();
            assert!(
                by_literal.trace.len() + elements <= by_lets.trace.len(),
                "{dims:?}: {} steps against {}",
                by_literal.trace.len(),
                by_lets.trace.len()
            );
        }
    }
}

#[test]
fn a_literal_is_scoped_like_every_binding() {
    // `t` is bound in the body only, and shadows an outer `t` there (Rev-12).
    let source = "let t = initTensor(1)[4.0] in (let t = initTensor(2)[1.0, 2.0] in t[1]) + t[0]";
    let r = run_with(Profile::revised(), source);
    assert_eq!(value_text(&r), "0.60000000000000000e1");
    assert!(cell_lines(&r.config, "env").is_empty(), "{:?}", cell_lines(&r.config, "env"));
}

fn cell_lines(config: &knn_semantics::Config, name: &str) -> Vec<String> {
    cell(config, name).into_iter().filter(|l| l != ".Map").collect()
}

#[test]
fn a_literal_feeds_linear_and_the_activations() {
    let source = "let W = initTensor(2, 3)[1.0, 0.0, -1.0, 0.5, 0.5, 0.5] in \
                  let x = initTensor(3)[2.0, 4.0, 8.0] in \
                  let y = linear(W, x) in let r = reluTensor(y) in r[0] + r[1]";
    // y = [2 - 8, 1 + 2 + 4] = [-6, 7]; relu: [0, 7].
    assert_eq!(value_text(&run_with(Profile::revised(), source)), "0.70000000000000000e1");
}

#[test]
fn the_k_grammar_has_no_tensor_literal() {
    let source = "let t = initTensor(2)[1.0, 2.0] in t";
    let error = parse_program(source, Grammar::K).unwrap_err();
    assert!(error.to_string().contains("expected `in`"), "{error}");
    assert!(parse_program(source, Grammar::Relaxed).is_ok());
}

#[test]
fn the_count_is_checked_by_the_parser() {
    for (source, message) in [
        ("let t = initTensor(2, 2)[1.0, 2.0, 3.0] in t", "`initTensor(2, 2)` has 4 elements; the literal lists 3"),
        ("let t = initTensor(2)[1.0, 2.0, 3.0] in t", "`initTensor(2)` has 2 elements; the literal lists 3"),
        ("let t = initTensor(0)[1.0] in t", "`initTensor(0)` has 0 elements; the literal lists 1"),
        ("let t = initTensor(1)[x] in t", "unexpected identifier `x`"),
        ("let t = initTensor(2)[1.0 2.0] in t", "unexpected float `2.0`"),
        ("let t = initTensor(2)[1.0, -x] in t", "unexpected"),
        ("let t = initTensor(1)[1.0 in t", "unexpected"),
    ] {
        let error = parse_program(source, Grammar::Relaxed).unwrap_err();
        assert!(error.to_string().contains(message), "{source}: {error}");
    }
    assert!(parse_program("let t = initTensor(0)[] in t", Grammar::Relaxed).is_ok());
    assert!(parse_program("let t = initTensor(2, 0)[] in t", Grammar::Relaxed).is_ok());
}

#[test]
fn literals_print_back_to_themselves() {
    let (literal, _) = programs(&[2, 5], "t[1, 4]");
    let program = parse_program(&literal, Grammar::Relaxed).unwrap();
    let printed = to_source(&program);
    assert_eq!(printed, literal);
    assert!(parse_program(&printed, Grammar::Relaxed).unwrap() == program);
    // Bit for bit: -0.0 and the smallest subnormal survive the round trip.
    assert!(printed.contains("-0.0, Infinity, -Infinity, 5e-324, 1.7976931348623157e308, 7"), "{printed}");
}

#[test]
fn held_elements_fill_the_ellipses_in_order_and_are_checked() {
    use knn_semantics::syntax::{Elements, parse_program_with_elements};
    let text = "let a = initTensor(2)[…] in let b = initTensor(1, 3)[…] in b[0, 2] + a[1]";
    let held = || vec![Elements::floats(vec![1.0, 2.0]), Elements::floats(vec![3.0, 4.0, 5.0])];
    let program = parse_program_with_elements(text, Grammar::Relaxed, held()).unwrap();
    let written = parse_program(
        "let a = initTensor(2)[1.0, 2.0] in let b = initTensor(1, 3)[3.0, 4.0, 5.0] in b[0, 2] + a[1]",
        Grammar::Relaxed,
    )
    .unwrap();
    assert!(program == written);
    // What a user who writes `…` is told, and what a caller that gives the wrong data is told.
    for (elements, message) in [
        (vec![], "`…` stands for elements held beside the text, and none are"),
        (vec![Elements::floats(vec![1.0])], "`initTensor(2)` is given 1 elements"),
        ([held(), vec![Elements::floats(vec![0.0])]].concat(), "3 tensor literals are given for 2 `[…]` in the text"),
    ] {
        let error = parse_program_with_elements(text, Grammar::Relaxed, elements).unwrap_err();
        assert!(error.to_string().contains(message), "{error}");
    }
}
