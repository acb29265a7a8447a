#!/usr/bin/env python3
"""Makes the ONNX `Conv` fixtures of formats/tests/import_conv.rs (part of knn; the project's
licence).

How they were made (any Python 3 with PyPI's `onnx` and `numpy`; `onnxruntime` optional):

    python3 -m venv /tmp/onnxvenv
    /tmp/onnxvenv/bin/pip install onnx numpy onnxruntime
    /tmp/onnxvenv/bin/python formats/tests/data/conv/make_fixtures.py

For each model NAME, this writes, beside this script:

* `NAME.onnx`: the model (float64 weights and input, opset 13 unless noted; the weights are
  seeded random multiples of 1/64 and of small primes' reciprocals, so that rounding matters);
* `NAME.input.npy`: one input of shape (C, H, W) (the ONNX input without its batch dimension);
* `NAME.expected.npy`: the output of shape (M, OH, OW), computed here by `conv2d_reference`,
  an independent float64 loop convolution that sums in the order K-NN's `conv2d` rule states
  (input channel, kernel row, kernel column, from 0.0; a padding tap reads 0.0; the bias last),
  so that knn's results agree with it bit for bit;
* for `conv_relu_conv_f32` (a float32 model), `NAME.onnxruntime.npy`: onnxruntime's float32
  output, when onnxruntime is installed (knn computes in binary64: the test compares the
  arg-max class, not bits).

The script is deterministic: running it again rewrites the same bytes.
"""

import math
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def same_pads(size, kernel, stride, dilation, upper):
    """The (begin, end) pads ONNX's auto_pad SAME_UPPER / SAME_LOWER give one axis."""
    out = math.ceil(size / stride)
    total = max(0, (out - 1) * stride + (kernel - 1) * dilation + 1 - size)
    small, large = total // 2, total - total // 2
    return (small, large) if upper else (large, small)


def conv2d_reference(x, w, b, strides, pads, dilations, group):
    """Float64 convolution, one scalar operation at a time, in K-NN's order."""
    c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    sh, sw = strides
    top, left, bottom, right = pads
    dh, dw = dilations
    oh = (h + top + bottom - (dh * (kh - 1) + 1)) // sh + 1
    ow = (wd + left + right - (dw * (kw - 1) + 1)) // sw + 1
    y = np.zeros((m, oh, ow), dtype=np.float64)
    per_group = m // group
    for o in range(m):
        g = o // per_group
        for i in range(oh):
            for j in range(ow):
                s = 0.0
                for cc in range(cg):
                    channel = g * cg + cc
                    for ki in range(kh):
                        for kj in range(kw):
                            r = i * sh - top + ki * dh
                            q = j * sw - left + kj * dw
                            v = float(x[channel, r, q]) if 0 <= r < h and 0 <= q < wd else 0.0
                            s = s + v * float(w[o, cc, ki, kj])
                if b is not None:
                    s = s + float(b[o])
                y[o, i, j] = s
    return y


def values(rng, shape):
    """Seeded values with many significant bits: k/64 + k'/7 for small integers k, k'."""
    a = rng.integers(-96, 97, size=shape) / 64.0
    return a + rng.integers(-3, 4, size=shape) / 7.0


