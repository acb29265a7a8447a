//! `knn verify` on image inputs: a program written for `C×H×W` images (`conv2d`, a pool,
//! `flatten`, `linear`) with `--input-shape`, and the errors of a shape that does not fit.

mod common;

use common::{knn, stderr, stdout, temp_file};

/// A 1×4×4 image through a 2-channel 2×2 convolution (padded), relu, a 2×2 max pool, flatten
/// and a dense layer of three classes.
const CNN: &str = "let W = initTensor(2, 1, 2, 2)[0.5, -0.25, 0.125, 1.0, -0.75, 0.3, 0.6, -0.1] in
let B = initTensor(2)[0.1, -0.2] in
let c = conv2d(x, W, B, pads = [1, 0, 0, 1]) in
let r = reluTensor(c) in
let p = maxPool2d(r, kernel = [2, 2], strides = [2, 2]) in
let f = flatten(p) in
let L = initTensor(3, 8)[0.1, 0.2, -0.3, 0.4, 0.5, -0.6, 0.7, 0.8, -0.9, 1.0, 0.11, -0.12, 0.13, 0.14, -0.15, 0.16, 0.17, 0.18, -0.19, 0.2, 0.21, -0.22, 0.23, 0.24] in
let y = linear(L, f) in y
";

const CENTRE: [f64; 16] = [0.1, 0.5, 0.9, 0.3, 0.2, 0.8, 0.4, 0.6, 0.7, 0.1, 0.3, 0.5, 0.9, 0.2, 0.6, 0.4];

fn around() -> String {
    format!("x=[{}]", CENTRE.map(|v| v.to_string()).join(", "))
}

/// The class `knn run` computes at the centre (the image as a nested list).
fn class_at_centre(net: &str) -> usize {
    let rows: Vec<String> = CENTRE
        .chunks(4)
        .map(|r| format!("[{}]", r.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", ")))
        .collect();
    let out = knn(&["run", net, "--input", &format!("x=[[{}]]", rows.join(", "))], None);
    let text = stdout(&out);
    let scores: Vec<f64> = text.trim().trim_matches(['[', ']']).split(',').map(|v| v.trim().parse().unwrap()).collect();
    (0..scores.len()).fold(0, |best, k| if scores[k] > scores[best] { k } else { best })
}

#[test]
fn a_program_for_images_is_verified_with_its_input_shape() {
    let dir = tempfile::tempdir().unwrap();
    let net = temp_file(dir.path(), "cnn.knn", CNN.as_bytes());
    let class = class_at_centre(&net);
    let out = knn(&["verify", &net, "--input-shape", "1,4,4", "--around", &around(), "--eps", "0.01"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).starts_with(&format!("holds: the class is {class} on the whole region")), "{}", stdout(&out));
    // A large ball reaches another class; the counterexample is replayed on the reference.
    let out = knn(&["verify", &net, "--input-shape", "1,4,4", "--around", &around(), "--eps", "0.3"], None);
    assert!(stdout(&out).starts_with("violated:"), "{}", stdout(&out));
    assert!(stdout(&out).contains("confirmed on the small-step reference"), "{}", stdout(&out));
}

