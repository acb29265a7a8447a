//! A region taken as written may hold no binary64 point (`0.2:0.2`: no binary64 number is 0.2):
//! every claim would hold on it vacuously, which says nothing of the network, so `knn verify`
//! answers `unknown: empty region`, naming the element; a property some of whose cases are
//! empty is answered on the others, with a note naming the empty ones.

mod common;

use common::{knn, stderr, stdout, temp_file};

fn mlp() -> String {
    format!("{}/../examples/mlp.knn", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn a_box_with_no_binary64_point_is_unknown_naming_the_empty_element() {
    let out = knn(&["verify", &mlp(), "--box", "x=0:1,0.2:0.2,0:1"], None);
    assert_eq!(out.status.code(), Some(11));
    let answer = stdout(&out);
    assert!(answer.starts_with("unknown: empty region: the region holds no binary64 point"), "{answer}");
    assert!(answer.contains("element 1's range"), "{answer}");
    // 0.25 is a binary64 number: the point box holds it, and it is answered.
    let out = knn(&["verify", &mlp(), "--box", "x=0:1,0.25:0.25,0:1"], None);
    assert!(stdout(&out).starts_with("holds"), "{}", stdout(&out));
    // A range between two neighbours holds none either.
    let out = knn(
        &[
            "verify",
            &mlp(),
            "--box",
            "x=0:1,0.1000000000000000055511151231257828:0.1000000000000000055511151231257829,0:1",
        ],
        None,
    );
    assert!(stdout(&out).contains("no binary64 point"), "{}", stdout(&out));
}

#[test]
fn a_property_says_which_of_its_cases_are_empty() {
    let dir = tempfile::tempdir().unwrap();
    let scores = temp_file(
        dir.path(),
        "scores.knn",
        std::fs::read_to_string(mlp()).unwrap().replace("ArgMax(o)", "o").as_bytes(),
    );
    let declare = "(declare-const X_0 Real) (declare-const X_1 Real) (declare-const X_2 Real) \
                   (declare-const Y_0 Real) (declare-const Y_1 Real)";
    let case = |x0: &str| {
        format!("(and (>= X_0 {x0}) (<= X_0 {x0}) (>= X_1 0) (<= X_1 1) (>= X_2 0) (<= X_2 1) (>= Y_1 1000))")
    };
    let text = format!("{declare} (assert (or {} {}))", case("0.5"), case("0.3"));
    let property = temp_file(dir.path(), "p.vnnlib", text.as_bytes());
    let out = knn(&["verify", &scores, "--vnnlib", &property], None);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    assert!(stderr(&out).contains("case 1's region holds no binary64 point"), "{}", stderr(&out));
}

#[test]
fn a_property_whose_every_case_is_empty_is_unknown() {
    // VNN-COMP's collins_rul_cnn pins inputs to decimals no binary64 number equals: taken as
    // written, no input is left, and `holds` would say nothing (the benchmark's other tools
    // read the bounds as the nearest binary64 numbers and find points there).
    let dir = tempfile::tempdir().unwrap();
    let scores = temp_file(
        dir.path(),
        "scores.knn",
        std::fs::read_to_string(mlp()).unwrap().replace("ArgMax(o)", "o").as_bytes(),
    );
    let text = "(declare-const X_0 Real) (declare-const X_1 Real) (declare-const X_2 Real) \
                (declare-const Y_0 Real) (declare-const Y_1 Real) \
                (assert (>= X_0 -0.432882241988499)) (assert (<= X_0 -0.432882241988499)) \
                (assert (>= X_1 0)) (assert (<= X_1 1)) (assert (>= X_2 0)) (assert (<= X_2 1)) \
                (assert (>= Y_1 1000))";
    let property = temp_file(dir.path(), "p.vnnlib", text.as_bytes());
    let out = knn(&["verify", &scores, "--vnnlib", &property], None);
    assert_eq!(out.status.code(), Some(11), "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).starts_with("unknown: empty region"), "{}", stdout(&out));
    assert!(stdout(&out).contains("element 0's range"), "{}", stdout(&out));
    // Read as VNN-COMP's tools read it, X_0 is the binary64 nearest the decimal: answered.
    let out = knn(&["verify", &scores, "--vnnlib", &property, "--bounds", "nearest"], None);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).starts_with("holds"), "{}", stdout(&out));
    assert!(!stderr(&out).contains("no binary64 point"), "{}", stderr(&out));
    // A box too: 0.2:0.2 is the point 0.2f64.
    let out = knn(&["verify", &mlp(), "--box", "x=0:1,0.2:0.2,0:1", "--bounds", "nearest"], None);
    assert!(stdout(&out).starts_with("holds") || stdout(&out).starts_with("violated"), "{}", stdout(&out));
}
