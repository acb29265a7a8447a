//! Inputs as pictures (docs/verification.md, "Counterexamples as images"): a counterexample
//! of `knn verify`, the centre of its region and their difference side by side in one PNG,
//! or one input of `knn run`. A reader sees at a glance what a perturbation changed, where
//! 784 numbers say nothing.
//!
//! Values are drawn with one scale for every image of a panel: `[0, 1]` to black … white
//! when every finite value lies in it (pixels as MNIST and most image networks take them),
//! else the smallest … largest value shown, written under the image. The difference is drawn
//! so that its largest `|d|` has full contrast, grey 128 where nothing changed.

mod raster;

use std::fmt;

use knn_semantics::inputs::TensorInput;

use super::error::KnnError;
use super::question::Asked;
use super::report::Verification;
use knn_verify::{Conclusion, Counterexample};
use raster::Column;

pub use raster::Picture;

/// How a pixel that is not a number, or infinite, is drawn: magenta, a colour no value maps to
/// in a grey image.
pub const NOT_FINITE: [u8; 3] = [255, 0, 255];

/// The shape of an image: `height × width` pixels of `channels` (1: grey; 3: red, green,
/// blue). Its elements are read channel first (C×H×W, as ONNX and CIFAR-10 store them), then
/// row by row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageShape {
    pub height: usize,
    pub width: usize,
    pub channels: usize,
}

impl ImageShape {
    /// An MNIST digit: 28×28, grey.
    pub const MNIST: ImageShape = ImageShape { height: 28, width: 28, channels: 1 };
    /// A CIFAR-10 picture: 32×32, red, green and blue.
    pub const CIFAR: ImageShape = ImageShape { height: 32, width: 32, channels: 3 };

    /// Reads `H×W` or `H×W×C` (`x` or `×` between the numbers; C is 1 or 3), as
    /// `--image-shape` takes it.
    pub fn parse(text: &str) -> Result<ImageShape, String> {
        let not_a_shape = || {
            format!("`{text}` is not an image shape: expected H×W or H×W×C, positive whole numbers (28x28, 32x32x3)")
        };
        let numbers = text
            .split(['x', 'X', '×'])
            .map(|part| part.trim().parse::<usize>().ok().filter(|&n| n > 0))
            .collect::<Option<Vec<usize>>>()
            .ok_or_else(not_a_shape)?;
        let shape = match numbers[..] {
            [height, width] => ImageShape { height, width, channels: 1 },
            [height, width, channels @ (1 | 3)] => ImageShape { height, width, channels },
            [_, _, channels] => {
                return Err(format!("`{text}`: an image has 1 channel (grey) or 3 (red, green, blue), not {channels}"));
            }
            _ => return Err(not_a_shape()),
        };
        match shape.elements() {
            Some(_) => Ok(shape),
            None => Err(format!("`{text}`: more elements than this machine can count")),
        }
    }

    /// The number of elements, `None` when it overflows.
    pub fn elements(&self) -> Option<usize> {
        self.height.checked_mul(self.width)?.checked_mul(self.channels)
    }

    /// The image a tensor of dimensions `dims` is, when its shape says so: `28×28`, `1×28×28`
    /// or 784 elements are an MNIST digit; `3×32×32` or 3,072 elements a CIFAR-10 picture
    /// (leading dimensions of 1 aside). A matrix of another size is not taken for an image: a
    /// weight matrix is one too.
    pub fn of_dims(dims: &[usize]) -> Option<ImageShape> {
        let start = dims.iter().position(|&d| d != 1).unwrap_or(dims.len());
        match dims[start..] {
            [784] | [28, 28] => Some(ImageShape::MNIST),
            [3072] | [3, 32, 32] => Some(ImageShape::CIFAR),
            _ => None,
        }
    }

    /// The shape to draw `what` (`the input x`), of dimensions `dims`, with: `given` when it
    /// has as many elements, else the image `dims` is ([`ImageShape::of_dims`]). Anything else
    /// is a usage error that says what fits.
    pub fn resolve(given: Option<ImageShape>, dims: &[usize], what: &str) -> Result<ImageShape, KnnError> {
        let count = dims.iter().try_fold(1usize, |n, &d| n.checked_mul(d)).unwrap_or(usize::MAX);
        match given {
            Some(shape) if shape.elements() == Some(count) => Ok(shape),
            Some(shape) => Err(KnnError::usage(format!(
                "the image shape {shape} has {} elements, but {what} has {count}",
                shape.elements().unwrap_or(usize::MAX)
            ))),
            None => ImageShape::of_dims(dims).ok_or_else(|| {
                KnnError::usage(format!(
                    "{what} ({count} elements, shape {dims:?}) has no image's shape: 784 elements, 28×28 or \
                     1×28×28 are grey, 3,072 or 3×32×32 colour; give its shape with --image-shape H×W[×C]"
                ))
            }),
        }
    }