class Model:
    def __init__(self, name, channels, height, width, dtype=np.float64, batch=1, opset=13):
        self.name, self.dtype, self.opset = name, dtype, opset
        self.shape = (channels, height, width)
        self.batch = batch
        self.nodes, self.inits, self.layers = [], [], []
        self.current = "input"
        self.count = 0

    def conv(self, m, kh, kw, strides=(1, 1), pads=None, dilations=(1, 1), group=1, bias=True, auto_pad=None,
             kernel_shape=True, rng=None):
        k = self.count
        self.count += 1
        c = self.layers[-1]["out"][0] if self.layers else self.shape[0]
        w = values(rng, (m, c // group, kh, kw)).astype(self.dtype)
        b = values(rng, (m,)).astype(self.dtype) if bias else None
        self.inits.append(numpy_helper.from_array(w, f"W{k}"))
        inputs = [self.current, f"W{k}"]
        if bias:
            self.inits.append(numpy_helper.from_array(b, f"B{k}"))
            inputs.append(f"B{k}")
        attrs = {}
        if strides != (1, 1):
            attrs["strides"] = list(strides)
        if dilations != (1, 1):
            attrs["dilations"] = list(dilations)
        if group != 1:
            attrs["group"] = group
        if kernel_shape:
            attrs["kernel_shape"] = [kh, kw]
        if auto_pad is not None:
            attrs["auto_pad"] = auto_pad
        if pads is not None:
            attrs["pads"] = list(pads)
        out = f"conv{k}"
        self.nodes.append(helper.make_node("Conv", inputs, [out], name=f"conv{k}", **attrs))
        self.current = out
        h, wd = self.layers[-1]["out"][1:] if self.layers else self.shape[1:]
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            upper = auto_pad == "SAME_UPPER"
            (t, bt) = same_pads(h, kh, strides[0], dilations[0], upper)
            (l, r) = same_pads(wd, kw, strides[1], dilations[1], upper)
            explicit = (t, l, bt, r)
        else:
            explicit = tuple(pads) if pads is not None else (0, 0, 0, 0)
        oh = (h + explicit[0] + explicit[2] - (dilations[0] * (kh - 1) + 1)) // strides[0] + 1
        ow = (wd + explicit[1] + explicit[3] - (dilations[1] * (kw - 1) + 1)) // strides[1] + 1
        self.layers.append(dict(kind="conv", w=w, b=b, strides=strides, pads=explicit, dilations=dilations,
                                group=group, out=(m, oh, ow)))

    def relu(self):
        out = f"relu{len(self.nodes)}"
        self.nodes.append(helper.make_node("Relu", [self.current], [out], name=out))
        self.current = out
        self.layers.append(dict(kind="relu", out=self.layers[-1]["out"]))

    def save(self, rng):
        elem = TensorProto.DOUBLE if self.dtype == np.float64 else TensorProto.FLOAT
        batch = self.batch
        x_info = helper.make_tensor_value_info("input", elem, [batch, *self.shape])
        out_shape = self.layers[-1]["out"]
        y_info = helper.make_tensor_value_info("output", elem, [batch, *out_shape])
        self.nodes.append(helper.make_node("Identity", [self.current], ["output"], name="output"))
        graph = helper.make_graph(self.nodes, self.name, [x_info], [y_info], self.inits)
        model = helper.make_model(graph, producer_name="make_fixtures.py",
                                  opset_imports=[helper.make_opsetid("", self.opset)])
        model.ir_version = 7
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(HERE, f"{self.name}.onnx"))
        x = values(rng, self.shape).astype(self.dtype)
        np.save(os.path.join(HERE, f"{self.name}.input.npy"), x)
        y = x.astype(np.float64)
        for layer in self.layers:
            if layer["kind"] == "conv":
                y = conv2d_reference(y, layer["w"].astype(np.float64),
                                     None if layer["b"] is None else layer["b"].astype(np.float64),
                                     layer["strides"], layer["pads"], layer["dilations"], layer["group"])
            else:
                y = np.where(y > 0.0, y, 0.0)  # K-NN's relu: x > 0.0 ? x : 0.0
        np.save(os.path.join(HERE, f"{self.name}.expected.npy"), y)
        return model, x, y


def main():
    rng = np.random.default_rng(29)
    made = []

    m = Model("conv_stride2_pads", 2, 7, 6)
    m.conv(3, 3, 3, strides=(2, 2), pads=(1, 0, 2, 1), rng=rng)
    made.append(m.save(rng))

    m = Model("conv_dilation", 2, 7, 7, opset=9)
    m.conv(2, 3, 2, dilations=(2, 3), pads=(1, 1, 1, 1), rng=rng)
    made.append(m.save(rng))

    m = Model("conv_group2_nobias", 4, 5, 5, opset=11)
    m.conv(6, 2, 3, group=2, bias=False, kernel_shape=False, rng=rng)
    made.append(m.save(rng))

    m = Model("conv_same_upper", 3, 6, 5, opset=21)
    m.conv(2, 4, 3, strides=(2, 1), auto_pad="SAME_UPPER", rng=rng)
    made.append(m.save(rng))

    m = Model("conv_same_lower", 1, 5, 6)
    m.conv(2, 2, 3, strides=(1, 2), dilations=(2, 1), auto_pad="SAME_LOWER", rng=rng)
    made.append(m.save(rng))

    m = Model("conv_valid", 2, 6, 6, opset=17)
    m.conv(2, 3, 3, strides=(2, 2), auto_pad="VALID", rng=rng)
    made.append(m.save(rng))

    m = Model("conv_relu_conv", 2, 8, 8)
    m.conv(4, 3, 3, pads=(1, 1, 1, 1), rng=rng)
    m.relu()
    m.conv(3, 3, 3, strides=(2, 2), rng=rng)
    made.append(m.save(rng))

    m = Model("conv_batch_symbolic", 1, 5, 5, batch="N")
    m.conv(2, 3, 3, pads=(1, 1, 1, 1), rng=rng)
    m.relu()
    made.append(m.save(rng))

    # A float32 model: knn widens the weights exactly and computes in binary64; onnxruntime
    # computes in float32. The classes (the arg-max of the flattened output) agree.
    m = Model("conv_relu_conv_f32", 3, 9, 9, dtype=np.float32)
    m.conv(4, 3, 3, strides=(2, 2), pads=(1, 1, 1, 1), rng=rng)
    m.relu()
    m.conv(5, 3, 3, rng=rng)
    model, x, expected = m.save(rng)
    try:
        import onnxruntime
    except ImportError:
        print("onnxruntime is not installed: conv_relu_conv_f32.onnxruntime.npy not written")
    else:
        session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        (y,) = session.run(None, {"input": x[None]})
        np.save(os.path.join(HERE, "conv_relu_conv_f32.onnxruntime.npy"), y[0])
        # onnxruntime has no float64 Conv: the reference is checked against it on this model,
        # within float32 rounding.
        assert np.allclose(y[0], expected, rtol=1e-5, atol=1e-5)
        print("onnxruntime agrees with the reference within float32 rounding")


if __name__ == "__main__":
    main()
