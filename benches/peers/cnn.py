"""The small MNIST CNN of `cargo bench -p knn-benches --bench cnn` in onnxruntime, timed at the
same batch sizes and thread counts (issue 29, point 2).

The weights and images come from the stream of `benches/src/lib.rs` (`Weights`), seeded as the
bench seeds it, so the model is the same float64 model: conv2d 1→32 (2×2, stride 1, bias) on
1×28×28, relu, a 4×4 pool of stride 4 (max, or avg), flatten, linear 1152→10 with its bias,
ArgMax.

onnxruntime's CPU provider has no float64 `Conv` and no float64 `AveragePool` (it refuses the
session: NOT_IMPLEMENTED), so the float64 model writes them with float64 operators: the
convolution as the four shifted slices of the image, concatenated, times the 4×32 kernel matrix
(`MatMul`: im2col); the average pool as `ReduceMean` over 4×4 blocks. The max pool is
onnxruntime's own `MaxPool`. For comparison, the float32 model with onnxruntime's own `Conv` and
pools is timed too (not the same arithmetic: float32).

The CIFAR-sized CNN (`benches/src/cifar_cnn.rs`: 3×32×32, conv 3→16 and 16→32, 4×4 at stride 2,
each with relu; linear 1152→100, relu, 100→10) is built the same way: each float64 convolution
as im2col (its sixteen strided slices, concatenated, times the kernel matrix).

verivital's two MNIST CNNs themselves (VNN-COMP 2021, `data/verivital/Convnet_maxpool.onnx` and
`Convnet_avgpool.onnx`: float32 Conv 32×2×2, Relu, MaxPool 4×4 stride 4, or a Pad then
AveragePool 4×4 stride 4, Flatten, Gemm 1152→10 with transB) have the small CNN's architecture:
their weights are read from the files with `onnx.numpy_helper`, widened to float64 (exactly, as
`knn import` widens them) and put in the same float64 twin. The avgpool file's Pad adds zero
rows and columns on no side (all its pads are 0): a no-op, left out (the script checks it is).
They take the small CNN's seeded images. For scale, the original float32 files are timed as
they are, with only their batch dimension (fixed at 1 in the files) made free; they end in the
logits, whose `argmax` gives the printed classes.

Prints the classes of images 0..64 (the bench prints knn's), then one line per point.

Usage: cnn.py [SECONDS_PER_POINT [MODEL]] (MODEL: max, avg, cifar, verivital-max or verivital-avg)
"""

import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

# The same session options and the same measure as the MLP peer.
from compare import best_time, session

WEIGHT_SEED, IMAGE_SEED = 29, 2029
KERNELS, SIDE, POOL, FEATURES, CLASSES = 32, 2, 4, 1152, 10
BATCHES = (1, 64, 4096)
THREADS = (1, 2)
MASK = (1 << 64) - 1


class Weights:
    """`benches/src/lib.rs`'s `Weights`: an LCG, each value `((state >> 11) / 2^53 * 2 - 1) * scale`."""

    def __init__(self, state: int):
        self.state = state

    def take(self, n: int, scale: float) -> np.ndarray:
        out = np.empty(n)
        state = self.state
        for k in range(n):
            state = (state * 6364136223846793005 + 1442695040888963407) & MASK
            out[k] = ((state >> 11) / float(1 << 53) * 2.0 - 1.0) * scale
        self.state = state
        return out


def model_weights():
    stream = Weights(WEIGHT_SEED)
    kernels = stream.take(KERNELS * SIDE * SIDE, 0.5).reshape(KERNELS, 1, SIDE, SIDE)
    kernel_bias = stream.take(KERNELS, 0.1)
    dense = stream.take(CLASSES * FEATURES, 1.0 / np.sqrt(FEATURES)).reshape(CLASSES, FEATURES)
    dense_bias = stream.take(CLASSES, 0.1)
    return kernels, kernel_bias, dense, dense_bias


def images(count: int) -> np.ndarray:
    values = Weights(IMAGE_SEED).take(count * 28 * 28, 1.0)
    return ((values + 1.0) * 0.5).reshape(count, 1, 28, 28)


def const(name: str, values, initializers):
    initializers.append(numpy_helper.from_array(np.asarray(values), name))
    return name


