//! Small hand-written properties in the style of the ACAS Xu files, with the expected structure
//! written by hand from their text. Which side of its nearest binary64 value each decimal lies
//! on was read off Python's `decimal.Decimal(float)`.

use super::*;
use crate::property::{Atom, Case, Conjunction, Constant};

const DECLARE_5_5: &str = "(declare-const X_0 Real)\n(declare-const X_1 Real)\n(declare-const X_2 Real)\n\
    (declare-const X_3 Real)\n(declare-const X_4 Real)\n(declare-const Y_0 Real)\n(declare-const Y_1 Real)\n\
    (declare-const Y_2 Real)\n(declare-const Y_3 Real)\n(declare-const Y_4 Real)\n";

fn parse(source: &str) -> Property {
    parse_vnnlib(source).unwrap_or_else(|e| panic!("{}", e.render("test.vnnlib", source, false)))
}

/// The message and 1-based line and column of the error `source` gives.
fn error(source: &str) -> (String, (usize, usize)) {
    let e = parse_vnnlib(source).expect_err("the property should be refused");
    (e.message.clone(), e.line_col(source))
}

/// The constant `text` (its value is the parser's, tested in decimal_tests.rs), whose bracket
/// must be `(below, above)`.
fn bracketed(text: &str, below: f64, above: f64) -> Constant {
    let c = Constant::parse(text).unwrap();
    assert_eq!((c.below, c.above), (below, above), "{text}");
    c
}

fn exact(text: &str, value: f64) -> Constant {
    bracketed(text, value, value)
}

/// A decimal above its nearest binary64 value `nearest`.
fn above(text: &str, nearest: f64) -> Constant {
    bracketed(text, nearest, nearest.next_up())
}

/// A decimal below its nearest binary64 value `nearest`.
fn below(text: &str, nearest: f64) -> Constant {
    bracketed(text, nearest.next_down(), nearest)
}

fn coefficient(sign: f64) -> Constant {
    Constant::exact(sign)
}

fn span_of(source: &str, text: &str) -> Option<Span> {
    let start = source.find(text).expect("the text is in the source");
    Some(Span::new(start, start + text.len()))
}

#[test]
fn property_3_one_box_and_one_conjunction_of_differences() {
    let source = format!(
        "; ACAS Xu property 3\n{DECLARE_5_5}\
        (assert (<= X_0 -0.298552812))\n(assert (>= X_0 -0.303531156))\n\
        (assert (<= X_1 0.009549297))\n(assert (>= X_1 -0.009549297))\n\
        (assert (<= X_2 0.5))\n(assert (>= X_2 0.493380324))\n\
        (assert (<= X_3 0.5))\n(assert (>= X_3 0.3))\n\
        (assert (<= X_4 0.5))\n(assert (>= X_4 0.3))\n\
        ; unsafe if COC is minimal\n\
        (assert (<= Y_0 Y_1))\n(assert (<= Y_0 Y_2))\n(assert (<= Y_0 Y_3))\n(assert (<= Y_0 Y_4))\n"
    );
    let property = parse(&source);
    assert_eq!((property.inputs, property.outputs, property.cases.len()), (5, 5, 1));
    let case = &property.cases[0];
    let lower = vec![
        above("-0.303531156", -0.303531156),
        below("-0.009549297", -0.009549297),
        above("0.493380324", 0.493380324),
        above("0.3", 0.3),
        above("0.3", 0.3),
    ];
    let upper = vec![
        above("-0.298552812", -0.298552812),
        above("0.009549297", 0.009549297),
        exact("0.5", 0.5),
        exact("0.5", 0.5),
        exact("0.5", 0.5),
    ];
    assert_eq!(case.input.lower, lower);
    assert_eq!(case.input.upper, upper);
    let differences: Vec<Atom> = (1..5)
        .map(|i| Atom {
            terms: vec![(0, coefficient(1.0)), (i, coefficient(-1.0))],
            constants: vec![],
            strict: false,
            span: span_of(&source, &format!("(<= Y_0 Y_{i})")),
        })
        .collect();
    assert_eq!(case.unsafe_when, vec![Conjunction { atoms: differences }]);
}

