#!/usr/bin/env python3
"""Makes the ONNX fixtures of formats/tests/import_dense_to_image.rs (part of knn; the project's
licence): graphs whose input is a vector that a dense layer and a `Reshape` make an image before
convolutions or pools, as VNN-COMP 2022's `cifar_biasfield` networks do (`x` of shape (1, 16),
`Gemm` to 3072 values, `Reshape` to (1, 3, 32, 32), then eight `Conv`s).

How they were made (any Python 3 with PyPI's `onnx`, `numpy` and `onnxruntime`):

    /work/split/onnxvenv/bin/python formats/tests/data/dense_to_image/make_fixtures.py

For each model NAME, this writes, beside this script:

* `NAME.onnx`: the model (float64 weights and input);
* `NAME.input.npy`: one input, a vector (the ONNX input (1, n) without its batch dimension);
* `NAME.expected.npy`: the output, computed here by float64 loops in the order K-NN's rules
  state (../pool/make_fixtures.py's `conv2d`, pool and `Gemm` loops; the `Reshape` keeps the
  elements in C order);
* `NAME.onnxruntime.npy`: onnxruntime's output for the model cast to float32, which the
  reference must match within float32 rounding and whose class the tests compare with knn's.

The script is deterministic: running it again rewrites the same bytes.
"""

import importlib.util
import os

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("pool_fixtures", os.path.join(HERE, "..", "pool", "make_fixtures.py"))
pool_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pool_fixtures)
conv2d_reference, gemm_reference = pool_fixtures.conv2d_reference, pool_fixtures.gemm_reference
pool_reference, values, as_float32 = pool_fixtures.pool_reference, pool_fixtures.values, pool_fixtures.as_float32


def relu(y):
    return np.where(y > 0.0, y, 0.0)  # K-NN's relu: x > 0.0 ? x : 0.0


def save(name, n_in, nodes, inits, x, expected, opset):
    x_info = helper.make_tensor_value_info("input", TensorProto.DOUBLE, [1, n_in])
    y_info = helper.make_tensor_value_info("output", TensorProto.DOUBLE, [1, expected.size])
    graph = helper.make_graph(nodes, name, [x_info], [y_info], inits)
    model = helper.make_model(graph, producer_name="make_fixtures.py", opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 7
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(HERE, f"{name}.onnx"))
    np.save(os.path.join(HERE, f"{name}.input.npy"), x)
    np.save(os.path.join(HERE, f"{name}.expected.npy"), expected)
    session = onnxruntime.InferenceSession(as_float32(model).SerializeToString(), providers=["CPUExecutionProvider"])
    (y,) = session.run(None, {"input": x[None].astype(np.float32)})
    y = y.reshape(expected.shape)
    assert np.allclose(y, expected, rtol=1e-4, atol=1e-4), (name, y, expected)
    assert np.argmax(y) == np.argmax(expected), name
    np.save(os.path.join(HERE, f"{name}.onnxruntime.npy"), y)


def main():
    rng = np.random.default_rng(2022)

    # cifar_biasfield's shape, small: Gemm (16 → 2·4·4) → Reshape to (1, 2, 4, 4) by a
    # `Constant` node (opset 9, as the benchmark's) → Conv 3×3 pad 1 → Relu → Flatten → Gemm.
    x = values(rng, (6,))
    w0, b0 = values(rng, (32, 6)), values(rng, (32,))
    wc, bc = values(rng, (3, 2, 3, 3)), values(rng, (3,))
    w1, b1 = values(rng, (4, 48)), values(rng, (4,))
    image = gemm_reference(x, w0, b0).reshape(2, 4, 4)
    conv = relu(conv2d_reference(image, wc, bc, (1, 1), (1, 1, 1, 1), (1, 1), 1))
    expected = gemm_reference(conv.reshape(-1), w1, b1)
    shape = helper.make_tensor("shape_value", TensorProto.INT64, [4], [1, 2, 4, 4])
    nodes = [
        helper.make_node("Gemm", ["input", "W0", "B0"], ["dense"], name="dense", transB=1),
        helper.make_node("Constant", [], ["shape"], name="shape", value=shape),
        helper.make_node("Reshape", ["dense", "shape"], ["image"], name="to_image"),
        helper.make_node("Conv", ["image", "Wc", "Bc"], ["conv"], name="conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["conv"], ["relu"], name="relu"),
        helper.make_node("Flatten", ["relu"], ["flat"], name="flatten", axis=1),
        helper.make_node("Gemm", ["flat", "W1", "B1"], ["output"], name="head", transB=1),
    ]
    inits = [numpy_helper.from_array(a, n) for a, n in [(w0, "W0"), (b0, "B0"), (wc, "Wc"), (bc, "Bc"), (w1, "W1"), (b1, "B1")]]
    save("dense_reshape_conv", 6, nodes, inits, x, expected, opset=9)

    # A dense layer, a relu, a `Reshape` to one channel by `[-1, 1, 4, 8]` (an initializer),
    # then a 2×2 max pool of stride 2 and the head: the image has one channel (it must stay an
    # image, not become a vector again).
    x = values(rng, (5,))
    w0, b0 = values(rng, (32, 5)), values(rng, (32,))
    w1, b1 = values(rng, (3, 8)), values(rng, (3,))
    image = relu(gemm_reference(x, w0, b0)).reshape(1, 4, 8)
    pooled = pool_reference(image, "max", (2, 2), (2, 2), (0, 0, 0, 0))
    expected = gemm_reference(pooled.reshape(-1), w1, b1)
    nodes = [
        helper.make_node("Gemm", ["input", "W0", "B0"], ["dense"], name="dense", transB=1),
        helper.make_node("Relu", ["dense"], ["relu"], name="relu"),
        helper.make_node("Reshape", ["relu", "shape"], ["image"], name="to_image"),
        helper.make_node("MaxPool", ["image"], ["pool"], name="pool", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["pool"], ["flat"], name="flatten", axis=1),
        helper.make_node("Gemm", ["flat", "W1", "B1"], ["output"], name="head", transB=1),
    ]
    inits = [numpy_helper.from_array(a, n) for a, n in [(w0, "W0"), (b0, "B0"), (w1, "W1"), (b1, "B1")]]
    inits.append(numpy_helper.from_array(np.array([-1, 1, 4, 8], dtype=np.int64), "shape"))
    save("dense_reshape_maxpool", 5, nodes, inits, x, expected, opset=13)
    print("fixtures written")


if __name__ == "__main__":
    main()