def float64_model(pool: str, weights) -> bytes:
    kernels, kernel_bias, dense, dense_bias = weights
    nodes, inits = [], []
    # im2col: tap (ki, kj) of every output position is the slice x[:, :, ki:ki+27, kj:kj+27].
    taps = []
    for ki in range(SIDE):
        for kj in range(SIDE):
            starts = const(f"s{ki}{kj}", np.array([ki, kj], dtype=np.int64), inits)
            ends = const(f"e{ki}{kj}", np.array([ki + 27, kj + 27], dtype=np.int64), inits)
            axes = const(f"a{ki}{kj}", np.array([2, 3], dtype=np.int64), inits)
            nodes.append(helper.make_node("Slice", ["x", starts, ends, axes], [f"t{ki}{kj}"]))
            taps.append(f"t{ki}{kj}")
    nodes.append(helper.make_node("Concat", taps, ["cols"], axis=1))  # N×4×27×27, taps in kernel order
    nodes.append(helper.make_node("Transpose", ["cols"], ["nhwc"], perm=[0, 2, 3, 1]))
    wk = const("wk", kernels.reshape(KERNELS, SIDE * SIDE).T.copy(), inits)  # 4×32
    nodes.append(helper.make_node("MatMul", ["nhwc", wk], ["conv"]))
    nodes.append(helper.make_node("Add", ["conv", const("bk", kernel_bias, inits)], ["biased"]))
    nodes.append(helper.make_node("Relu", ["biased"], ["relu"]))  # N×27×27×32
    if pool == "max":
        nodes.append(helper.make_node("Transpose", ["relu"], ["nchw"], perm=[0, 3, 1, 2]))
        nodes.append(helper.make_node("MaxPool", ["nchw"], ["pooled"], kernel_shape=[POOL, POOL], strides=[POOL, POOL]))
    else:
        starts = const("ps", np.array([0, 0], dtype=np.int64), inits)
        ends = const("pe", np.array([24, 24], dtype=np.int64), inits)
        axes = const("pa", np.array([1, 2], dtype=np.int64), inits)
        nodes.append(helper.make_node("Slice", ["relu", starts, ends, axes], ["cut"]))
        shape = const("blocks", np.array([-1, 6, POOL, 6, POOL, KERNELS], dtype=np.int64), inits)
        nodes.append(helper.make_node("Reshape", ["cut", shape], ["blocked"]))
        nodes.append(helper.make_node("ReduceMean", ["blocked"], ["mean"], axes=[2, 4], keepdims=0))
        nodes.append(helper.make_node("Transpose", ["mean"], ["pooled"], perm=[0, 3, 1, 2]))
    nodes.append(helper.make_node("Flatten", ["pooled"], ["features"], axis=1))  # C, H, W order
    nodes.append(helper.make_node("MatMul", ["features", const("wd", dense.T.copy(), inits)], ["logits0"]))
    nodes.append(helper.make_node("Add", ["logits0", const("bd", dense_bias, inits)], ["logits"]))
    nodes.append(helper.make_node("ArgMax", ["logits"], ["class"], axis=1, keepdims=0))
    return finish(nodes, inits, TensorProto.DOUBLE)


def float32_model(pool: str, weights) -> bytes:
    kernels, kernel_bias, dense, dense_bias = (np.asarray(w, dtype=np.float32) for w in weights)
    nodes, inits = [], []
    nodes.append(helper.make_node("Conv", ["x", const("w", kernels, inits), const("b", kernel_bias, inits)], ["conv"]))
    nodes.append(helper.make_node("Relu", ["conv"], ["relu"]))
    op = "MaxPool" if pool == "max" else "AveragePool"
    nodes.append(helper.make_node(op, ["relu"], ["pooled"], kernel_shape=[POOL, POOL], strides=[POOL, POOL]))
    nodes.append(helper.make_node("Flatten", ["pooled"], ["features"], axis=1))
    nodes.append(helper.make_node("MatMul", ["features", const("wd", dense.T.copy(), inits)], ["logits0"]))
    nodes.append(helper.make_node("Add", ["logits0", const("bd", dense_bias, inits)], ["logits"]))
    nodes.append(helper.make_node("ArgMax", ["logits"], ["class"], axis=1, keepdims=0))
    return finish(nodes, inits, TensorProto.FLOAT)


CIFAR_WEIGHT_SEED, CIFAR_IMAGE_SEED = 31, 2031
CIFAR_CONVS = ((16, 3, 4), (32, 16, 4))  # output channels, input channels, kernel side
CIFAR_STRIDE, CIFAR_HIDDEN = 2, 100


