#!/usr/bin/env python3
"""Makes the ONNX fixtures of formats/tests/import_arith.rs (part of knn; the project's
licence): `Add`, `Sub`, `Mul`, `Div` of two computed values whose shapes broadcast, which knn
imports as Ext-8's `addTensor`, `subTensor`, `mulTensor`, `divTensor`.

How they were made (any Python 3 with PyPI's `onnx`, `numpy` and `onnxruntime`):

    /work/split/onnxvenv/bin/python formats/tests/data/arith/make_fixtures.py

For each model NAME, this writes, beside this script, what ../residual/make_fixtures.py writes
(its `Graph` does the work): `NAME.onnx` (float64, opset 13), `NAME.input.npy` (the input
flattened: knn holds an input that is not an image as a vector), `NAME.expected.npy` (NumPy's
float64 broadcasting: each element one IEEE operation, as K-NN's rules compute it) and
`NAME.onnxruntime.npy` (onnxruntime's output on the model cast to float32).

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


class Graph(residual.Graph):
    def gemm_row(self, x, n):
        """`Gemm` of a (1, K) value: a computed (1, n) row."""
        y = self.value[x]
        wt, b = residual.values(self.rng, (n, y.size)), residual.values(self.rng, (n,))
        return self.node("Gemm", [x, self.init(wt), self.init(b)], residual.gemm_reference(y, wt, b)[None],
                         transB=1)

    def binary(self, op, a, b):
        f = {"Mul": np.multiply, "Div": np.divide, "Sub": np.subtract, "Add": np.add}[op]
        return self.node(op, [a, b], f(self.value[a], self.value[b]))


def main():
    rng = np.random.default_rng(8)

    # x (2, 3) and a row computed from it, g = Gemm(flatten(x)) (1, 3): relu(x) * g scales each
    # row of relu(x) by g; that divided by x (the same shape, read flat by knn); g minus that
    # (the row first); plus x.
    g = Graph("arith_broadcast", (2, 3), rng)
    row = g.gemm_row(g.flatten("input"), 3)
    scaled = g.binary("Mul", g.relu("input"), row)
    divided = g.binary("Div", scaled, "input")
    difference = g.binary("Sub", row, divided)
    total = g.binary("Add", difference, "input")
    g.save(g.gemm(g.flatten(total), 3))
    np.save(os.path.join(HERE, f"{g.name}.input.npy"), g.x.reshape(-1))
    print("fixtures written")


if __name__ == "__main__":
    main()
