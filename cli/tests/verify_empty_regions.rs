//! A region taken as written may hold no binary64 point (`0.2:0.2`: no binary64 number is 0.2):
//! every claim holds on it vacuously, and `knn verify` says so on standard error.

mod common;

use common::{knn, stderr, stdout, temp_file};

fn mlp() -> String {
    format!("{}/../examples/mlp.knn", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn a_box_with_no_binary64_point_holds_with_a_note_naming_the_empty_element() {
    let out = knn(&["verify", &mlp(), "--box", "x=0:1,0.2:0.2,0:1"], None);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).starts_with("holds"), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(err.contains("the region holds no binary64 point"), "{err}");
    assert!(err.contains("element 1's range"), "{err}");
    // 0.25 is a binary64 number: the point box holds it, and there is no note.
    let out = knn(&["verify", &mlp(), "--box", "x=0:1,0.25:0.25,0:1"], None);
    assert!(!stderr(&out).contains("no binary64 point"), "{}", stderr(&out));
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
    assert!(stderr(&out).contains("no binary64 point"), "{}", stderr(&out));
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
