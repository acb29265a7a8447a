#!/usr/bin/env python3
"""Makes the ONNX fixtures of formats/tests/import_matmul.rs (part of knn; the project's
licence): `MatMul` of two computed values, which knn imports as Ext-15's `matmul`.

How they were made (any Python 3 with PyPI's `onnx`, `numpy` and `onnxruntime`):

    /work/split/onnxvenv/bin/python formats/tests/data/matmul/make_fixtures.py

For each model NAME, this writes, beside this script, what ../residual/make_fixtures.py writes
(its `Graph` does the work): `NAME.onnx` (float64, opset 13), `NAME.input.npy` (the input
flattened: knn holds an input that is not an image as a vector), `NAME.expected.npy` (float64 loops in the order K-NN's rules
state: `matmul`'s elements each from 0.0, their products in increasing order, multiply then
add) and `NAME.onnxruntime.npy` (onnxruntime's output on the model cast to float32).

The script is deterministic: running it again rewrites the same bytes.
"""

import importlib.util
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("residual_fixtures",
                                               os.path.join(HERE, "..", "residual", "make_fixtures.py"))
residual = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(residual)
# The models are written beside this script.
residual.HERE = HERE


def matmul_reference(a, b):
    """NumPy's matmul of `a` (..., M, K) and `b` (..., K, N), batch axes of equal extent, each
    element `((0.0 + a[.., i, 0] * b[.., 0, j]) + a[.., i, 1] * b[.., 1, j]) + ...`."""
    batch, (m, k), n = a.shape[:-2], a.shape[-2:], b.shape[-1]
    out = np.zeros((*batch, m, n))
    for index in np.ndindex(*batch, m, n):
        *bi, i, j = index
        acc = 0.0
        for p in range(k):
            acc = acc + a[(*bi, i, p)] * b[(*bi, p, j)]
        out[index] = acc
    return out


class Graph(residual.Graph):
    def reshape(self, x, shape):
        y = self.value[x]
        target = self.init(np.array([1, *shape], dtype=np.int64))
        return self.node("Reshape", [x, target], y.reshape(shape))

    def matmul(self, a, b):
        return self.node("MatMul", [a, b], matmul_reference(self.value[a], self.value[b]))


def flat_input(g):
    """knn holds an input that is not an image (C, H, W) as a vector: its input file is flat."""
    np.save(os.path.join(HERE, f"{g.name}.input.npy"), g.x.reshape(-1))


def main():
    rng = np.random.default_rng(15)

    # relu(x) (2, 3) times x read as (3, 2): two branches of the input meet in a product, then
    # the dense head (flatten, gemm).
    g = Graph("matmul_branches", (2, 3), rng)
    product = g.matmul(g.relu("input"), g.reshape("input", (3, 2)))
    g.save(g.gemm(g.flatten(product), 3))
    flat_input(g)

    # A batch of two: relu(x) (2, 2, 3) times x read as (2, 3, 2), matrix by matrix.
    g = Graph("matmul_batched", (2, 2, 3), rng)
    product = g.matmul(g.relu("input"), g.reshape("input", (2, 3, 2)))
    g.save(g.gemm(g.flatten(product), 4))
    flat_input(g)
    print("fixtures written")


if __name__ == "__main__":
    main()
