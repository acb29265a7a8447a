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

Prints the classes of images 0..64 (the bench prints knn's), then one line per point.

Usage: cnn.py [SECONDS_PER_POINT]
"""

import sys

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


def finish(nodes, inits, dtype) -> bytes:
    graph = helper.make_graph(
        nodes,
        "cnn",
        [helper.make_tensor_value_info("x", dtype, ["N", 1, 28, 28])],
        [helper.make_tensor_value_info("class", TensorProto.INT64, ["N"])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model)
    return model.SerializeToString()


def main() -> int:
    budget = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    weights = model_weights()
    x64 = images(max(BATCHES))
    print(f"onnxruntime {ort.__version__}, numpy {np.__version__}")
    for pool in ("max", "avg"):
        for precision, build, x in (("f64", float64_model, x64), ("f32", float32_model, x64.astype(np.float32))):
            model = build(pool, weights)
            classes = session(model, 1).run(None, {"x": x[:64]})[0]
            print(f"cnn/{pool} {precision}: classes of images 0..64: {''.join(str(int(c)) for c in classes)}")
            for threads in THREADS:
                runner = session(model, threads)
                for batch in BATCHES:
                    rows = np.ascontiguousarray(x[:batch])
                    seconds = best_time(lambda: runner.run(None, {"x": rows}), budget)
                    print(f"cnn/{pool} {precision} threads {threads} batch {batch:>4}: {batch / seconds:>12,.0f} images/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
