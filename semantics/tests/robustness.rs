//! Programs 100,000 levels deep parse, run, print and drop without deep recursion: every test
//! runs on a thread with a 512 KiB stack, far too small for recursion on program depth.

mod common;

use std::fmt::Write;

use common::*;
use knn_semantics::Profile;
use knn_semantics::config::config_to_string;
use knn_semantics::engine::Outcome;
use knn_semantics::syntax::{Grammar, parse_program, to_source};
use knn_semantics::term::term_of_program;

const DEPTH: usize = 100_000;

fn on_small_stack<F: FnOnce() + Send + 'static>(f: F) {
    std::thread::Builder::new().stack_size(512 * 1024).spawn(f).unwrap().join().unwrap();
}

fn float_value(outcome: &Outcome) -> f64 {
    match outcome {
        Outcome::Value(v) => v.as_float().unwrap_or_else(|| panic!("not a Float: {v}")),
        other => panic!("expected a value, got {other:?}"),
    }
}

#[test]
fn hundred_thousand_element_writes() {
    on_small_stack(|| {
        let mut source = format!("let t = initTensor({DEPTH}) in ");
        for i in 0..DEPTH {
            write!(source, "let t[{i}] = {}.5 in ", i % 10).unwrap();
        }
        source.push_str("t[99999]");
        let program = parse_program(&source, Grammar::K).unwrap();
        assert_eq!(to_source(&program), source, "printing the program back");
        let r = published(&source);
        assert_eq!(float_value(&r.outcome), 9.5);
        let printed = config_to_string(&r.config);
        assert!(printed.contains("100000 |-> 0.95000000000000000e1"));
        // 100,001 store cells and 16 lines of cells and markup.
        assert_eq!(printed.lines().count(), 100_001 + 16);
        drop(program);
        drop(r);
    });
}

#[test]
fn hundred_thousand_scalar_lets() {
    on_small_stack(|| {
        let mut source = String::from("let x0 = 1.0 in ");
        for i in 1..DEPTH {
            write!(source, "let x{i} = x{} + 1.0 in ", i - 1).unwrap();
        }
        write!(source, "x{}", DEPTH - 1).unwrap();
        let r = published(&source);
        assert_eq!(float_value(&r.outcome), DEPTH as f64);
        // Revised: a store cell and a `restoreScope` item per binding, no substitution.
        let r = run_with(Profile::revised(), &source);
        assert_eq!(float_value(&r.outcome), DEPTH as f64);
        assert_eq!(r.config.store.len(), DEPTH);
    });
}

#[test]
fn hundred_thousand_nested_operands() {
    on_small_stack(|| {
        // Left-deep: ((1.0 + 1.0) + 1.0) + …, heated one freezer per level.
        let mut left = String::from("1.0");
        for _ in 0..DEPTH {
            left.push_str(" + 1.0");
        }
        assert_eq!(float_value(&published(&left).outcome), (DEPTH + 1) as f64);
        assert_eq!(float_value(&run_with(Profile::revised(), &left).outcome), (DEPTH + 1) as f64);
        // Right-deep through parentheses: 1.0 * (1.0 * (… ))
        let right = format!("{}2.0{}", "1.0 * (".repeat(DEPTH), ")".repeat(DEPTH));
        let program = parse_program(&right, Grammar::K).unwrap();
        assert_eq!(program.size(), 2 * DEPTH + 1);
        assert_eq!(float_value(&published(&right).outcome), 2.0);
    });
}

#[test]
fn a_deep_stuck_configuration_prints() {
    on_small_stack(|| {
        let mut source = String::from("x");
        for _ in 0..DEPTH {
            source.push_str(" + 1.0");
        }
        let r = published(&source);
        assert_eq!(stuck_text(&r), "x");
        assert_eq!(r.config.k.len(), DEPTH + 1, "one freezer per level");
        let printed = config_to_string(&r.config);
        assert_eq!(printed.matches("□ + 0.10000000000000000e1").count(), DEPTH);
        let term = term_of_program(&parse_program(&source, Grammar::K).unwrap());
        assert_eq!(term.size(), 2 * DEPTH + 1);
        assert_eq!(term.to_string().len(), source.len() + DEPTH * ("0.10000000000000000e1".len() - "1.0".len()));
    });
}

#[test]
fn a_deep_syntax_tree_clones_compares_and_debug_prints() {
    on_small_stack(|| {
        // A network's shape: one element `let` per weight, then a `linear` and a `relu`.
        let mut source = format!("let t = initTensor({DEPTH}) in ");
        for i in 0..DEPTH {
            write!(source, "let t[{i}] = relu({i}.5) in ").unwrap();
        }
        source.push_str("let u = reluTensor(t) in u[7]");
        let program = parse_program(&source, Grammar::Relaxed).unwrap();
        let copy = program.clone();
        assert_eq!(copy, program);
        assert_eq!(to_source(&copy), source);
        assert_eq!(copy.size(), program.size());
        let debug = format!("{copy:?}");
        assert!(debug.contains("let t[99999] = relu(99999.5) in"), "{}", &debug[..200]);
        drop(program);
        // The copy owns its nodes: the original is gone, the copy still prints.
        assert!(to_source(&copy).ends_with("let u = reluTensor(t) in u[7]"));
    });
}
