#!/usr/bin/env python3
"""Makes the ONNX `ceil_mode = 1` pooling fixtures of formats/tests/import_pool_ceil.rs (part of
knn; the project's licence): `MaxPool` and `AveragePool` whose output size is rounded up, so
that a last, partial window reaches past the image and its pads.

How they were made (any Python 3 with PyPI's `onnx`, `numpy` and `onnxruntime`):

    /work/split/onnxvenv/bin/python formats/tests/data/pool_ceil/make_fixtures.py

For each model NAME, this writes, beside this script, what ../pool/make_fixtures.py writes (its
`Model` and `pool_reference` do the work): `NAME.onnx`, `NAME.input.npy` (C, H, W) and
`NAME.expected.npy`, the float64 loops in K-NN's order over the taps inside the image, with the
output size of `ceil_mode = 1`: per axis `ceil((in + pads - reach) / stride) + 1` windows, less
the last when it would start past the image and its leading pad. Each model is also run by
onnxruntime, in float32 (its tensors cast; onnxruntime has no float64 AveragePool), and the
loops checked against it within float32 rounding, its output shape included; `MaxPool` also in
float64, bit for bit.

The script is deterministic: running it again rewrites the same bytes.
"""

import importlib.util
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("pool_fixtures", os.path.join(HERE, "..", "pool", "make_fixtures.py"))
pool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pool)
pool.HERE = HERE


def ceil_windows(size, kernel, stride, dilation, begin, end):
    """The number of windows along an axis with ceil_mode = 1 (ONNX, onnxruntime)."""
    reach = dilation * (kernel - 1) + 1
    span = size + begin + end - reach
    windows = -(-span // stride) + 1
    if windows > span // stride + 1 and (windows - 1) * stride >= size + begin:
        windows -= 1
    return windows


class Model(pool.Model):
    def ceil_pool(self, kind, kernel, strides=(1, 1), pads=(0, 0, 0, 0), dilations=(1, 1)):
        c, h, w = self.image()
        oh = ceil_windows(h, kernel[0], strides[0], dilations[0], pads[0], pads[2])
        ow = ceil_windows(w, kernel[1], strides[1], dilations[1], pads[1], pads[3])
        # The end pads that hold the last windows: taps there are skipped, as past the image.
        grown = (pads[0], pads[1],
                 max(pads[2], (oh - 1) * strides[0] + dilations[0] * (kernel[0] - 1) + 1 - h - pads[0]),
                 max(pads[3], (ow - 1) * strides[1] + dilations[1] * (kernel[1] - 1) + 1 - w - pads[1]))
        attrs = dict(kernel_shape=list(kernel), strides=list(strides), pads=list(pads), ceil_mode=1)
        if dilations != (1, 1):
            attrs["dilations"] = list(dilations)
        self.node("MaxPool" if kind == "max" else "AveragePool", [], [1, c, oh, ow], **attrs)
        self.refs.append(lambda y: pool.pool_reference(y, kind, kernel, strides, grown, dilations, False))


def main():
    rng = np.random.default_rng(41)

    # 7 rows, a 2×2 window, stride 2: floor gives 3 windows, ceil 4, the last one row of the
    # image; 6 columns with a column of pad on the left: 4 windows, the last in the image.
    m = Model("maxpool_ceil", 2, 7, 6, opset=12)
    m.ceil_pool("max", (2, 2), strides=(2, 2), pads=(0, 1, 0, 0))
    model, x, y = m.save(rng)
    pool.check_with_onnxruntime(model, x, y, float64=True)

    # A 3×3 window, stride 2, dilation 2 along the columns on a 6×9 image.
    m = Model("maxpool_ceil_dilation", 1, 6, 9, opset=19)
    m.ceil_pool("max", (3, 3), strides=(2, 2), dilations=(1, 2))
    model, x, y = m.save(rng)
    pool.check_with_onnxruntime(model, x, y, float64=True)

    # Where ceil would add a window that starts in the end pad: 5 rows, pad 1 each side, a 2×2
    # window, stride 3: span 5, ceil 3 windows, but the third starts at row 6 - 1 = 5, past the
    # image: 2 windows (as floor); 8 columns, pad 1 on the left: 3 windows, not 4. Average over
    # the taps inside (count_include_pad = 0). Opset 22, whose shape inference is onnxruntime's
    # (before it, ONNX's counted the window that starts past the image: onnxruntime does not).
    m = Model("avgpool_ceil", 2, 5, 8, opset=22)
    m.ceil_pool("avg", (2, 2), strides=(3, 3), pads=(1, 1, 1, 0))
    m.save(rng)
    print("fixtures written")


if __name__ == "__main__":
    main()
