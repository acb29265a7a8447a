//! The expected pixels are worked out by hand from the layout docs/verification.md states
//! (margin 16, label line 16, gap 8, images zoomed to at most 224 pixels) and the scales it
//! states (`[0, 1]` to 0…255, the difference's grey 128 at 0, full red or blue at its largest).

use super::*;
use crate::question::QuestionText;

/// The top left corner of an image in a panel: columns of `column` pixels (image or text,
/// the wider) after a margin of 16, the image below the label's line of 16 and a gap of 8.
fn origin(k: usize, column: usize) -> (usize, usize) {
    (16 + k * (column + 16), 40)
}

/// The colour at the centre of pixel (`row`, `col`) of an image zoomed `zoom`× at `origin`.
fn at(picture: &Picture, (x, y): (usize, usize), zoom: usize, row: usize, col: usize) -> [u8; 3] {
    picture.pixel(x + col * zoom + zoom / 2, y + row * zoom + zoom / 2).expect("inside the picture")
}

#[test]
fn a_shape_is_read_as_height_width_and_channels() {
    let shape = |h, w, c| ImageShape { height: h, width: w, channels: c };
    assert_eq!(ImageShape::parse("28x28"), Ok(shape(28, 28, 1)));
    assert_eq!(ImageShape::parse("32×32×3"), Ok(shape(32, 32, 3)));
    assert_eq!(ImageShape::parse(" 5 X 7 x 1 "), Ok(shape(5, 7, 1)));
    assert!(ImageShape::parse("28x28x2").unwrap_err().contains("1 channel (grey) or 3"));
    for bad in ["28", "28x0", "axb", "28x28x3x1", "", "-2x2", "99999999999x99999999999x3"] {
        assert!(ImageShape::parse(bad).is_err(), "{bad} is not a shape");
    }
    assert_eq!(shape(32, 32, 3).to_string(), "32×32×3");
    assert_eq!(shape(28, 28, 1).to_string(), "28×28");
}

#[test]
fn mnist_and_cifar_shapes_are_recognised_and_nothing_else() {
    for dims in [&[784][..], &[1, 784], &[28, 28], &[1, 28, 28], &[1, 1, 28, 28]] {
        assert_eq!(ImageShape::of_dims(dims), Some(ImageShape::MNIST), "{dims:?}");
    }
    for dims in [&[3072][..], &[3, 32, 32], &[1, 3, 32, 32]] {
        assert_eq!(ImageShape::of_dims(dims), Some(ImageShape::CIFAR), "{dims:?}");
    }
    for dims in [&[32, 32, 3][..], &[10, 10], &[783], &[], &[1]] {
        assert_eq!(ImageShape::of_dims(dims), None, "{dims:?}");
    }
}

#[test]
fn a_shape_that_does_not_fit_is_a_usage_error_saying_what_would() {
    let given = ImageShape::parse("4x4").unwrap();
    let error = ImageShape::resolve(Some(given), &[15], "the input x").unwrap_err();
    assert_eq!(error.exit_code(), 1);
    assert_eq!(error.to_string(), "the image shape 4×4 has 16 elements, but the input x has 15");
    let error = ImageShape::resolve(None, &[5], "the input x").unwrap_err();
    assert!(error.to_string().contains("--image-shape H×W[×C]"), "{error}");
    assert_eq!(ImageShape::resolve(None, &[2, 2], "x").unwrap_err().exit_code(), 1);
    assert_eq!(ImageShape::resolve(Some(given), &[2, 8], "x").unwrap(), given);
}

#[test]
fn an_input_is_drawn_zoomed_on_the_zero_to_one_scale() {
    // 2×2 is zoomed 224 / 2 = 112×; the column is the image's 224 pixels wide (the label,
    // 7 characters of 16 pixels, is narrower).
    let shape = ImageShape::parse("2x2").unwrap();
    let picture = Picture::input(shape, &[0.0, 0.2, 1.0, f64::NAN], "input x").unwrap();
    assert_eq!((picture.width(), picture.height()), (16 + 224 + 16, 40 + 224 + 8 + 16 + 16));
    let o = origin(0, 224);
    assert_eq!(at(&picture, o, 112, 0, 0), [0, 0, 0]);
    assert_eq!(at(&picture, o, 112, 0, 1), [51, 51, 51], "0.2 × 255 = 51");
    assert_eq!(at(&picture, o, 112, 1, 0), [255, 255, 255]);
    assert_eq!(at(&picture, o, 112, 1, 1), [255, 0, 255], "NaN is magenta");
    // The block's corners are the same pixel's: a whole zoom, no smoothing.
    assert_eq!(picture.pixel(16 + 112, 40), Some([51, 51, 51]));
    assert_eq!(picture.pixel(16 + 223, 40 + 111), Some([51, 51, 51]));
    // The label is ink on white above the image.
    let ink = (16..16 + 112)
        .flat_map(|x| (16..32).map(move |y| (x, y)))
        .filter(|&(x, y)| picture.pixel(x, y) == Some([0, 0, 0]));
    assert!(ink.count() > 50, "the label is written");
    assert_eq!(picture.pixel(0, 0), Some([255, 255, 255]));
    // A grey frame one pixel outside the image.
    for (x, y) in [(15, 39), (15, 40 + 223), (16 + 224, 40), (16 + 100, 40 + 224)] {
        assert_eq!(picture.pixel(x, y), Some([160, 160, 160]), "({x}, {y})");
    }
}