#[test]
fn property_1_an_output_above_a_decimal() {
    let source = format!(
        "{DECLARE_5_5}(assert (<= X_0 0.700434925))\n(assert (>= X_0 -0.129289109))\n\
        (assert (and (<= X_1 0.5) (>= X_1 -0.5) (<= X_2 0.5) (>= X_2 -0.5)))\n\
        (assert (and (<= X_3 0.5) (>= X_3 -0.5) (<= X_4 0.5) (>= X_4 -0.5)))\n\
        (assert (>= Y_0 3.9911256459))"
    );
    let property = parse(&source);
    assert_eq!(property.cases.len(), 1);
    let case = &property.cases[0];
    assert_eq!(case.input.lower[0], above("-0.129289109", -0.129289109));
    assert_eq!(case.input.upper[0], below("0.700434925", 0.700434925));
    assert_eq!(case.input.lower[4], exact("-0.5", -0.5));
    // `3.9911256459 − Y_0 ≤ 0`.
    let atom = Atom {
        terms: vec![(0, coefficient(-1.0))],
        constants: vec![above("3.9911256459", 3.9911256459)],
        strict: false,
        span: span_of(&source, "(>= Y_0 3.9911256459)"),
    };
    assert_eq!(case.unsafe_when, vec![Conjunction { atoms: vec![atom] }]);
}

#[test]
fn property_6_two_boxes_each_with_four_alternatives() {
    let box_a = "(and (<= X_0 0.7) (>= X_0 -0.1) (<= X_1 0.5) (>= X_1 0.25) (<= X_2 0.5) (>= X_2 -0.5) \
        (<= X_3 0.5) (>= X_3 -0.5) (<= X_4 0.5) (>= X_4 -0.5))";
    let box_b = box_a.replace("(<= X_1 0.5) (>= X_1 0.25)", "(<= X_1 -0.25) (>= X_1 -0.5)");
    let source = format!(
        "{DECLARE_5_5}(assert (or\n    {box_a}\n    {box_b}\n))\n\
        (assert (or\n    (and (<= Y_1 Y_0))\n    (and (<= Y_2 Y_0))\n    (and (<= Y_3 Y_0))\n    (and (<= Y_4 Y_0))\n))\n"
    );
    let property = parse(&source);
    assert_eq!(property.cases.len(), 2);
    assert_eq!(property.cases[0].input.lower[1], exact("0.25", 0.25));
    assert_eq!(property.cases[1].input.lower[1], exact("-0.5", -0.5));
    assert_eq!(property.cases[1].input.upper[1], exact("-0.25", -0.25));
    for case in &property.cases {
        let expected: Vec<Conjunction> = (1..5)
            .map(|i| Conjunction {
                atoms: vec![Atom {
                    terms: vec![(i, coefficient(1.0)), (0, coefficient(-1.0))],
                    constants: vec![],
                    strict: false,
                    span: span_of(&source, &format!("(<= Y_{i} Y_0)")),
                }],
            })
            .collect();
        assert_eq!(case.unsafe_when, expected);
    }
}

const ONE_INPUT: &str = "(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(declare-const Y_1 Real)\n";

#[test]
fn the_normal_form_is_the_product_of_the_asserts_in_order() {
    let source = format!(
        "{ONE_INPUT}(assert (<= -1 X_0 1))\n\
        (assert (or (and (<= Y_0 1) (<= Y_1 2)) (<= Y_0 3)))\n(assert (or (>= Y_1 4) (< Y_0 Y_1)))"
    );
    let property = parse(&source);
    assert_eq!(property.cases.len(), 1);
    let case = &property.cases[0];
    assert_eq!((&case.input.lower, &case.input.upper), (&vec![exact("-1", -1.0)], &vec![exact("1", 1.0)]));
    let spans: Vec<Vec<Option<Span>>> =
        case.unsafe_when.iter().map(|c| c.atoms.iter().map(|a| a.span).collect()).collect();
    let [a, b, c, d, e] =
        ["(<= Y_0 1)", "(<= Y_1 2)", "(<= Y_0 3)", "(>= Y_1 4)", "(< Y_0 Y_1)"].map(|t| span_of(&source, t));
    assert_eq!(spans, vec![vec![a, b, d], vec![a, b, e], vec![c, d], vec![c, e]]);
    // `Y_0 − 1 ≤ 0` and the strict `Y_0 − Y_1 < 0`.
    let first = &case.unsafe_when[0].atoms[0];
    assert_eq!((&first.terms, &first.constants), (&vec![(0, coefficient(1.0))], &vec![exact("-1", -1.0)]));
    let strict = &case.unsafe_when[1].atoms[2];
    assert!(strict.strict);
    assert_eq!(strict.terms, vec![(0, coefficient(1.0)), (1, coefficient(-1.0))]);
}

