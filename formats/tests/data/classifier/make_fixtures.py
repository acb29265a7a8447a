#!/usr/bin/env python3
"""Makes the ONNX classifier fixtures of formats/tests/import_classifier.rs (part of knn; the
project's licence): `Softmax`, `LogSoftmax` (opset 13, and opset 11's flattening form) and the
reductions `ReduceMean`, `ReduceSum`, `ReduceMax`, `ReduceMin` at the end of small networks.

How they were made (any Python 3 with PyPI's `onnx`, `numpy` and `onnxruntime`):

    python formats/tests/data/classifier/make_fixtures.py

For each model NAME, this writes, beside this script:

* `NAME.onnx`: the model (float64 weights and input);
* `NAME.input.npy`: one input (the ONNX input without its batch dimension; flattened unless it
  is an image);
* `NAME.expected.npy`: onnxruntime's output (its own order of summation and its own `exp` and
  `log`), in float64 — except for `cnn_reduce_mean`, whose float32 twin onnxruntime runs (its
  CPU provider has no float64 `Conv`). The tests compare within a relative 1e-12 (1e-4 for the
  float32 run) and on the class, and knn's two engines bit for bit with each other.

The script is deterministic: running it again rewrites the same bytes.
"""

import os

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def model(name, nodes, inits, in_shape, out_shape, opset, dtype=TensorProto.DOUBLE):
    cast = (lambda v: v.astype(np.float32) if v.dtype == np.float64 else v) if dtype == TensorProto.FLOAT else (lambda v: v)
    graph = helper.make_graph(
        nodes,
        name,
        [helper.make_tensor_value_info("input", dtype, [1, *in_shape])],
        [helper.make_tensor_value_info("output", dtype, out_shape)],
        [numpy_helper.from_array(cast(v), k) for k, v in inits.items()],
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="make_fixtures.py")
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def save(name, m, x, peer=None):
    """Writes the model, its input and the output of `peer` (the model itself by default)."""
    data = m.SerializeToString()
    with open(os.path.join(HERE, f"{name}.onnx"), "wb") as f:
        f.write(data)
    # knn reads an image as (C, H, W) and any other input as a vector (the input flattened).
    np.save(os.path.join(HERE, f"{name}.input.npy"), x if x.ndim == 3 else x.reshape(-1))
    peer = data if peer is None else peer.SerializeToString()
    session = onnxruntime.InferenceSession(peer, providers=["CPUExecutionProvider"])
    feed = x[None, ...] if m is None or peer is data else x[None, ...].astype(np.float32)
    out = session.run(None, {"input": feed})[0]
    np.save(os.path.join(HERE, f"{name}.expected.npy"), np.asarray(out, dtype=np.float64).reshape(-1))


def mlp(rng, last, opset, axis):
    """Gemm 6→8, Relu, Gemm 8→4, then `last` (Softmax or LogSoftmax) along `axis`."""
    inits = {
        "W0": rng.normal(size=(8, 6)),
        "b0": rng.normal(size=8) * 0.1,
        "W1": rng.normal(size=(4, 8)),
        "b1": rng.normal(size=4) * 0.1,
    }
    nodes = [
        helper.make_node("Gemm", ["input", "W0", "b0"], ["h0"], transB=1),
        helper.make_node("Relu", ["h0"], ["r0"]),
        helper.make_node("Gemm", ["r0", "W1", "b1"], ["logits"], transB=1),
        helper.make_node(last, ["logits"], ["output"], axis=axis),
    ]
    return nodes, inits


def main():
    rng = np.random.default_rng(2029)
    for name, last, opset, axis in [
        ("mlp_softmax", "Softmax", 13, -1),
        ("mlp_log_softmax_opset11", "LogSoftmax", 11, 1),
    ]:
        nodes, inits = mlp(rng, last, opset, axis)
        save(name, model(name, nodes, inits, [6], [1, 4], opset), rng.normal(size=6))

    # conv 2→3 (3×3, pads 1) → relu → ReduceMean over H, W (keepdims) → Flatten → Gemm 3→4 →
    # Softmax: global average pooling written as a reduction.
    inits = {
        "K": rng.normal(size=(3, 2, 3, 3)) * 0.5,
        "kb": rng.normal(size=3) * 0.1,
        "W": rng.normal(size=(4, 3)),
        "b": rng.normal(size=4) * 0.1,
    }
    nodes = [
        helper.make_node("Conv", ["input", "K", "kb"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("ReduceMean", ["r"], ["m"], axes=[2, 3], keepdims=1),
        helper.make_node("Flatten", ["m"], ["f"], axis=1),
        helper.make_node("Gemm", ["f", "W", "b"], ["logits"], transB=1),
        helper.make_node("Softmax", ["logits"], ["output"], axis=1),
    ]
    args = ("cnn_reduce_mean", nodes, inits, [2, 5, 5], [1, 4], 13)
    x = rng.normal(size=(2, 5, 5))
    save("cnn_reduce_mean", model(*args), x, peer=model(*args, dtype=TensorProto.FLOAT))

    # ReduceMax over the rows of a (1, 3, 4) value (axes an attribute, no kept dims), then
    # ReduceMin of the four maxima keeping its axis: (1, 1).
    nodes = [
        helper.make_node("ReduceMax", ["input"], ["mx"], axes=[1], keepdims=0),
        helper.make_node("ReduceMin", ["mx"], ["output"], axes=[1], keepdims=1),
    ]
    save("reduce_max_min", model("reduce_max_min", nodes, {}, [3, 4], [1, 1], 13), rng.normal(size=(3, 4)))
    # ReduceSum with its axes an input (opset 13) over the columns, no kept dims: (1, 3).
    nodes = [helper.make_node("ReduceSum", ["input", "axes"], ["output"], keepdims=0)]
    inits = {"axes": np.array([2], dtype=np.int64)}
    save("reduce_sum_axes_input", model("reduce_sum_axes_input", nodes, inits, [3, 4], [1, 3], 13), rng.normal(size=(3, 4)))


if __name__ == "__main__":
    main()
