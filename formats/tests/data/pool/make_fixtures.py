#!/usr/bin/env python3
"""Makes the ONNX pooling, reshaping, transposing and padding fixtures of formats/tests/import_pool.rs (part
of knn; the project's licence).

How they were made (any Python 3 with PyPI's `onnx` and `numpy`; `onnxruntime` optional):

    /tmp/onnxvenv/bin/python formats/tests/data/pool/make_fixtures.py

For each model NAME, this writes, beside this script:

* `NAME.onnx`: the model (float64 weights and input; the opset noted per model, 9 to 21);
* `NAME.input.npy`: one input of shape (C, H, W) (the ONNX input without its batch dimension);
* `NAME.expected.npy`: the output (without its batch dimension), computed here by float64
  loops that work in the order K-NN's rules state (docs/language.md): `conv2d` as in
  ../conv/make_fixtures.py; a max pool from -inf, `max` tap by tap in row-major window order
  over the taps inside the image, the earlier kept on a tie; an average pool adding the taps
  inside the image to 0.0 in that order, then dividing (not multiplying by a reciprocal) by
  the whole window (count_include_pad = 1) or by the taps inside (0); `Pad` as NumPy's
  `np.pad` with zeros, the padded elements then read as elements (so that the test shows the
  importer's folding of the padding into the next node's pads changes no bit); `Gemm` as
  `((0.0 + w0*x0) + w1*x1) + …` then the bias.

When onnxruntime is installed, every model is also run by it in float32 (the model's tensors
cast to float32; onnxruntime has no float64 pools) and the reference is checked against it
within float32 rounding: the loops implement ONNX's operators, not only K-NN's reading of them.

The script is deterministic: running it again rewrites the same bytes.
"""

import importlib.util
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("conv_fixtures", os.path.join(HERE, "..", "conv", "make_fixtures.py"))
conv_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(conv_fixtures)
conv2d_reference, same_pads, values = conv_fixtures.conv2d_reference, conv_fixtures.same_pads, conv_fixtures.values


def pool_reference(x, kind, kernel, strides, pads, dilations=(1, 1), count_pad=False):
    """Float64 pool, one scalar operation at a time, in K-NN's order (padding taps skipped)."""
    c, h, w = x.shape
    kh, kw = kernel
    sh, sw = strides
    top, left, bottom, right = pads
    dh, dw = dilations
    oh = (h + top + bottom - (dh * (kh - 1) + 1)) // sh + 1
    ow = (w + left + right - (dw * (kw - 1) + 1)) // sw + 1
    y = np.zeros((c, oh, ow), dtype=np.float64)
    for ch in range(c):
        for i in range(oh):
            for j in range(ow):
                acc = -np.inf if kind == "max" else 0.0
                inside = 0
                for ki in range(kh):
                    for kj in range(kw):
                        r = i * sh - top + ki * dh
                        q = j * sw - left + kj * dw
                        if not (0 <= r < h and 0 <= q < w):
                            continue
                        v = float(x[ch, r, q])
                        inside += 1
                        if kind == "max":
                            acc = v if v > acc else acc  # a tie keeps the earlier
                        else:
                            acc = acc + v
                if kind == "avg":
                    acc = acc / float(kh * kw if count_pad else inside)
                y[ch, i, j] = acc
    return y


def gemm_reference(x, w, b):
    out = []
    for row, bias in zip(w, b):
        s = 0.0
        for wk, xk in zip(row, x):
            s = s + float(wk) * float(xk)
        out.append(s + float(bias))
    return np.array(out, dtype=np.float64)