#[test]
fn strict_comparisons_stay_strict() {
    let source = format!("{ONE_INPUT}(assert (and (<= X_0 1) (>= X_0 0)))\n(assert (and (> Y_0 Y_1) (>= Y_1 2)))");
    let atoms = &parse(&source).cases[0].unsafe_when[0].atoms;
    let written: Vec<(bool, Vec<(usize, Constant)>)> = atoms.iter().map(|a| (a.strict, a.terms.clone())).collect();
    // `(> Y_0 Y_1)` is `Y_1 − Y_0 < 0`; `(>= Y_1 2)` is `2 − Y_1 ≤ 0`.
    let difference = vec![(1, coefficient(1.0)), (0, coefficient(-1.0))];
    assert_eq!(written, vec![(true, difference), (false, vec![(1, coefficient(-1.0))])]);
}

#[test]
fn input_bounds_in_every_written_form_and_the_tightest_wins() {
    let source = format!(
        "{ONE_INPUT}(declare-const X_1 Real)\n(assert (<= X_0 0.5))\n(assert (>= 0.25 X_0))\n\
        (assert (<= (- X_0) 3))\n(assert (<= -1 X_0))\n(assert (>= X_1 1e-3))\n(assert (<= X_1 0.6))\n\
        (assert (<= X_1 0.6000000000000000000001))"
    );
    let property = parse(&source);
    let case = &property.cases[0];
    assert_eq!(case.input.lower, vec![exact("-1", -1.0), below("1e-3", 0.001)]);
    // 0.6 and 0.6000000000000000000001 lie in the same gap: the first written is kept.
    assert_eq!(case.input.upper, vec![exact("0.25", 0.25), above("0.6", 0.6)]);
    // No output constraint: every input of the box is a counterexample.
    assert_eq!(case.unsafe_when, vec![Conjunction::default()]);
}

#[test]
fn linear_terms_keep_the_written_coefficients() {
    let source = format!(
        "{ONE_INPUT}(declare-const Y_2 Real)\n(assert (and (<= X_0 1) (>= X_0 0)))\n\
        (assert (<= (+ (* 2 Y_0) (* Y_1 (- 0.5)) (- Y_2 Y_0 1.5)) 0))"
    );
    let atom = &parse(&source).cases[0].unsafe_when[0].atoms[0];
    let expected_terms =
        vec![(0, exact("2", 2.0)), (1, exact("-0.5", -0.5)), (2, coefficient(1.0)), (0, coefficient(-1.0))];
    assert_eq!(atom.terms, expected_terms);
    // The right side `0` moves over as `-0`.
    assert_eq!(atom.constants, vec![exact("-1.5", -1.5), exact("-0", -0.0)]);
}

#[test]
fn boxes_alike_merge_and_boxes_apart_stay_in_order() {
    let source = format!(
        "{ONE_INPUT}(assert (or (and (<= X_0 1) (>= X_0 0) (<= Y_0 0)) (and (<= X_0 2) (>= X_0 1)) \
        (and (>= X_0 0) (<= X_0 1.0) (<= Y_1 0))))"
    );
    let property = parse(&source);
    let boxes: Vec<(f64, f64)> =
        property.cases.iter().map(|c: &Case| (c.input.lower[0].below, c.input.upper[0].above)).collect();
    assert_eq!(boxes, vec![(0.0, 1.0), (1.0, 2.0)]);
    let sizes: Vec<Vec<usize>> =
        property.cases.iter().map(|c| c.unsafe_when.iter().map(|k| k.atoms.len()).collect()).collect();
    assert_eq!(sizes, vec![vec![1, 1], vec![0]]);
}

#[test]
fn errors_name_the_place() {
    let declared = "(declare-const X_0 Real)\n(declare-const Y_0 Real)\n";
    let cases: [(&str, &str, (usize, usize)); 9] = [
        ("(assert (<= X_0 Y_3))", "`Y_3` is not declared", (3, 17)),
        ("(assert (<= (* Y_0 Y_0) 1))", "nonlinear term: a product of variables", (3, 13)),
        ("(assert (<= X_0 Y_0))", "unsupported constraint: it mixes inputs and outputs", (3, 9)),
        ("(assert (<= X_0 1)", "this parenthesis is never closed", (3, 1)),
        ("(assert (<= X_0 1)))", "unexpected `)`", (3, 20)),
        ("(assert\n  (=< X_0 1))", "unknown operator `=<`", (4, 4)),
        ("(assert (= Y_0 1))", "unsupported operator `=`", (3, 10)),
        ("(assert (<= X_0 0.5.1))", "`0.5.1` is not a decimal number", (3, 17)),
        (
            "(assert (<= Y_0 -1e-100001))",
            "`-1e-100001` is out of range: constants are kept exactly, below 1e100000 in magnitude and with at \
             most 100000 decimal places",
            (3, 17),
        ),
    ];
    for (text, message, place) in cases {
        assert_eq!(error(&format!("{declared}{text}")), (message.to_string(), place), "{text}");
    }
}

