#!/usr/bin/env python3
"""Makes the ONNX residual-network fixtures of formats/tests/import_residual.rs (part of knn; the
project's licence): graphs that branch, a value read by several nodes and the sum (or
difference) of two computed values.

How they were made (any Python 3 with PyPI's `onnx`, `numpy` and `onnxruntime`):

    /tmp/onnxvenv/bin/python formats/tests/data/residual/make_fixtures.py

For each model NAME, this writes, beside this script:

* `NAME.onnx`: the model (float64 weights and input, opset 13);
* `NAME.input.npy`: one input of shape (C, H, W) (the ONNX input without its batch dimension);
* `NAME.expected.npy`: the output, computed here by float64 loops in the order K-NN's rules
  state (../pool/make_fixtures.py's `conv2d` and `Gemm`; `Add` and `Sub` of two computed
  values element by element, `a + b` and `a - b`);
* `NAME.onnxruntime.npy`: onnxruntime's output for the model cast to float32 (its tensors and
  input), which the reference must match within float32 rounding and whose class (the index
  of its largest output) the tests compare with knn's.

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
values, as_float32 = pool_fixtures.values, pool_fixtures.as_float32


class Graph:
    """A graph of named values from `input` (1, C, H, W), each computed here as the node is
    added (the reference evaluated eagerly on the one input)."""

    def __init__(self, name, shape, rng):
        self.name, self.rng = name, rng
        self.shape = shape
        self.x = values(rng, shape)
        self.nodes, self.inits = [], []
        self.value = {"input": self.x}
        self.count = 0

    def node(self, op, inputs, result, **attrs):
        out = f"{op.lower()}{self.count}"
        self.count += 1
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        self.value[out] = result
        return out

    def init(self, array):
        name = f"c{len(self.inits)}"
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def conv(self, x, m, kernel, stride=1, pad=0):
        y = self.value[x]
        wt, b = values(self.rng, (m, y.shape[0], kernel, kernel)), values(self.rng, (m,))
        pads = (pad, pad, pad, pad)
        result = conv2d_reference(y, wt, b, (stride, stride), pads, (1, 1), 1)
        return self.node("Conv", [x, self.init(wt), self.init(b)], result, kernel_shape=[kernel, kernel],
                         strides=[stride, stride], pads=list(pads))

    def relu(self, x):
        y = self.value[x]
        return self.node("Relu", [x], np.where(y > 0.0, y, 0.0))  # K-NN's relu: x > 0.0 ? x : 0.0

    def add(self, a, b):
        return self.node("Add", [a, b], self.value[a] + self.value[b])

    def sub(self, a, b):
        return self.node("Sub", [a, b], self.value[a] - self.value[b])

    def mul(self, x, per_channel):
        c = np.array(per_channel, dtype=np.float64).reshape(1, -1, 1, 1)
        return self.node("Mul", [x, self.init(c)], self.value[x] * c[0])

    def flatten(self, x):
        return self.node("Flatten", [x], self.value[x].reshape(-1), axis=1)

    def gemm(self, x, n):
        y = self.value[x]
        wt, b = values(self.rng, (n, y.size)), values(self.rng, (n,))
        return self.node("Gemm", [x, self.init(wt), self.init(b)], gemm_reference(y, wt, b), transB=1)

    def save(self, output, nodes=None):
        """Writes the model with `output` as its output; `nodes` reorders the nodes (by name)."""
        self.nodes[[n.output[0] for n in self.nodes].index(output)].output[0] = "output"
        for n in self.nodes:
            n.input[:] = ["output" if i == output else i for i in n.input]
        expected = self.value[output]
        x_info = helper.make_tensor_value_info("input", TensorProto.DOUBLE, [1, *self.shape])
        y_info = helper.make_tensor_value_info("output", TensorProto.DOUBLE, [1, *expected.shape])
        ordered = self.nodes if nodes is None else [next(n for n in self.nodes if n.name == k) for k in nodes]
        graph = helper.make_graph(ordered, self.name, [x_info], [y_info], self.inits)
        model = helper.make_model(graph, producer_name="make_fixtures.py",
                                  opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 7
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(HERE, f"{self.name}.onnx"))
        np.save(os.path.join(HERE, f"{self.name}.input.npy"), self.x)
        np.save(os.path.join(HERE, f"{self.name}.expected.npy"), expected)
        session = onnxruntime.InferenceSession(as_float32(model).SerializeToString(),
                                               providers=["CPUExecutionProvider"])
        (y,) = session.run(None, {"input": self.x[None].astype(np.float32)})
        y = y.reshape(expected.shape)
        assert np.allclose(y, expected, rtol=1e-4, atol=1e-4), (self.name, y, expected)
        assert np.argmax(y) == np.argmax(expected), self.name
        np.save(os.path.join(HERE, f"{self.name}.onnxruntime.npy"), y)


def main():
    rng = np.random.default_rng(29)

    # A ResNet basic block: conv → relu → conv, plus the block's input, relu, then the dense
    # head (flatten, gemm).
    g = Graph("resnet_block", (2, 5, 5), rng)
    h = g.conv(g.relu(g.conv("input", 2, 3, pad=1)), 2, 3, pad=1)
    g.save(g.gemm(g.flatten(g.relu(g.add(h, "input"))), 4))

    # A block that halves the image: the main path's first conv has stride 2, and the skip
    # path a 1×1 conv of stride 2 (VNN-COMP 2021's cifar10_resnet has two such blocks); the
    # first conv and relu before the block, as there.
    g = Graph("resnet_block_projection", (2, 6, 6), rng)
    r = g.relu(g.conv("input", 3, 3, pad=1))
    main_path = g.conv(g.relu(g.conv(r, 4, 3, stride=2, pad=1)), 4, 3, pad=1)
    skip = g.conv(r, 4, 1, stride=2)
    g.save(g.gemm(g.flatten(g.relu(g.add(main_path, skip))), 5))

    # One value read three times: by a conv, by a scaling (which must write a copy, not the
    # value), and by a subtraction at the end; the sum of the two convolved branches in
    # between has the kept value as its second operand.
    g = Graph("value_used_three_times", (2, 4, 4), rng)
    r = g.relu(g.conv("input", 2, 3, pad=1))
    a = g.conv(r, 2, 3, pad=1)
    b = g.conv(g.mul(r, [0.5, -1.5]), 2, 1)
    d = g.sub(g.add(a, b), r)
    g.save(g.gemm(g.flatten(d), 3))
    print("fixtures written")


if __name__ == "__main__":
    main()