class Model:
    """A chain of nodes from `input` (1, C, H, W) and the reference's steps beside it."""

    def __init__(self, name, channels, height, width, opset):
        self.name, self.opset = name, opset
        self.shape = (channels, height, width)
        self.nodes, self.inits, self.refs = [], [], []
        self.current, self.count = "input", 0
        self.out_shape = [1, channels, height, width]

    def node(self, op, inputs=(), out_shape=None, **attrs):
        k = self.count
        self.count += 1
        out = f"{op.lower()}{k}"
        self.nodes.append(helper.make_node(op, [self.current, *inputs], [out], name=out, **attrs))
        self.current = out
        if out_shape is not None:
            self.out_shape = out_shape
        return k

    def init(self, name, array):
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def image(self):
        return self.out_shape[1:]

    def conv(self, m, kh, kw, rng, pads=(0, 0, 0, 0)):
        c, h, w = self.image()
        wt, b = values(rng, (m, c, kh, kw)), values(rng, (m,))
        k = self.count
        oh, ow = h + pads[0] + pads[2] - kh + 1, w + pads[1] + pads[3] - kw + 1
        self.node("Conv", [self.init(f"W{k}", wt), self.init(f"B{k}", b)], [1, m, oh, ow],
                  kernel_shape=[kh, kw], pads=list(pads))
        self.refs.append(lambda y: conv2d_reference(y, wt, b, (1, 1), pads, (1, 1), 1))

    def relu(self):
        self.node("Relu")
        self.refs.append(lambda y: np.where(y > 0.0, y, 0.0))  # K-NN's relu: x > 0.0 ? x : 0.0

    def pool(self, kind, kernel, strides=(1, 1), pads=None, dilations=(1, 1), count_pad=None, auto_pad=None):
        c, h, w = self.image()
        attrs = dict(kernel_shape=list(kernel))
        if strides != (1, 1):
            attrs["strides"] = list(strides)
        if dilations != (1, 1):
            attrs["dilations"] = list(dilations)
        if pads is not None:
            attrs["pads"] = list(pads)
        if count_pad is not None:
            attrs["count_include_pad"] = count_pad
        if auto_pad is not None:
            attrs["auto_pad"] = auto_pad
            upper = auto_pad == "SAME_UPPER"
            (t, bt) = same_pads(h, kernel[0], strides[0], dilations[0], upper)
            (l, r) = same_pads(w, kernel[1], strides[1], dilations[1], upper)
            pads = (t, l, bt, r)
        pads = tuple(pads) if pads is not None else (0, 0, 0, 0)
        oh = (h + pads[0] + pads[2] - (dilations[0] * (kernel[0] - 1) + 1)) // strides[0] + 1
        ow = (w + pads[1] + pads[3] - (dilations[1] * (kernel[1] - 1) + 1)) // strides[1] + 1
        self.node("MaxPool" if kind == "max" else "AveragePool", [], [1, c, oh, ow], **attrs)
        self.refs.append(lambda y: pool_reference(y, kind, kernel, strides, pads, dilations, bool(count_pad)))

    def pad(self, pads, form):
        """Zero padding of rows and columns: `pads` = (top, left, bottom, right); `form` is
        "attribute" (opsets 2 to 10) or "input" (11 on, with a constant_value input of 0)."""
        c, h, w = self.image()
        t, l, b, r = pads
        onnx_pads = [0, 0, t, l, 0, 0, b, r]
        shape = [1, c, h + t + b, w + l + r]
        if form == "attribute":
            self.node("Pad", [], shape, pads=onnx_pads, mode="constant", value=0.0)
        else:
            k = self.count
            self.node("Pad", [self.init(f"pads{k}", np.array(onnx_pads, dtype=np.int64)),
                              self.init(f"value{k}", np.array(0.0))], shape, mode="constant")
        self.refs.append(lambda y: np.pad(y, ((0, 0), (t, b), (l, r))))

    def flatten(self, axis=1):
        shape = self.out_shape
        rows = int(np.prod(shape[:axis]))
        self.node("Flatten", [], [rows, int(np.prod(shape[axis:]))], axis=axis)
        self.refs.append(lambda y: y.reshape(-1))  # C order: the elements as they are

    def reshape(self, target, out_shape):
        k = self.count
        self.node("Reshape", [self.init(f"shape{k}", np.array(target, dtype=np.int64))], list(out_shape))
        self.refs.append(lambda y: y.reshape(out_shape[1:]))

    def transpose(self, perm):
        """ONNX Transpose of the (1, ·, ·, ·) value, the batch axis kept first."""
        assert perm[0] == 0
        self.node("Transpose", [], [self.out_shape[p] for p in perm], perm=list(perm))
        axes = [p - 1 for p in perm[1:]]
        self.refs.append(lambda y: np.ascontiguousarray(y.transpose(axes)))

    def dropout(self):
        """Dropout at inference (opsets 7 to 11: `ratio` an attribute): the identity."""
        self.node("Dropout", [], None, ratio=0.5)
        self.refs.append(lambda y: y)

    def batch_norm(self, rng, epsilon=1e-3):
        """BatchNormalization at inference, per channel; the reference folds it into x·a + b in
        float64 as the importer and onnxruntime do, a = scale · (1 / sqrt(var + ε)) (docs/importing.md)."""
        c = self.out_shape[1]
        k = self.count
        scale, bias, mean = values(rng, (c,)), values(rng, (c,)), values(rng, (c,))
        var = np.abs(values(rng, (c,))) + 0.25
        names = [self.init(f"{n}{k}", v) for n, v in
                 (("scale", scale), ("bias", bias), ("mean", mean), ("var", var))]
        self.node("BatchNormalization", names, None, epsilon=epsilon)
        eps = np.float64(np.float32(epsilon))
        a = scale * (1.0 / np.sqrt(var + eps))
        b = bias - mean * a
        self.refs.append(lambda y: y * a[:, None, None] + b[:, None, None])

    def elementwise(self, op, constants):
        """`Mul` or `Div` by one constant per channel, shape (1, C, 1, 1)."""
        c = self.out_shape[1]
        k = self.count
        v = np.array(constants, dtype=np.float64).reshape(1, c, 1, 1)
        self.node(op, [self.init(f"{'factor' if op == 'Mul' else 'divisor'}{k}", v)])
        self.refs.append((lambda y: y * v[0]) if op == "Mul" else (lambda y: y / v[0]))

    def global_pool(self, kind):
        c, h, w = self.image()
        self.node("GlobalAveragePool" if kind == "avg" else "GlobalMaxPool", [], [1, c, 1, 1])
        self.refs.append(lambda y: pool_reference(y, kind, (h, w), (1, 1), (0, 0, 0, 0)))

    def gemm(self, n, rng):
        k = self.count
        features = int(np.prod(self.out_shape))
        wt, b = values(rng, (n, features)), values(rng, (n,))
        self.node("Gemm", [self.init(f"W{k}", wt), self.init(f"B{k}", b)], [1, n], transB=1)
        self.refs.append(lambda y: gemm_reference(y.reshape(-1), wt, b))

    def save(self, rng):
        x_info = helper.make_tensor_value_info("input", TensorProto.DOUBLE, [1, *self.shape])
        y_info = helper.make_tensor_value_info("output", TensorProto.DOUBLE, self.out_shape)
        self.nodes[-1].output[0] = "output"
        graph = helper.make_graph(self.nodes, self.name, [x_info], [y_info], self.inits)
        model = helper.make_model(graph, producer_name="make_fixtures.py",
                                  opset_imports=[helper.make_opsetid("", self.opset)])
        model.ir_version = 7
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(HERE, f"{self.name}.onnx"))
        x = values(rng, self.shape)
        np.save(os.path.join(HERE, f"{self.name}.input.npy"), x)
        y = x
        for ref in self.refs:
            y = ref(y)
        expected_shape = tuple(d for d in self.out_shape[1:]) if len(self.out_shape) > 2 else (self.out_shape[-1],)
        y = y.reshape(expected_shape)
        np.save(os.path.join(HERE, f"{self.name}.expected.npy"), y)
        check_with_onnxruntime(model, x, y)
        return model, x, y