#[test]
fn more_refusals() {
    let declared = "(declare-const X_0 Real)\n(declare-const Y_0 Real)\n";
    let cases: [(&str, &str, (usize, usize)); 8] = [
        ("(assert (< X_0 1))", "unsupported strict bound on an input", (3, 9)),
        ("(assert (<= (+ X_0 X_0) 1))", "only bounds on single inputs are supported", (3, 9)),
        ("(assert (<= (* 2 0.5 Y_0) 1))", "unsupported product: only one constant factor per product", (3, 13)),
        ("(assert (<= (* 2 (* 3 Y_0)) 1))", "unsupported product: only one constant factor per product", (3, 13)),
        ("(assert (<= (* 2 3) Y_0))", "unsupported product: a product of constants; write it as one number", (3, 13)),
        ("(declare-const X_0 Real)", "`X_0` is declared twice", (3, 16)),
        ("(declare-const Z Real)", "`Z` is neither an input X_i nor an output Y_i", (3, 16)),
        ("(declare-fun f () Real)", "unsupported command `declare-fun`", (3, 2)),
    ];
    for (text, message, place) in cases {
        assert_eq!(error(&format!("{declared}{text}")), (message.to_string(), place), "{text}");
    }
}

#[test]
fn odd_names_and_deep_nesting_are_refused() {
    let declared = "(declare-const X_0 Real)\n(declare-const Y_0 Real)\n";
    let leading_zero = format!("{declared}(declare-const X_01 Real)");
    assert_eq!(error(&leading_zero), ("`X_01` is neither an input X_i nor an output Y_i".to_string(), (3, 16)));
    let sort = format!("{declared}(declare-const X_1 Int)");
    assert_eq!(error(&sort), ("`Int` variables are not supported".to_string(), (3, 20)));
    // The 201st open parenthesis: `(assert` at column 1, `(<=` at 9, then `(- ` from 13 on.
    let deep = format!("{declared}(assert (<= {}Y_0{} 0))", "(- ".repeat(300), ")".repeat(300));
    assert_eq!(error(&deep), ("lists are nested more than 200 deep".to_string(), (3, 13 + 3 * 198)));
}

#[test]
fn declarations_must_be_numbered_without_gaps() {
    let source = "(declare-const X_0 Real)\n(declare-const X_2 Real)\n(declare-const Y_0 Real)\n";
    assert_eq!(error(source), ("`X_1` is not declared, but `X_2` is".to_string(), (2, 16)));
    let source = "(declare-const X_0 Real)\n(declare-const Y_1 Real)\n";
    assert_eq!(error(source), ("`Y_0` is not declared, but `Y_1` is".to_string(), (2, 16)));
}

#[test]
fn a_missing_bound_is_shown_where_the_input_is_bounded_or_declared() {
    let declare = "(declare-const X_0 Real)\n(declare-const X_1 Real)\n(declare-const X_2 Real)\n\
        (declare-const Y_0 Real)\n";
    let bounds = "(assert (and (<= X_0 1) (>= X_0 0) (<= X_1 1) (>= X_1 0)))\n";
    let only_upper = format!("{declare}{bounds}; X_2\n  (assert (<= X_2 1))\n(assert (<= Y_0 0))");
    assert_eq!(error(&only_upper), ("`X_2` has no lower bound".to_string(), (7, 3)));
    let unbounded = format!("{declare}{bounds}(assert (<= Y_0 0))");
    assert_eq!(error(&unbounded), ("`X_2` has no lower bound".to_string(), (3, 16)));
    // One alternative bounds X_2 on one side only.
    let alternatives = format!("{declare}{bounds}(assert (or (<= 0 X_2 1) (<= X_2 2)))");
    assert_eq!(error(&alternatives), ("`X_2` has no lower bound".to_string(), (6, 1)));
}

#[test]
fn a_normal_form_past_the_cap_is_refused_at_the_assert_that_passes_it() {
    // 2^16 = 65 536 terms fit under the cap, 2^17 = 131 072 do not.
    let mut source = String::from("(declare-const X_0 Real)\n(declare-const Y_0 Real)\n");
    for _ in 0..17 {
        source.push_str("(assert (or (<= Y_0 0) (>= Y_0 1)))\n");
    }
    assert_eq!(error(&source), ("property too large for disjunctive normal form".to_string(), (19, 1)));
}

