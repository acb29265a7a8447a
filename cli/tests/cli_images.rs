//! `knn verify --witness-image` and `knn run --as-image`: the PNG read back with the `png`
//! crate's decoder, its pixels checked where the layout of docs/verification.md
//! ("Counterexamples as images") puts them: a margin of 16, the label's line of 16 and a gap
//! of 8 above each image, images zoomed to at most 224 pixels, columns 16 apart. Expected
//! values come from the inputs and the scales stated there, never from knn's code.

mod common;
mod verify_cli_support;

use std::path::Path;

use common::{knn, npy_f64, stderr, stdout, temp_file};
use verify_cli_support::verify_exit;

/// Class 1 exactly where `x[0] > 0.5` (scores `[0.5, x[0]]`, the first of equal ones wins).
const THRESHOLD: &str =
    "let W = initTensor(2, 4) in\nlet W[1, 0] = 1.0 in\nlet z = linear(W, x) in\nlet z[0] = z[0] + 0.5 in\nArgMax(z)\n";

/// A decoded PNG: width, height, RGB pixels row by row.
struct Decoded {
    width: usize,
    height: usize,
    rgb: Vec<u8>,
}

impl Decoded {
    fn read(path: &Path) -> Decoded {
        let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
        let mut reader = png::Decoder::new(file).read_info().unwrap();
        let mut rgb = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut rgb).unwrap();
        assert_eq!((info.color_type, info.bit_depth), (png::ColorType::Rgb, png::BitDepth::Eight));
        Decoded { width: info.width as usize, height: info.height as usize, rgb }
    }

    fn pixel(&self, x: usize, y: usize) -> [u8; 3] {
        let at = 3 * (y * self.width + x);
        [self.rgb[at], self.rgb[at + 1], self.rgb[at + 2]]
    }

    /// The middle of pixel (`row`, `col`) of the image in column `k` of a panel whose columns
    /// are `column` pixels wide, zoomed `zoom`×.
    fn at(&self, k: usize, column: usize, zoom: usize, row: usize, col: usize) -> [u8; 3] {
        self.pixel(16 + k * (column + 16) + col * zoom + zoom / 2, 40 + row * zoom + zoom / 2)
    }
}

/// The first number of the line `input  = [a, b, …]` of the text answer.
fn first_input(out: &str) -> f64 {
    let line = out.lines().find_map(|l| l.trim().strip_prefix("input  = [")).expect("an input line");
    line.split([',', ']']).next().unwrap().trim().parse().unwrap()
}

fn grey(v: f64) -> [u8; 3] {
    [(v * 255.0).round() as u8; 3]
}

/// `knn verify NET --box REGION --claim argmax=0` drawing a 2×2 image into `image`.
fn box_witness_args<'a>(net: &'a str, region: &'a str, image: &'a str) -> [&'a str; 9] {
    [net, "--box", region, "--claim", "argmax=0", "--image-shape", "2x2", "--witness-image", image]
}

#[test]
fn a_counterexample_is_drawn_beside_the_centre_and_the_difference() {
    let dir = tempfile::tempdir().unwrap();
    let net = temp_file(dir.path(), "threshold.knn", THRESHOLD.as_bytes());
    let image = dir.path().join("witness.png");
    // Fixed elements are binary64 values: a decimal such as 0.2:0.2 holds no binary64 input.
    let region = "x=0.25:0.75,0.25:0.25,0.75:0.75,1:1";
    let (out, _) = verify_exit(&box_witness_args(&net, region, image.to_str().unwrap()), 10);
    let x0 = first_input(&out);
    assert!(x0 > 0.5 && x0 <= 0.75, "{out}");
    let png = Decoded::read(&image);
    // 2×2 zoomed 112× (224 / 2): three columns of 224 pixels.
    assert_eq!((png.width, png.height), (16 + 3 * (224 + 16), 40 + 224 + 8 + 16 + 16));
    let seen = [[x0, 0.25], [0.75, 1.0]];
    let centre = [[0.5, 0.25], [0.75, 1.0]]; // the box's midpoint
    for (row, col) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
        assert_eq!(png.at(0, 224, 112, row, col), grey(seen[row][col]), "counterexample ({row}, {col})");
        assert_eq!(png.at(1, 224, 112, row, col), grey(centre[row][col]), "centre ({row}, {col})");
    }
    // Only x[0] changed, upwards: the largest change, full red; grey 128 where nothing did.
    assert_eq!(png.at(2, 224, 112, 0, 0), [255, 0, 0]);
    for (row, col) in [(0, 1), (1, 0), (1, 1)] {
        assert_eq!(png.at(2, 224, 112, row, col), [128, 128, 128], "difference ({row}, {col})");
    }
    assert_eq!(png.pixel(0, 0), [255, 255, 255]);
}

