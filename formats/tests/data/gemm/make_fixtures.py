#!/usr/bin/env python3
"""Makes the ONNX fixtures of formats/tests/import_gemm.rs (part of knn; the project's licence):
`Gemm` whose operands are not a vector and a constant matrix (two computed values, a constant
times a computed matrix), with `transA`/`transB`, `alpha`, `beta` and a constant or computed
`C`, which knn imports as Ext-15's `matmul`, a scaling and an addition.

How they were made (any Python 3 with PyPI's `onnx`, `numpy` and `onnxruntime`):

    /work/split/onnxvenv/bin/python formats/tests/data/gemm/make_fixtures.py

For each model NAME, this writes, beside this script:

* `NAME.onnx`: the model (float64 weights and input, opset 13), which ends on the `Gemm`;
* `NAME.input.npy`: the input flattened (knn holds an input that is not an image as a vector);
* `NAME.expected.npy`: the output by float64 loops in the order K-NN's rules state: each element
  of `A' B'` from 0.0, its products in increasing order, one multiply then one add; then
  `* alpha` (when it is not 1); then `+ beta * C` (`beta * C` rounded once; C broadcast);
* `NAME.onnxruntime.npy`: onnxruntime's output on the model as it is (float64).

onnxruntime's CPU Gemm (MLAS) computes the same operations with fused multiply-adds: each sum
`fma(a, b, acc)` from 0.0, then `fma(alpha, sum, beta * C)`. The script checks that: its loops in
that order (`fused_reference`, each fma exact through `fractions`) give onnxruntime's bits on
every element. It prints how many elements knn's order gives bit for bit (docs/importing.md).

The script is deterministic: running it again rewrites the same bytes.
"""

import os
from fractions import Fraction

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def fma(a, b, c):
    """a * b + c rounded once (Fraction arithmetic is exact; float() rounds to nearest)."""
    return float(Fraction(a) * Fraction(b) + Fraction(c))


def gemm_reference(a, b, c, alpha, beta, fused=False):
    """`alpha * a @ b + beta * c`, a (M, K), b (K, N), c broadcast to (M, N) or None. knn's
    order, or with `fused` onnxruntime's."""
    (m, k), n = a.shape, b.shape[1]
    bias = None if c is None or beta == 0.0 else np.broadcast_to(c, (m, n)) * beta
    out = np.zeros((m, n))
    for i in range(m):
        for j in range(n):
            acc = 0.0
            for p in range(k):
                acc = fma(a[i, p], b[p, j], acc) if fused else acc + a[i, p] * b[p, j]
            if fused:
                acc = fma(alpha, acc, 0.0 if bias is None else bias[i, j])
            else:
                acc = acc * alpha if alpha != 1.0 else acc
                acc = acc + bias[i, j] if bias is not None else acc
            out[i, j] = acc
    return out


def values(rng, shape):
    return rng.standard_normal(shape).astype(np.float64)