#[test]
fn colour_images_are_read_channel_first() {
    let shape = ImageShape::parse("2x2x3").unwrap();
    let red = [1.0, 0.0, 0.0, 0.2];
    let green = [0.0, 1.0, 0.0, 0.2];
    let blue = [0.0, 0.0, 1.0, 0.2];
    let values: Vec<f64> = red.iter().chain(&green).chain(&blue).copied().collect();
    let picture = Picture::input(shape, &values, "input x").unwrap();
    let o = origin(0, 224);
    assert_eq!(at(&picture, o, 112, 0, 0), [255, 0, 0]);
    assert_eq!(at(&picture, o, 112, 0, 1), [0, 255, 0]);
    assert_eq!(at(&picture, o, 112, 1, 0), [0, 0, 255]);
    assert_eq!(at(&picture, o, 112, 1, 1), [51, 51, 51]);
}

#[test]
fn values_outside_zero_to_one_are_drawn_on_their_own_range() {
    let shape = ImageShape::parse("1x3").unwrap();
    // 224 / 3 = 74×; the caption `range -1:3` is 10 characters, 160 pixels: the image is wider.
    let picture = Picture::input(shape, &[-1.0, 1.0, 3.0], "x").unwrap();
    let o = origin(0, 222);
    assert_eq!(at(&picture, o, 74, 0, 0), [0, 0, 0]);
    assert_eq!(at(&picture, o, 74, 0, 1), [128, 128, 128], "(1 − −1) / 4 × 255 = 127.5");
    assert_eq!(at(&picture, o, 74, 0, 2), [255, 255, 255]);
    assert_eq!(Scale::of([-1.0, 3.0].iter()).caption(), "range -1:3");
    assert_eq!(Scale::of([0.0, 1.0].iter()).caption(), "");
}

#[test]
fn the_witness_panel_shows_the_counterexample_the_centre_and_their_difference() {
    let centre = vec![0.5; 784];
    let mut counterexample = centre.clone();
    counterexample[3 * 28 + 5] = 0.75; // up by 0.25, the largest change: full red
    counterexample[10 * 28 + 20] = 0.25; // down by 0.25: full blue
    counterexample[27 * 28 + 27] = 0.625; // up by half the largest: half way to red
    let picture = Picture::witness(ImageShape::MNIST, &counterexample, &centre, "class 3, not 7").unwrap();
    // Three columns of 224 pixels (28 × 8; `counterexample` is 14 characters, 224 pixels too).
    assert_eq!((picture.width(), picture.height()), (16 + 3 * (224 + 16), 40 + 224 + 8 + 16 + 16));
    let (seen, centred, diff) = (origin(0, 224), origin(1, 224), origin(2, 224));
    assert_eq!(at(&picture, seen, 8, 3, 5), [191, 191, 191], "0.75 × 255 = 191.25");
    assert_eq!(at(&picture, seen, 8, 10, 20), [64, 64, 64], "0.25 × 255 = 63.75");
    assert_eq!(at(&picture, seen, 8, 0, 0), [128, 128, 128], "0.5 × 255 = 127.5");
    assert_eq!(at(&picture, centred, 8, 3, 5), [128, 128, 128]);
    assert_eq!(at(&picture, diff, 8, 3, 5), [255, 0, 0]);
    assert_eq!(at(&picture, diff, 8, 10, 20), [0, 0, 255]);
    assert_eq!(at(&picture, diff, 8, 27, 27), [192, 64, 64], "128 + 127 / 2 = 191.5, 128 − 128 / 2");
    assert_eq!(at(&picture, diff, 8, 0, 0), [128, 128, 128], "no change is grey 128");
    // The L∞ size is written under the difference: ink there, none under the centre.
    let ink_in = |(x0, _): (usize, usize)| {
        (x0..x0 + 224)
            .flat_map(|x| (272..288).map(move |y| (x, y)))
            .filter(|&(x, y)| picture.pixel(x, y) == Some([0, 0, 0]))
            .count()
    };
    assert!(ink_in(diff) > 50 && ink_in(seen) > 50, "captions under the difference and the counterexample");
    assert_eq!(ink_in(centred), 0, "no caption under the centre on the [0, 1] scale");
}

