#!/usr/bin/env python3
"""onnxruntime's class on the centre of every instance of VNN-COMP 2021's verivital benchmark
(data/verivital/), for formats/tests/import_verivital.rs (part of knn; the project's licence).

How `onnxruntime_classes.csv` was made (Python 3 with PyPI's `onnx`, `numpy`, `onnxruntime`;
onnxruntime 1.32.0 on x86-64 Linux):

    /tmp/onnxvenv/bin/python formats/tests/data/verivital/onnxruntime_classes.py

For each line of data/verivital/verivital_instances.csv, the centre of the property's input
box is `(lo + hi) / 2` per input X_i in float64 (the bounds read from the `(assert (<= X_i v))`
and `(assert (>= X_i v))` lines), reshaped to (1, 1, 28, 28) and rounded to float32, the
network's input type. The CSV has one line per instance: the network, the property, the label
the property's first comment names, onnxruntime's class (the arg-max of its float32 scores,
the first on a tie) and the ten scores (`%.9g`, enough to read each float32 back exactly).
knn's own results are not involved: the test compares knn with this file.
"""

import csv
import os
import re

import numpy as np
import onnxruntime

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "..", "..", "data", "verivital")
BOUND = re.compile(r"\(assert \((<=|>=) X_(\d+) (\S+)\)\)")
LABEL = re.compile(r"; Mnist property with label: (\d+)\.")


def centre(path):
    lo, hi, label = {}, {}, None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if label is None and (m := LABEL.match(line)):
                label = int(m[1])
            if m := BOUND.match(line):
                (hi if m[1] == "<=" else lo)[int(m[2])] = float(m[3])
    n = len(lo)
    assert n == 784 and sorted(lo) == list(range(n)) == sorted(hi), path
    return np.array([(lo[i] + hi[i]) / 2 for i in range(n)]), label


def main():
    sessions = {}
    rows = []
    with open(os.path.join(DATA, "verivital_instances.csv")) as f:
        for network, prop, _timeout in csv.reader(f):
            if network not in sessions:
                sessions[network] = onnxruntime.InferenceSession(
                    os.path.join(DATA, network), providers=["CPUExecutionProvider"])
            x, label = centre(os.path.join(DATA, prop))
            session = sessions[network]
            (y,) = session.run(None, {session.get_inputs()[0].name: x.reshape(1, 1, 28, 28).astype(np.float32)})
            scores = y.reshape(-1)
            rows.append([network, prop, label, int(np.argmax(scores)), *("%.9g" % s for s in scores)])
    with open(os.path.join(HERE, "onnxruntime_classes.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["network", "property", "label", "class", *(f"score_{k}" for k in range(10))])
        w.writerows(rows)
    print(f"{len(rows)} instances; onnxruntime's class is the label on "
          f"{sum(r[2] == r[3] for r in rows)}")


if __name__ == "__main__":
    main()