#[test]
fn a_shape_that_does_not_fit_the_region_or_the_program_is_the_users_error() {
    let dir = tempfile::tempdir().unwrap();
    let net = temp_file(dir.path(), "cnn.knn", CNN.as_bytes());
    let out = knn(&["verify", &net, "--input-shape", "2,4,4", "--around", &around(), "--eps", "0.01"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("the input shape asked for (2×4×4) has 32 elements, but"), "{}", stderr(&out));
    for bad in ["1,x,4", "0,4,4", "1,1,1,1,1,1,1,1,16"] {
        let out = knn(&["verify", &net, "--input-shape", bad, "--around", &around(), "--eps", "0.01"], None);
        assert_eq!(out.status.code(), Some(1), "{bad}");
        assert!(stderr(&out).contains("--input-shape"), "{bad}: {}", stderr(&out));
    }
    // Without the shape the region is a vector of 16, which conv2d refuses: said with where.
    let out = knn(&["verify", &net, "--around", &around(), "--eps", "0.01"], None);
    assert_eq!(out.status.code(), Some(1));
    let message = stderr(&out);
    assert!(message.contains("the program fails on every input `x` of 16 elements"), "{message}");
    assert!(message.contains("cnn.knn:3:"), "{message}");
}

fn example() -> String {
    format!("{}/../examples/cnn.knn", env!("CARGO_MANIFEST_DIR"))
}

const VERTICAL: &str = "x=[[[0,0,1,0,0],[0,0,1,0,0],[0,0,1,0,0],[0,0,1,0,0],[0,0,1,0,0]]]";
const HORIZONTAL: &str = "x=[[[0,0,0,0,0],[0,0,0,0,0],[1,1,1,1,1],[0,0,0,0,0],[0,0,0,0,0]]]";

#[test]
fn the_cnn_example_tells_the_bars_apart_as_the_guide_works_out() {
    // docs/language.md: f = [5, 0], o = [5, −5] for the vertical bar, the mirror for the
    // horizontal one.
    for (image, class) in [(VERTICAL, "0"), (HORIZONTAL, "1")] {
        let out = knn(&["run", &example(), "--input", image], None);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(stdout(&out).trim(), class);
    }
    // The same program with its scores as the result instead of the class.
    let scores = std::fs::read_to_string(example()).unwrap().replace("ArgMax(o)", "o");
    let out = knn(&["run", "-", "--input", VERTICAL], Some(&scores));
    assert_eq!(stdout(&out).trim(), "[5.0, -5.0]", "{}", stderr(&out));
}

#[test]
fn the_cnn_example_is_verified_on_balls_around_the_vertical_bar() {
    let centre = "x=[0,0,1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1,0,0]";
    let out = knn(&["verify", &example(), "--input-shape", "1,5,5", "--around", centre, "--eps", "0.1"], None);
    assert!(stdout(&out).starts_with("holds: the class is 0 on the whole region"), "{}", stdout(&out));
    let out = knn(&["verify", &example(), "--input-shape", "1,5,5", "--around", centre, "--eps", "0.5"], None);
    assert_eq!(out.status.code(), Some(10), "{}", stdout(&out));
    assert!(stdout(&out).contains("the class is 1, not 0"), "{}", stdout(&out));
}

#[test]
fn a_centre_written_as_an_image_gives_the_input_its_shape() {
    // The vertical bar as nested lists, and as a .npy image of shape (1, 5, 5): no
    // --input-shape needed.
    let nested = VERTICAL;
    let out = knn(&["verify", &example(), "--around", nested, "--eps", "0.1"], None);
    assert!(stdout(&out).starts_with("holds: the class is 0 on the whole region"), "{}{}", stdout(&out), stderr(&out));
    let dir = tempfile::tempdir().unwrap();
    let mut pixels = [0.0f64; 25];
    (0..5).for_each(|r| pixels[r * 5 + 2] = 1.0);
    let bytes: Vec<u8> = pixels.iter().flat_map(|v| v.to_le_bytes()).collect();
    let npy = temp_file(dir.path(), "bar.npy", &common::npy_bytes("<f8", "(1, 5, 5)", &bytes));
    let out = knn(&["verify", &example(), "--around", &format!("x={npy}"), "--eps", "0.1"], None);
    assert!(stdout(&out).starts_with("holds: the class is 0 on the whole region"), "{}{}", stdout(&out), stderr(&out));
    // A ragged image is the user's error.
    let out = knn(&["verify", &example(), "--around", "x=[[[0, 1], [1]]]", "--eps", "0.1"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("rows have different lengths (2 and 1)"), "{}", stderr(&out));
}