#[test]
fn a_witness_of_the_wrong_length_is_refused() {
    let error = Picture::witness(ImageShape::MNIST, &[0.0; 783], &[0.0; 784], "").unwrap_err();
    assert_eq!(error.to_string(), "the image shape 28×28 has 784 elements, but the counterexample has 783");
}

#[test]
fn the_png_holds_the_picture() {
    let picture = Picture::input(ImageShape::parse("3x2").unwrap(), &[0.0, 0.1, 0.2, 0.3, 0.4, 0.5], "x").unwrap();
    let mut bytes = Vec::new();
    picture.write_png(&mut bytes).unwrap();
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes)).read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buffer).unwrap();
    assert_eq!((info.width as usize, info.height as usize), (picture.width(), picture.height()));
    assert_eq!((info.color_type, info.bit_depth), (png::ColorType::Rgb, png::BitDepth::Eight));
    let decoded: Vec<[u8; 3]> = buffer.chunks_exact(3).map(|p| [p[0], p[1], p[2]]).collect();
    let drawn: Vec<[u8; 3]> = (0..picture.height())
        .flat_map(|y| (0..picture.width()).map(move |x| (x, y)))
        .map(|(x, y)| picture.pixel(x, y).unwrap())
        .collect();
    assert_eq!(decoded, drawn);
}

#[test]
fn the_input_drawn_is_the_one_named_or_the_only_image() {
    let input = |name: &str, shape: Vec<usize>| TensorInput {
        name: name.into(),
        data: vec![0.0; shape.iter().product()],
        shape,
    };
    let image = input("x", vec![784]);
    let weights = input("w", vec![3]);
    assert!(input_picture(&[weights.clone(), image.clone()], None, None).is_ok());
    let two = input_picture(&[image.clone(), input("y", vec![28, 28])], None, None).unwrap_err();
    assert_eq!(two.to_string(), "2 inputs have an image's shape (x, y): name the one to draw (--image-input)");
    assert!(
        input_picture(std::slice::from_ref(&image), Some("w"), None)
            .unwrap_err()
            .to_string()
            .contains("no --input binds `w`")
    );
    let named = input_picture(&[weights.clone(), image.clone()], Some("w"), None).unwrap_err();
    assert!(named.to_string().starts_with("the input w (3 elements, shape [3]) has no image's shape"), "{named}");
    assert!(input_picture(std::slice::from_ref(&weights), None, Some(ImageShape::parse("1x3").unwrap())).is_ok());
    assert!(input_picture(&[], None, None).unwrap_err().to_string().contains("no input to draw"));
}

#[test]
fn the_caption_names_the_class_or_the_largest_output() {
    let counterexample = |class, expected_class, output: Vec<f64>| Counterexample {
        case: 0,
        input: vec![],
        output,
        failure: None,
        class,
        expected_class,
    };
    assert_eq!(class_caption(&counterexample(Some(3), Some(7), vec![])), "class 3, not 7");
    assert_eq!(class_caption(&counterexample(Some(7), None, vec![])), "class 7");
    // The first of equal largest outputs, as `ArgMax` takes it; NaN is never the largest.
    assert_eq!(class_caption(&counterexample(None, None, vec![f64::NAN, 0.1, 0.9, 0.9])), "argmax Y = 2");
    assert_eq!(class_caption(&counterexample(None, None, vec![])), "");
}

#[test]
fn the_centre_is_the_ball_s_or_the_box_s_midpoint() {
    let around = QuestionText {
        around: Some("x=[0.1, 0.9]".into()),
        eps: Some("0.4".into()),
        clip: Some("0:1".into()),
        ..QuestionText::default()
    };
    // The clipped ball is [0, 0.5] × [0.5, 1]: its midpoint is not the centre.
    assert_eq!(around.ask().unwrap().centre(0, &[]), vec![0.1, 0.9]);
    let a_box = QuestionText { region: Some("x=0:1,-1:3".into()), ..QuestionText::default() };
    let asked = a_box.ask().unwrap();
    assert_eq!(asked.centre(0, &[]), vec![0.5, 1.0]);
    assert_eq!(asked.input_len(), 2);
}

#[test]
fn numbers_on_the_picture_have_four_significant_digits() {
    assert_eq!(short_number(0.25), "0.25");
    assert_eq!(short_number(0.05), "0.05");
    assert_eq!(short_number(0.123456), "0.1235");
    assert_eq!(short_number(12.5), "12.5");
    assert_eq!(short_number(-3.0), "-3");
    assert_eq!(short_number(1.5e-7), "1.500e-7");
    assert_eq!(short_number(0.0), "0");
}