    /// Pixels in one channel.
    fn pixels(&self) -> usize {
        self.height * self.width
    }
}

/// `28×28` (grey), `32×32×3` (colour).
impl fmt::Display for ImageShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}×{}", self.height, self.width)?;
        if self.channels != 1 {
            write!(f, "×{}", self.channels)?;
        }
        Ok(())
    }
}

impl Picture {
    /// The panel of a counterexample: the counterexample, the centre of the region and their
    /// difference, left to right, each with its label; `caption` (the class) under the
    /// counterexample and the L∞ size of the difference under it. Both slices have `shape`'s
    /// elements (a usage error otherwise).
    pub fn witness(
        shape: ImageShape,
        counterexample: &[f64],
        centre: &[f64],
        caption: &str,
    ) -> Result<Picture, KnnError> {
        for (what, values) in [("the counterexample", counterexample), ("the centre", centre)] {
            ImageShape::resolve(Some(shape), &[values.len()], what)?;
        }
        let scale = Scale::of(counterexample.iter().chain(centre));
        let difference: Vec<f64> = counterexample.iter().zip(centre).map(|(x, c)| x - c).collect();
        let largest = difference.iter().filter(|d| d.is_finite()).fold(0.0f64, |m, d| m.max(d.abs()));
        let columns = vec![
            Column {
                label: "counterexample".into(),
                pixels: scale.draw(shape, counterexample),
                caption: caption.into(),
            },
            Column { label: "centre".into(), pixels: scale.draw(shape, centre), caption: scale.caption() },
            Column {
                label: "difference".into(),
                pixels: draw_difference(shape, &difference, largest),
                caption: format!("Linf {}", short_number(largest)),
            },
        ];
        Picture::compose(shape, &columns)
    }

    /// One input drawn alone, labelled `label`.
    pub fn input(shape: ImageShape, values: &[f64], label: &str) -> Result<Picture, KnnError> {
        ImageShape::resolve(Some(shape), &[values.len()], label)?;
        let scale = Scale::of(values.iter());
        let column = Column { label: label.into(), pixels: scale.draw(shape, values), caption: scale.caption() };
        Picture::compose(shape, &[column])
    }
}

/// The picture of a verification's counterexample ([`Picture::witness`]), `None` when the
/// answer is not `violated`. The centre is the one of `--around` when the question has one,
/// else the midpoint of the box (of the counterexample's case, for a VNN-LIB property).
pub fn witness_picture(
    verification: &Verification,
    asked: &Asked,
    shape: ImageShape,
) -> Result<Option<Picture>, KnnError> {
    let Conclusion::Violated(counterexample) = &verification.conclusion else { return Ok(None) };
    let centre = asked.centre(counterexample.case, &counterexample.input);
    Picture::witness(shape, &counterexample.input, &centre, &class_caption(counterexample)).map(Some)
}

/// The picture of one of `inputs` ([`Picture::input`]): the one named `name`, else the only
/// one that fits `shape` (or, without it, the only one with an image's shape).
pub fn input_picture(
    inputs: &[TensorInput],
    name: Option<&str>,
    shape: Option<ImageShape>,
) -> Result<Picture, KnnError> {
    let fits = |input: &&TensorInput| ImageShape::resolve(shape, &input.shape, "").is_ok();
    let input = match name {
        Some(name) => inputs
            .iter()
            .find(|input| input.name == name)
            .ok_or_else(|| KnnError::usage(format!("no --input binds `{name}`, the input to draw")))?,
        None => match inputs.iter().filter(fits).collect::<Vec<_>>()[..] {
            [one] => one,
            [] if inputs.len() == 1 => &inputs[0],
            [] if inputs.is_empty() => return Err(KnnError::usage("there is no input to draw: bind one with --input")),
            [] => return Err(KnnError::usage("no input has an image's shape: name the one to draw (--image-input)")),
            ref several => {
                let names: Vec<&str> = several.iter().map(|input| input.name.as_str()).collect();
                return Err(KnnError::usage(format!(
                    "{} inputs have an image's shape ({}): name the one to draw (--image-input)",
                    names.len(),
                    names.join(", ")
                )));
            }
        },
    };
    let what = format!("the input {}", input.name);
    let shape = ImageShape::resolve(shape, &input.shape, &what)?;
    Picture::input(shape, &input.data, &format!("input {}", input.name))
}