def cifar_weights():
    """`CifarCnn::seeded`: each convolution's kernels then bias, each dense layer's weights then bias."""
    stream = Weights(CIFAR_WEIGHT_SEED)
    convs = []
    for m, c, k in CIFAR_CONVS:
        kernels = stream.take(m * c * k * k, 1.0 / np.sqrt(c * k * k)).reshape(m, c, k, k)
        convs.append((kernels, stream.take(m, 0.1)))
    dense = []
    for rows, cols in ((CIFAR_HIDDEN, FEATURES), (CLASSES, CIFAR_HIDDEN)):
        dense.append((stream.take(rows * cols, 1.0 / np.sqrt(cols)).reshape(rows, cols), stream.take(rows, 0.1)))
    return convs, dense


def cifar_images(count: int) -> np.ndarray:
    values = Weights(CIFAR_IMAGE_SEED).take(count * 3 * 32 * 32, 1.0)
    return ((values + 1.0) * 0.5).reshape(count, 3, 32, 32)


def im2col_conv(nodes, inits, x: str, side: int, kernels, bias, stride: int, out: str) -> int:
    """A float64 convolution without `Conv` (NCHW in, NCHW out, no padding): the K·K strided
    slices of `x`, concatenated along the channels (tap-major), moved last, times the kernel
    matrix, plus the bias. Returns the output side."""
    m, c, k, _ = kernels.shape
    o = (side - k) // stride + 1
    taps = []
    for ki in range(k):
        for kj in range(k):
            tag = f"{out}_{ki}_{kj}"
            starts = const(f"{tag}_s", np.array([ki, kj], dtype=np.int64), inits)
            ends = const(f"{tag}_e", np.array([ki + stride * (o - 1) + 1, kj + stride * (o - 1) + 1], dtype=np.int64), inits)
            axes = const(f"{tag}_a", np.array([2, 3], dtype=np.int64), inits)
            steps = const(f"{tag}_st", np.array([stride, stride], dtype=np.int64), inits)
            nodes.append(helper.make_node("Slice", [x, starts, ends, axes, steps], [tag]))
            taps.append(tag)
    nodes.append(helper.make_node("Concat", taps, [f"{out}_cols"], axis=1))  # N×(K·K·C)×O×O, tap-major
    nodes.append(helper.make_node("Transpose", [f"{out}_cols"], [f"{out}_nhwc"], perm=[0, 2, 3, 1]))
    matrix = kernels.transpose(2, 3, 1, 0).reshape(k * k * c, m).copy()  # row (ki, kj, c)
    nodes.append(helper.make_node("MatMul", [f"{out}_nhwc", const(f"{out}_w", matrix, inits)], [f"{out}_p"]))
    nodes.append(helper.make_node("Add", [f"{out}_p", const(f"{out}_b", bias, inits)], [f"{out}_nhwc_b"]))
    nodes.append(helper.make_node("Transpose", [f"{out}_nhwc_b"], [out], perm=[0, 3, 1, 2]))
    return o


def cifar_model(precision: str, weights) -> bytes:
    convs, dense = weights
    dtype = np.float64 if precision == "f64" else np.float32
    nodes, inits, x, side = [], [], "x", 32
    for n, (kernels, bias) in enumerate(convs):
        kernels, bias = kernels.astype(dtype), bias.astype(dtype)
        if precision == "f64":
            side = im2col_conv(nodes, inits, x, side, kernels, bias, CIFAR_STRIDE, f"c{n}")
        else:
            strides = [CIFAR_STRIDE, CIFAR_STRIDE]
            conv_inputs = [x, const(f"w{n}", kernels, inits), const(f"b{n}", bias, inits)]
            nodes.append(helper.make_node("Conv", conv_inputs, [f"c{n}"], strides=strides))
        nodes.append(helper.make_node("Relu", [f"c{n}"], [f"r{n}"]))
        x = f"r{n}"
    nodes.append(helper.make_node("Flatten", [x], ["f"], axis=1))
    for n, (w, b) in enumerate(dense):
        nodes.append(helper.make_node("MatMul", ["f" if n == 0 else "a", const(f"d{n}", w.T.astype(dtype).copy(), inits)], [f"m{n}"]))
        nodes.append(helper.make_node("Add", [f"m{n}", const(f"db{n}", b.astype(dtype), inits)], ["h" if n == 0 else "logits"]))
        if n == 0:
            nodes.append(helper.make_node("Relu", ["h"], ["a"]))
    nodes.append(helper.make_node("ArgMax", ["logits"], ["class"], axis=1, keepdims=0))
    return finish(nodes, inits, TensorProto.DOUBLE if precision == "f64" else TensorProto.FLOAT, [3, 32, 32])