class Graph:
    """Named values from `input`, each computed here as its node is added."""

    def __init__(self, name, shape, rng):
        self.name, self.rng, self.shape = name, rng, shape
        self.x = values(rng, shape)
        self.nodes, self.inits = [], []
        self.value = {"input": self.x}
        self.fused = {"input": self.x}

    def node(self, op, inputs, result, fused=None, **attrs):
        out = f"{op.lower()}{len(self.nodes)}"
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        self.value[out] = result
        self.fused[out] = result if fused is None else fused
        return out

    def init(self, array):
        name = f"c{len(self.inits)}"
        self.inits.append(numpy_helper.from_array(array, name))
        self.value[name] = self.fused[name] = array
        return name

    def relu(self, x):
        y = self.value[x]
        return self.node("Relu", [x], np.where(y > 0.0, y, 0.0), np.where(self.fused[x] > 0.0, self.fused[x], 0.0))

    def reshape(self, x, shape):
        target = self.init(np.array(shape, dtype=np.int64))
        return self.node("Reshape", [x, target], self.value[x].reshape(shape), self.fused[x].reshape(shape))

    def gemm(self, a, b, c=None, alpha=1.0, beta=1.0, trans_a=0, trans_b=0):
        # The attributes are float32: the model computes with their float32 values.
        alpha, beta = float(np.float32(alpha)), float(np.float32(beta))
        def of(table):
            x, y = table[a], table[b]
            return (x.T if trans_a else x), (y.T if trans_b else y), (None if c is None else table[c])
        inputs = [a, b] + ([] if c is None else [c])
        return self.node("Gemm", inputs, gemm_reference(*of(self.value), alpha, beta),
                         gemm_reference(*of(self.fused), alpha, beta, fused=True),
                         alpha=alpha, beta=beta, transA=trans_a, transB=trans_b)

    def save(self, output):
        self.nodes[-1].output[0] = "output"
        for n in self.nodes:
            n.input[:] = ["output" if i == output else i for i in n.input]
        expected, fused = self.value[output], self.fused[output]
        x_info = helper.make_tensor_value_info("input", TensorProto.DOUBLE, [1, *self.shape])
        y_info = helper.make_tensor_value_info("output", TensorProto.DOUBLE, list(expected.shape))
        graph = helper.make_graph(self.nodes, self.name, [x_info], [y_info], self.inits)
        model = helper.make_model(graph, producer_name="make_fixtures.py",
                                  opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 7
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(HERE, f"{self.name}.onnx"))
        np.save(os.path.join(HERE, f"{self.name}.input.npy"), self.x.reshape(-1))
        np.save(os.path.join(HERE, f"{self.name}.expected.npy"), expected)
        session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        (y,) = session.run(None, {"input": self.x[None]})
        y = y.reshape(expected.shape)
        assert np.array_equal(y.view(np.uint64), fused.view(np.uint64)), (self.name, y, fused)
        assert np.allclose(y, expected, rtol=1e-12, atol=1e-12), (self.name, y, expected)
        np.save(os.path.join(HERE, f"{self.name}.onnxruntime.npy"), y)
        same = int(np.sum(y.view(np.uint64) == expected.view(np.uint64)))
        print(f"{self.name}: knn's order gives onnxruntime's bits on {same} of {y.size} elements")
        return same, y.size


def main():
    rng = np.random.default_rng(3)
    totals = [0, 0]

    def tally(result):
        totals[0] += result[0]
        totals[1] += result[1]

    # Two computed values: relu(x) and x, each read as (5, 6), A transposed: A'(6, 5) B(5, 6),
    # alpha and beta, a constant C of shape (1, 6) broadcast over the rows.
    g = Graph("gemm_two_computed", (30,), rng)
    a = g.reshape(g.relu("input"), [5, 6])
    b = g.reshape("input", [5, 6])
    c = g.init(values(rng, (1, 6)))
    tally(g.save(g.gemm(a, b, c, alpha=0.5, beta=-1.25, trans_a=1)))

    # B transposed, and C computed: relu(x) (3, 6) times x (3, 6) transposed, plus beta times
    # a computed row, the product of a constant row by x read as (6, 3).
    g = Graph("gemm_computed_bias", (18,), rng)
    wide = g.reshape(g.relu("input"), [3, 6])
    narrow = g.reshape("input", [3, 6])
    row = g.gemm(g.init(values(rng, (1, 6))), g.reshape("input", [6, 3]))
    tally(g.save(g.gemm(wide, narrow, row, beta=0.75, trans_b=1)))

    # A constant times a computed matrix: a (3, 4) constant given as (4, 3) with transA, times
    # relu(x) read as (4, 5), alpha, and a column C (3, 1).
    g = Graph("gemm_constant_left", (20,), rng)
    m = g.reshape(g.relu("input"), [4, 5])
    tally(g.save(g.gemm(g.init(values(rng, (4, 3))), m, g.init(values(rng, (3, 1))), alpha=1.5, trans_a=1)))
    print(f"in all, knn's order gives onnxruntime's bits on {totals[0]} of {totals[1]} elements")


if __name__ == "__main__":
    main()