def as_float32(model):
    m = onnx.ModelProto()
    m.CopyFrom(model)
    for t in m.graph.initializer:
        if t.data_type == TensorProto.DOUBLE:
            t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(t).astype(np.float32), t.name))
    for v in [*m.graph.input, *m.graph.output]:
        v.type.tensor_type.elem_type = TensorProto.FLOAT
    return m


def check_with_onnxruntime(model, x, expected, float64=False):
    """In float32 within its rounding; with `float64`, the model as it is, bit for bit."""
    try:
        import onnxruntime
    except ImportError:
        return
    session = onnxruntime.InferenceSession((model if float64 else as_float32(model)).SerializeToString(),
                                           providers=["CPUExecutionProvider"])
    (y,) = session.run(None, {"input": x[None] if float64 else x[None].astype(np.float32)})
    y = y.reshape(expected.shape)
    if float64:
        assert (y.view(np.uint64) == expected.view(np.uint64)).all(), (model.graph.name, y - expected)
    assert np.allclose(y, expected, rtol=1e-5, atol=1e-5), (model.graph.name, y, expected)


def main():
    rng = np.random.default_rng(31)

    m = Model("maxpool_stride", 2, 7, 7, opset=9)
    m.pool("max", (3, 3), strides=(2, 2))
    m.save(rng)

    m = Model("maxpool_pads_dilation", 2, 8, 7, opset=12)
    m.pool("max", (2, 3), strides=(1, 2), pads=(1, 0, 1, 2), dilations=(2, 1))
    m.save(rng)

    m = Model("maxpool_same_upper", 1, 6, 5, opset=11)
    m.pool("max", (3, 3), strides=(2, 2), auto_pad="SAME_UPPER")
    m.save(rng)

    m = Model("avgpool_stride", 2, 6, 6, opset=9)
    m.pool("avg", (2, 2), strides=(2, 2))
    m.save(rng)

    m = Model("avgpool_pads_count0", 2, 7, 6, opset=19)
    m.pool("avg", (3, 3), strides=(2, 2), pads=(1, 1, 1, 0), count_pad=0)
    m.save(rng)

    m = Model("avgpool_pads_count1", 2, 7, 6, opset=11)
    m.pool("avg", (3, 3), strides=(2, 2), pads=(1, 1, 1, 0), count_pad=1)
    m.save(rng)

    m = Model("avgpool_same_lower", 1, 5, 6, opset=21)
    m.pool("avg", (2, 3), auto_pad="SAME_LOWER")
    m.save(rng)

    # Reshape with 0 and -1 entries to (1, M, OH·OW), written as K-NN's `reshape`, then
    # Flatten (axis 1) to a vector, K-NN's `flatten`.
    m = Model("conv_reshape_flatten", 2, 5, 5, opset=13)
    m.conv(3, 2, 2, rng)
    m.reshape([0, 0, -1], (1, 3, 16))
    m.flatten()
    m.save(rng)

    # Zero padding folded into the next node's pads: a Conv's (opset 13: pads and
    # constant_value as inputs), an AveragePool's with count_include_pad = 1 (opset 9: pads an
    # attribute); a Pad of zeros is nothing (as in VNN-COMP's verivital network).
    m = Model("pad_conv", 2, 5, 6, opset=13)
    m.pad((1, 0, 2, 1), "input")
    m.conv(2, 3, 2, rng, pads=(0, 1, 1, 0))
    m.save(rng)

    m = Model("pad_avgpool", 2, 6, 5, opset=9)
    m.pad((1, 2, 0, 1), "attribute")
    m.pool("avg", (3, 2), strides=(2, 1), pads=(1, 0, 0, 1), count_pad=1)
    m.save(rng)

    m = Model("pad_zero_maxpool", 2, 6, 6, opset=9)
    m.pad((0, 0, 0, 0), "attribute")
    m.pool("max", (2, 2), strides=(2, 2))
    m.save(rng)

    # The verivital benchmark's shape: Conv → Relu → MaxPool → Flatten → Gemm.
    m = Model("conv_relu_maxpool_gemm", 1, 9, 9, opset=9)
    m.conv(4, 2, 2, rng)
    m.relu()
    m.pool("max", (2, 2), strides=(2, 2))
    m.flatten()
    m.gemm(5, rng)
    m.save(rng)

    m = Model("conv_relu_avgpool_gemm", 1, 9, 9, opset=9)
    m.conv(4, 2, 2, rng)
    m.relu()
    m.pool("avg", (2, 2), strides=(2, 2))
    m.flatten()
    m.gemm(5, rng)
    m.save(rng)

    # A channels-last image (1, H, W, C), as TensorFlow exports them (VNN-COMP's
    # marabou-cifar10): Transpose to (1, C, H, W), Conv, Relu, Transpose back to channels last,
    # Reshape to a row, Gemm.
    m = Model("transpose_channels_last", 5, 6, 3, opset=13)
    m.transpose((0, 3, 1, 2))
    m.conv(4, 3, 3, rng)
    m.relu()
    m.transpose((0, 2, 3, 1))
    m.reshape([1, -1], (1, 48))
    m.gemm(5, rng)
    m.save(rng)

    # Dropout between the convolutions and the dense layer (VNN-COMP's collins_rul_cnn).
    m = Model("conv_dropout_gemm", 2, 5, 5, opset=9)
    m.conv(3, 2, 2, rng)
    m.relu()
    m.dropout()
    m.flatten()
    m.gemm(4, rng)
    m.save(rng)

    # A PyTorch-style block: Conv, BatchNormalization, Relu, a scaling by constants (Mul, and
    # Div by powers of two), GlobalAveragePool, Flatten, Gemm; and a GlobalMaxPool.
    m = Model("conv_bn_scale_globalpool_gemm", 2, 5, 4, opset=13)
    m.conv(3, 2, 2, rng)
    m.batch_norm(rng)
    m.relu()
    m.elementwise("Mul", [1.5, -0.75, 3.0])
    m.elementwise("Div", [2.0, 0.25, 8.0])
    m.global_pool("avg")
    m.flatten()
    m.gemm(4, rng)
    m.save(rng)

    m = Model("globalmaxpool", 3, 4, 5, opset=9)
    m.global_pool("max")
    m.flatten()
    m.save(rng)

    # BatchNormalization alone, its parameters spread over orders of magnitude: the folded
    # reference is onnxruntime's float64 output bit for bit (checked below when it is
    # installed), not only within float32 rounding.
    m = Model("batch_norm_float64", 4, 6, 5, opset=15)
    m.batch_norm(rng, epsilon=1e-5)
    m.flatten()
    model, x, y = m.save(rng)
    check_with_onnxruntime(model, x, y, float64=True)
    # No window operator reads it as an image: the program's input is the vector of its
    # elements in row-major order.
    np.save(os.path.join(HERE, "batch_norm_float64.input.npy"), x.reshape(-1))
    print("fixtures written")


if __name__ == "__main__":
    main()