#[test]
fn comments_layout_and_harmless_commands_are_ignored() {
    let source = "; header\n(set-logic QF_LRA) ; trailing\n(declare-const X_0 Real)(declare-const Y_0 Real)\n\
        (assert\t(<= X_0 1));c\n(assert (>= X_0 0))\r\n(check-sat)\n(exit)";
    let property = parse(source);
    assert_eq!((property.inputs, property.outputs, property.cases.len()), (1, 1, 1));
}

#[test]
fn a_rendered_error_shows_file_line_column_and_the_line() {
    let source = "(declare-const X_0 Real)\n(assert (<= X_0 Y_3))\n";
    let text = parse_vnnlib(source).unwrap_err().render("prop.vnnlib", source, false);
    assert!(text.contains("prop.vnnlib:2:17: `Y_3` is not declared"), "{text}");
    assert!(text.contains("(assert (<= X_0 Y_3))"), "{text}");
    assert!(text.contains("declare it first with (declare-const Y_3 Real)"), "{text}");
}

#[test]
fn an_input_must_be_declared_before_it_is_used() {
    // As in SMT-LIB: a use before the declaration, or of an input never declared, is refused
    // (an input outside the declared ones has no place in the box).
    let early = "(declare-const Y_0 Real)\n(assert (<= X_0 1))\n(declare-const X_0 Real)\n";
    assert_eq!(error(early), ("`X_0` is not declared".to_string(), (2, 13)));
    let never = "(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(assert (<= 0 X_1 1))\n";
    let e = parse_vnnlib(never).unwrap_err();
    assert_eq!((e.message.as_str(), e.line_col(never)), ("`X_1` is not declared", (3, 15)));
    assert_eq!(e.hint.as_deref(), Some("declare it first with (declare-const X_1 Real)"));
    // `knn verify` prints the error with `{}`: the message.
    assert_eq!(e.to_string(), "`X_1` is not declared");
}

#[test]
fn an_operator_without_operands_is_refused() {
    // `(+)` is no zero and `(-)` no negation of nothing: both are refused at their place, as is
    // `(*)`.
    let declared = "(declare-const X_0 Real)\n(declare-const Y_0 Real)\n";
    for op in ["+", "-", "*"] {
        let source = format!("{declared}(assert (<= 0 X_0 1))\n(assert (<= ({op}) Y_0))");
        assert_eq!(error(&source), (format!("`{op}` needs an operand"), (4, 13)), "{op}");
    }
}

#[test]
fn an_equality_is_refused_with_how_to_write_it() {
    let source = "(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(assert (= Y_0 1))";
    let e = parse_vnnlib(source).unwrap_err();
    assert_eq!(e.message, "unsupported operator `=`");
    assert_eq!(e.hint.as_deref(), Some("write an equality as (and (<= a b) (>= a b))"));
}

#[test]
fn a_scaled_input_is_no_bound() {
    // `2·X_0 ≤ 1` bounds X_0 by 0.5, not by 1: only ±X_i is read as a bound, anything else is
    // refused rather than taken for a box it is not.
    let declared = "(declare-const X_0 Real)\n(declare-const Y_0 Real)\n";
    for text in ["(assert (<= (* 2 X_0) 1))", "(assert (>= (* -0.5 X_0) -1))", "(assert (<= (* 0.1 X_0) 1))"] {
        assert_eq!(
            error(&format!("{declared}{text}")),
            ("only bounds on single inputs are supported".to_string(), (3, 9)),
            "{text}"
        );
    }
}

#[test]
fn a_constraint_where_a_term_is_expected_is_named_as_such() {
    let source = "(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(assert (<= (and (<= X_0 1)) Y_0))";
    assert_eq!(error(source), ("a constraint `and` where a term is expected".to_string(), (3, 14)));
}

#[test]
fn reading_errors_mark_one_character() {
    // The span is what the rendered report underlines: the character, or the parenthesis.
    let quoted = "(declare-const X_0 Real)\n(assert (<= X_0 \"1\"))";
    let e = parse_vnnlib(quoted).unwrap_err();
    let at = quoted.find('"').unwrap();
    assert_eq!((e.message.as_str(), e.span), ("unexpected `\"`", Span::new(at, at + 1)));
    let unclosed = "(declare-const X_0 Real)\n  (assert (<= X_0 1)";
    let e = parse_vnnlib(unclosed).unwrap_err();
    let at = unclosed.find("(assert").unwrap();
    assert_eq!((e.message.as_str(), e.span), ("this parenthesis is never closed", Span::new(at, at + 1)));
}