#[test]
fn the_centre_of_a_ball_is_its_centre_even_where_the_clip_cuts_it() {
    let dir = tempfile::tempdir().unwrap();
    let net = temp_file(dir.path(), "threshold.knn", THRESHOLD.as_bytes());
    let image = dir.path().join("witness.png");
    let image = image.to_str().unwrap();
    let around = ["--around", "x=[0.45, 0.2, 0.8, 1.0]", "--eps", "0.25", "--clip", "0:1", "--claim", "argmax=0"];
    let mut args = vec![net.as_str()];
    args.extend(around);
    args.extend(["--image-shape", "2x2", "--witness-image", image]);
    verify_exit(&args, 10);
    let png = Decoded::read(Path::new(image));
    // The clipped ball's last element ranges over [0.75, 1]: its midpoint 0.875 is not the centre.
    assert_eq!(png.at(1, 224, 112, 0, 0), grey(0.45));
    assert_eq!(png.at(1, 224, 112, 1, 1), grey(1.0));
}

#[test]
fn nothing_is_written_when_there_is_no_counterexample() {
    let dir = tempfile::tempdir().unwrap();
    let net = temp_file(dir.path(), "threshold.knn", THRESHOLD.as_bytes());
    let image = dir.path().join("witness.png");
    let (out, err) = verify_exit(&box_witness_args(&net, "x=0:0.5,0:1,0:1,0:1", image.to_str().unwrap()), 0);
    assert!(out.starts_with("holds"), "{out}");
    assert!(err.contains("witness.png not written: there is no counterexample (the answer is holds)"), "{err}");
    assert!(!image.exists());
}

#[test]
fn a_shape_that_does_not_fit_is_refused_before_verifying() {
    let dir = tempfile::tempdir().unwrap();
    let net = temp_file(dir.path(), "threshold.knn", THRESHOLD.as_bytes());
    let image = dir.path().join("witness.png");
    let image = image.to_str().unwrap();
    let region = "x=0.25:0.75,0.25:0.25,0.75:0.75,1:1";
    let run = |shape: Option<&str>| {
        let mut args = vec![net.as_str(), "--box", region, "--claim", "argmax=0", "--witness-image", image];
        if let Some(shape) = shape {
            args.extend(["--image-shape", shape]);
        }
        verify_exit(&args, 1)
    };
    let (out, err) = run(Some("3x3"));
    assert_eq!(out, "", "no answer: nothing was verified");
    assert!(err.contains("the image shape 3×3 has 9 elements, but the region's input has 4"), "{err}");
    let (_, err) = run(None);
    assert!(err.contains("has no image's shape") && err.contains("--image-shape H×W[×C]"), "{err}");
    let (_, err) = run(Some("2x2x2"));
    assert!(err.contains("1 channel (grey) or 3"), "{err}");
    let (_, err) = run(Some("2by2"));
    assert!(err.contains("is not an image shape"), "{err}");
    assert!(!Path::new(image).exists());
}

