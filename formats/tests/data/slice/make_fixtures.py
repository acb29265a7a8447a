#!/usr/bin/env python3
"""Makes the ONNX `Slice` and `Concat` fixtures of formats/tests/import_slice.rs (part of knn;
the project's licence): a `Slice` in the middle of small networks, its bounds constant inputs
(opset 13: a step, an `INT_MAX` end) or attributes (opset 9: a negative end, two axes of an
image), and a `Concat` of two branches computed from one hidden layer (opset 13, axis -1).

How they were made (any Python 3 with PyPI's `onnx`, `numpy` and `onnxruntime`):

    python formats/tests/data/slice/make_fixtures.py

For each model NAME, this writes, beside this script, `NAME.onnx` (float64 weights and input),
`NAME.input.npy` (one input without its batch dimension, flattened: knn reads an image as
`(C, H, W)` only when a convolution or a pool reads it, and these have none) and
`NAME.expected.npy` (onnxruntime's output, float64). The tests compare within a relative 1e-12
and on the class, and knn's two engines bit for bit with each other.

The script is deterministic: running it again rewrites the same bytes.
"""

import os

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
INT_MAX = 2**63 - 1


def model(name, nodes, inits, in_shape, out_shape, opset):
    graph = helper.make_graph(
        nodes,
        name,
        [helper.make_tensor_value_info("input", TensorProto.DOUBLE, [1, *in_shape])],
        [helper.make_tensor_value_info("output", TensorProto.DOUBLE, out_shape)],
        [numpy_helper.from_array(v, k) for k, v in inits.items()],
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="make_fixtures.py")
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def save(name, m, x):
    data = m.SerializeToString()
    with open(os.path.join(HERE, f"{name}.onnx"), "wb") as f:
        f.write(data)
    np.save(os.path.join(HERE, f"{name}.input.npy"), x.reshape(-1))
    session = onnxruntime.InferenceSession(data, providers=["CPUExecutionProvider"])
    out = session.run(None, {"input": x[None, ...]})[0]
    np.save(os.path.join(HERE, f"{name}.expected.npy"), np.asarray(out, dtype=np.float64).reshape(-1))


def main():
    rng = np.random.default_rng(2030)
    # Gemm 6→8, Relu, Slice of the odd elements (start 1, end INT_MAX, step 2: 4 of them), Gemm
    # 4→3; the bounds constant inputs (opset 13).
    inits = {
        "W0": rng.normal(size=(8, 6)),
        "b0": rng.normal(size=8) * 0.1,
        "starts": np.array([1], dtype=np.int64),
        "ends": np.array([INT_MAX], dtype=np.int64),
        "axes": np.array([-1], dtype=np.int64),
        "steps": np.array([2], dtype=np.int64),
        "W1": rng.normal(size=(3, 4)),
        "b1": rng.normal(size=3) * 0.1,
    }
    nodes = [
        helper.make_node("Gemm", ["input", "W0", "b0"], ["h"], transB=1),
        helper.make_node("Relu", ["h"], ["r"]),
        helper.make_node("Slice", ["r", "starts", "ends", "axes", "steps"], ["s"]),
        helper.make_node("Gemm", ["s", "W1", "b1"], ["output"], transB=1),
    ]
    save("mlp_slice_step", model("mlp_slice_step", nodes, inits, [6], [1, 3], 13), rng.normal(size=6))

    # An image (2, 4, 5): channel 1 only, columns 1 … 3 (end -1), by attributes (opset 9); then
    # Flatten and Gemm 12→3.
    inits = {"W": rng.normal(size=(3, 12)), "b": rng.normal(size=3) * 0.1}
    nodes = [
        helper.make_node("Slice", ["input"], ["s"], starts=[1, 1], ends=[2, -1], axes=[1, 3]),
        helper.make_node("Flatten", ["s"], ["f"], axis=1),
        helper.make_node("Gemm", ["f", "W", "b"], ["output"], transB=1),
    ]
    save("image_slice_opset9", model("image_slice_opset9", nodes, inits, [2, 4, 5], [1, 3], 9), rng.normal(size=(2, 4, 5)))

    # Gemm 6→8, Relu, then two branches of it, Gemm 8→3 and Gemm 8→2 then Tanh, joined by
    # Concat(axis = -1) into 5, Gemm 5→3.
    inits = {
        "W0": rng.normal(size=(8, 6)),
        "b0": rng.normal(size=8) * 0.1,
        "Wa": rng.normal(size=(3, 8)),
        "ba": rng.normal(size=3) * 0.1,
        "Wb": rng.normal(size=(2, 8)),
        "bb": rng.normal(size=2) * 0.1,
        "W1": rng.normal(size=(3, 5)),
        "b1": rng.normal(size=3) * 0.1,
    }
    nodes = [
        helper.make_node("Gemm", ["input", "W0", "b0"], ["h"], transB=1),
        helper.make_node("Relu", ["h"], ["r"]),
        helper.make_node("Gemm", ["r", "Wa", "ba"], ["a"], transB=1),
        helper.make_node("Gemm", ["r", "Wb", "bb"], ["g"], transB=1),
        helper.make_node("Tanh", ["g"], ["t"]),
        helper.make_node("Concat", ["a", "t"], ["c"], axis=-1),
        helper.make_node("Gemm", ["c", "W1", "b1"], ["output"], transB=1),
    ]
    save("mlp_concat_branches", model("mlp_concat_branches", nodes, inits, [6], [1, 3], 13), rng.normal(size=6))


if __name__ == "__main__":
    main()