VERIVITAL = {
    "verivital-max": ("max", "Convnet_maxpool.onnx"),
    "verivital-avg": ("avg", "Convnet_avgpool.onnx"),
}
DATA = Path(__file__).resolve().parents[2] / "data" / "verivital"


def verivital_weights(file: str):
    """The file's Conv and Gemm weights as float64 (float32 widens exactly), in `model_weights`'
    order and shapes, after checking the graph is the one the twin rebuilds."""
    model = onnx.load(DATA / file)
    ops = [node.op_type for node in model.graph.node]
    pooled = ["MaxPool"] if "MaxPool" in ops else ["Pad", "AveragePool"]
    assert ops == ["Conv", "Relu", *pooled, "Flatten", "Gemm"], ops
    for node in model.graph.node:
        attributes = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        if node.op_type == "Conv":
            assert attributes["strides"] == [1, 1] and attributes["pads"] == [0] * 4, attributes
            assert attributes["dilations"] == [1, 1] and attributes["group"] == 1, attributes
        if node.op_type == "Pad":  # all zero: the tensor as it is
            assert attributes["pads"] == [0] * 8 and attributes.get("mode", b"constant") == b"constant", attributes
        if node.op_type in ("MaxPool", "AveragePool"):
            assert attributes["kernel_shape"] == [POOL, POOL] and attributes["strides"] == [POOL, POOL], attributes
            assert attributes.get("pads", [0] * 4) == [0] * 4, attributes
        if node.op_type == "Gemm":
            assert attributes == {"alpha": 1.0, "beta": 1.0, "transB": 1}, attributes
    weights = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in model.graph.initializer}
    conv = next(n for n in model.graph.node if n.op_type == "Conv")
    gemm = next(n for n in model.graph.node if n.op_type == "Gemm")
    kernels, kernel_bias = weights[conv.input[1]], weights[conv.input[2]]
    dense, dense_bias = weights[gemm.input[1]], weights[gemm.input[2]]
    assert kernels.shape == (KERNELS, 1, SIDE, SIDE) and dense.shape == (CLASSES, FEATURES), (kernels.shape, dense.shape)
    return kernels, kernel_bias, dense, dense_bias


def verivital_float32(file: str) -> bytes:
    """The original float32 file with its batch dimension free (the file fixes it at 1)."""
    model = onnx.load(DATA / file)
    for value in (*model.graph.input, *model.graph.output):
        value.type.tensor_type.shape.dim[0].dim_param = "N"
    onnx.checker.check_model(model)
    return model.SerializeToString()


def finish(nodes, inits, dtype, image=(1, 28, 28)) -> bytes:
    graph = helper.make_graph(
        nodes,
        "cnn",
        [helper.make_tensor_value_info("x", dtype, ["N", *image])],
        [helper.make_tensor_value_info("class", TensorProto.INT64, ["N"])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model)
    return model.SerializeToString()


def main() -> int:
    budget = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    only_model = sys.argv[2] if len(sys.argv) > 2 else None
    weights = model_weights()
    x64 = images(max(BATCHES))
    print(f"onnxruntime {ort.__version__}, numpy {np.__version__}")
    cifar, c64 = cifar_weights(), cifar_images(max(BATCHES))
    models = []
    for pool in ("max", "avg"):
        for precision, build, x in (("f64", float64_model, x64), ("f32", float32_model, x64.astype(np.float32))):
            models.append((pool, precision, build(pool, weights), x))
    for precision, x in (("f64", c64), ("f32", c64.astype(np.float32))):
        models.append(("cifar", precision, cifar_model(precision, cifar), x))
    for name, (pool, file) in VERIVITAL.items():
        models.append((name, "f64", float64_model(pool, verivital_weights(file)), x64))
        models.append((name, "f32", verivital_float32(file), x64.astype(np.float32)))
    for name, precision, model, x in models:
        if only_model is not None and name != only_model:
            continue
        runner = session(model, 1)
        feed = runner.get_inputs()[0].name  # `x`, or the original files' `input`
        classes = runner.run(None, {feed: x[:64]})[0]
        if classes.ndim == 2:  # an original file's logits
            classes = classes.argmax(axis=1)
        print(f"cnn/{name} {precision}: classes of images 0..64: {''.join(str(int(c)) for c in classes)}")
        for threads in THREADS:
            runner = session(model, threads)
            for batch in BATCHES:
                rows = np.ascontiguousarray(x[:batch])
                seconds = best_time(lambda: runner.run(None, {feed: rows}), budget)
                print(f"cnn/{name} {precision} threads {threads} batch {batch:>4}: {batch / seconds:>12,.0f} images/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