/// `class 3, not 7` (the class claimed), `class 3`, or for outputs that are not a class the
/// index of the largest output (the first of equal ones, NaN never largest: `ArgMax`'s rule).
fn class_caption(counterexample: &Counterexample) -> String {
    match (counterexample.class, counterexample.expected_class) {
        (Some(class), Some(expected)) if class != expected => format!("class {class}, not {expected}"),
        (Some(class), _) => format!("class {class}"),
        (None, _) => {
            let mut top: Option<(usize, f64)> = None;
            for (k, &y) in counterexample.output.iter().enumerate() {
                if top.is_none_or(|(_, best)| y > best) && !y.is_nan() {
                    top = Some((k, y));
                }
            }
            top.map(|(k, _)| format!("argmax Y = {k}")).unwrap_or_default()
        }
    }
}

/// The values that black and white stand for.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Scale {
    low: f64,
    high: f64,
}

impl Scale {
    /// `[0, 1]` when every finite value lies in it, else the smallest and largest finite value.
    fn of<'a>(values: impl Iterator<Item = &'a f64>) -> Scale {
        let (low, high) = values
            .filter(|v| v.is_finite())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(low, high), &v| (low.min(v), high.max(v)));
        if low > high || (low >= 0.0 && high <= 1.0) { Scale { low: 0.0, high: 1.0 } } else { Scale { low, high } }
    }

    /// 0 to 255 from `low` to `high` (grey 128 when they are equal).
    fn level(&self, v: f64) -> u8 {
        if self.high <= self.low {
            return 128;
        }
        ((v - self.low) / (self.high - self.low) * 255.0).round().clamp(0.0, 255.0) as u8
    }

    /// Each pixel of `values` in `shape` (channel first), row by row.
    fn draw(&self, shape: ImageShape, values: &[f64]) -> Vec<[u8; 3]> {
        (0..shape.pixels())
            .map(|p| {
                let channel = |c: usize| values[c * shape.pixels() + p];
                let colour: Vec<f64> = (0..shape.channels).map(channel).collect();
                match colour[..] {
                    _ if colour.iter().any(|v| !v.is_finite()) => NOT_FINITE,
                    [grey] => [self.level(grey); 3],
                    [red, green, blue] => [self.level(red), self.level(green), self.level(blue)],
                    _ => unreachable!("an image shape has 1 or 3 channels"),
                }
            })
            .collect()
    }

    /// What the scale is, when it is not `[0, 1]`: `range -0.42:2.8`.
    fn caption(&self) -> String {
        if (self.low, self.high) == (0.0, 1.0) {
            return String::new();
        }
        format!("range {}:{}", short_number(self.low), short_number(self.high))
    }
}

/// The difference: grey 128 where it is 0, full contrast at `largest`. In a grey image red
/// where the value went up and blue where it went down; in a colour image each channel is
/// `128 + 127·d/largest` (up) or `128 + 128·d/largest` (down).
fn draw_difference(shape: ImageShape, difference: &[f64], largest: f64) -> Vec<[u8; 3]> {
    let towards = |d: f64, up: f64, down: f64| {
        let t = if largest > 0.0 { d.abs() / largest } else { 0.0 };
        let end = if d > 0.0 { up } else { down };
        (128.0 + (end - 128.0) * t).round().clamp(0.0, 255.0) as u8
    };
    (0..shape.pixels())
        .map(|p| {
            let d: Vec<f64> = (0..shape.channels).map(|c| difference[c * shape.pixels() + p]).collect();
            match d[..] {
                _ if d.iter().any(|v| !v.is_finite()) => NOT_FINITE,
                [d] => [towards(d, 255.0, 0.0), towards(d, 0.0, 0.0), towards(d, 0.0, 255.0)],
                [r, g, b] => [towards(r, 255.0, 0.0), towards(g, 255.0, 0.0), towards(b, 255.0, 0.0)],
                _ => unreachable!("an image shape has 1 or 3 channels"),
            }
        })
        .collect()
}

/// A number in four significant digits for a label: `0.05`, `0.1235`, `1.5e-7`.
fn short_number(v: f64) -> String {
    let a = v.abs();
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    if !(1e-3..1e4).contains(&a) {
        return format!("{v:.3e}");
    }
    let decimals = (3 - a.log10().floor() as i32).max(0) as usize;
    let text = format!("{v:.decimals$}");
    if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.').to_string() } else { text }
}

#[cfg(test)]
#[path = "image/tests.rs"]
mod tests;