#[test]
fn an_existing_image_is_kept_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let net = temp_file(dir.path(), "threshold.knn", THRESHOLD.as_bytes());
    let image = temp_file(dir.path(), "witness.png", b"old");
    let mut args = vec![net.as_str(), "--box", "x=0.25:0.75,0:1,0:1,0:1", "--claim", "argmax=0"];
    args.extend(["--image-shape", "2x2", "--witness-image", &image]);
    let (_, err) = verify_exit(&args, 1);
    assert!(err.contains("exists; pass --force to overwrite it"), "{err}");
    assert_eq!(std::fs::read(&image).unwrap(), b"old");
    args.push("--force");
    verify_exit(&args, 10);
    assert_eq!(Decoded::read(Path::new(&image)).width, 736);
    // The network is an input of the command: never written over.
    let (_, err) = verify_exit(
        &[&net, "--box", "x=0:1,0:1,0:1,0:1", "--image-shape", "2x2", "--witness-image", &net, "--force"],
        1,
    );
    assert!(err.contains("is also an input of this command"), "{err}");
}

#[test]
fn an_instance_list_takes_no_witness_image() {
    let (_, err) = verify_exit(&["--instances", "list.csv", "--witness-image", "w.png"], 1);
    assert!(err.contains("--witness-image"), "{err}");
}

/// `x[k] = k / 783`: a ramp from black to white, row by row.
fn ramp() -> Vec<f64> {
    (0..784).map(|k| k as f64 / 783.0).collect()
}

#[test]
fn run_draws_its_input_as_an_image() {
    let dir = tempfile::tempdir().unwrap();
    let program = temp_file(dir.path(), "argmax.knn", b"ArgMax(x)\n");
    let values: Vec<String> = ramp().iter().map(|v| format!("{v:?}")).collect();
    let input = format!("x=[{}]", values.join(", "));
    let image = dir.path().join("x.png");
    let out = knn(&["run", &program, "--input", &input, "--as-image", image.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "783\n", "the program runs as without --as-image");
    let png = Decoded::read(&image);
    // 28×28 zoomed 8×, one column of 224 pixels.
    assert_eq!((png.width, png.height), (16 + 224 + 16, 40 + 224 + 8 + 16 + 16));
    for (row, col) in [(0, 0), (0, 27), (13, 9), (27, 27)] {
        assert_eq!(png.at(0, 224, 8, row, col), grey((row * 28 + col) as f64 / 783.0), "({row}, {col})");
    }
}

#[test]
fn run_draws_a_matrix_input_from_a_npy_file() {
    let dir = tempfile::tempdir().unwrap();
    let program = temp_file(dir.path(), "argmax.knn", b"ArgMax(x)\n");
    let weights = temp_file(dir.path(), "w.npy", &npy_f64(&[3], &[0.0, 0.5, 1.0]));
    let digit = temp_file(dir.path(), "digit.npy", &npy_f64(&[28, 28], &ramp()));
    let image = dir.path().join("digit.png");
    let image = image.to_str().unwrap();
    let x = format!("x={weights}");
    let y = format!("y={digit}");
    // `x` (3 elements) is no image: the 28×28 matrix `y` is the one drawn.
    let out = knn(&["run", &program, "--input", &x, "--input", &y, "--as-image", image], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(Decoded::read(Path::new(image)).pixel(16 + 27 * 8 + 4, 40 + 27 * 8 + 4), [255; 3]);
    // Two images: which one to draw is asked for.
    let z = format!("z={digit}");
    let out = knn(&["run", &program, "--input", &y, "--input", &z, "--as-image", image, "--force"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("2 inputs have an image's shape (y, z)"), "{}", stderr(&out));
    let args =
        ["run", &program, "--input", &x, "--as-image", image, "--force", "--image-input", "x", "--image-shape", "1x3"];
    let out = knn(&args, None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let png = Decoded::read(Path::new(image));
    // 1×3 zoomed 74× (224 / 3).
    assert_eq!((png.width, png.height), (16 + 222 + 16, 40 + 74 + 8 + 16 + 16));
    assert_eq!(png.at(0, 222, 74, 0, 1), grey(0.5));
}

#[test]
fn run_refuses_an_input_without_an_image_shape_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let program = temp_file(dir.path(), "argmax.knn", b"ArgMax(x)\n");
    let image = dir.path().join("x.png");
    let out = knn(&["run", &program, "--input", "x=[1, 2, 3]", "--as-image", image.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "", "the program did not run");
    assert!(stderr(&out).contains("the input x (3 elements, shape [3]) has no image's shape"), "{}", stderr(&out));
    assert!(!image.exists());
}
