//! ONNX `MaxPool` and `AveragePool` with `ceil_mode = 1`, made by
//! `tests/data/pool_ceil/make_fixtures.py`: the last, partial window of each axis is K-NN's
//! pool with the end pad grown to hold it (padding is skipped, as ONNX skips the part of a
//! window past the image). Imported, run on both engines and compared bit for bit with the
//! script's float64 loops (checked there against onnxruntime, its output shape included).

mod fixture_support;
mod onnx_support;

use knn_formats::import::Step;
use knn_formats::import::onnx::proto::NodeProto;
use onnx_support::{import_bytes, model, node, with_int, with_ints, with_string};

use fixture_support::{Ran, bits, run};

#[test]
fn ceil_mode_pools_agree_with_the_reference_bit_for_bit() {
    for (name, shape, pads) in [
        // 7 rows by 2, stride 2: a fourth window of one row; 6 columns after one of pad: a fourth
        // window, one column of it past the image.
        ("maxpool_ceil", [2, 4, 4], [0, 1, 1, 1]),
        // 6 rows, 3 taps, stride 2: 3 windows (the third one row past); 9 columns, 3 taps 2
        // apart (a reach of 5), stride 2: 4 windows, as the floor.
        ("maxpool_ceil_dilation", [1, 3, 3], [0, 0, 1, 0]),
        // The window that would start past the image and its pad is not counted: the pads
        // as given.
        ("avgpool_ceil", [2, 2, 3], [1, 1, 1, 0]),
    ] {
        let Ran { result, expected, network, shape: out } = run("pool_ceil", name);
        assert_eq!(bits(&result), bits(&expected), "{name}");
        assert_eq!(out, shape, "{name}");
        let [Step::Pool(pool)] = &network.steps[..] else { panic!("{name}: {:?}", network.steps) };
        assert_eq!(pool.pads, pads, "{name}: the end pads grown");
    }
}

fn image_pool(pool: NodeProto) -> Vec<u8> {
    model(&[Some(1), Some(1), Some(5), Some(5)], "y", vec![pool], vec![])
}

#[test]
fn ceil_mode_changes_nothing_where_the_windows_tile_the_image() {
    // 5 by a window of 3, stride 2: (5 - 3) / 2 + 1 = 2 windows either way.
    let pool = |ceil: i64, count_pad: i64| {
        let p = with_ints(node("AveragePool", "a", &["input.1"], "y"), "kernel_shape", &[3, 3]);
        let p = with_int(with_ints(p, "strides", &[2, 2]), "ceil_mode", ceil);
        import_bytes(&image_pool(with_int(p, "count_include_pad", count_pad))).unwrap().steps
    };
    assert_eq!(pool(1, 1), pool(0, 1), "no partial window: count_include_pad = 1 is taken");
    let [Step::Pool(p)] = &pool(1, 0)[..] else { panic!() };
    assert_eq!((p.pads, p.output()), ([0; 4], Some([1, 2, 2])));
}

#[test]
fn valid_pads_nothing_and_ceil_mode_then_grows_the_end() {
    let pool = |ceil: i64| {
        let p = with_ints(node("MaxPool", "m", &["input.1"], "y"), "kernel_shape", &[2, 2]);
        let p = with_ints(with_string(p, "auto_pad", "VALID"), "strides", &[2, 2]);
        import_bytes(&image_pool(with_int(p, "ceil_mode", ceil))).unwrap().steps
    };
    // 5 by 2, stride 2: 2 windows with the floor, 3 with ceil_mode (the last one of one tap).
    let [Step::Pool(floor)] = &pool(0)[..] else { panic!() };
    assert_eq!((floor.pads, floor.output()), ([0; 4], Some([1, 2, 2])));
    let [Step::Pool(ceil)] = &pool(1)[..] else { panic!() };
    assert_eq!((ceil.pads, ceil.output()), ([0, 0, 1, 1], Some([1, 3, 3])));
}
