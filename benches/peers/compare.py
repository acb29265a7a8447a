"""Runs the benchmark networks in onnxruntime and prints its throughput beside knn's.

Reads the networks written by `cargo run --release -p knn-benches --example peer_data -- DIR`
and the JSON lines of `cargo run --release -p knn-benches --example throughput`; builds each
network as an f64 ONNX graph (MatMul, Add, Relu, ArgMax: what the K-NN program computes),
checks that onnxruntime's classes agree with knn's, and times it at the same batch sizes and
thread counts. `benches/peers/run` does all of this in one command.

Usage: compare.py DATA_DIR KNN_THROUGHPUT.jsonl [SECONDS_PER_POINT]
"""

import json
import sys
import time
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

BATCHES = (1, 64, 4096)
THREADS = (1, 2)


def load_network(directory: Path):
    layers = []
    while (directory / f"W{len(layers)}.npy").exists():
        k = len(layers)
        layers.append((np.load(directory / f"W{k}.npy"), np.load(directory / f"b{k}.npy")))
    return layers


def onnx_model(layers) -> bytes:
    """x[N, in] -> (MatMul W^T, Add b, Relu)* -> MatMul, Add -> ArgMax(axis 1): the classes."""
    nodes, initializers = [], []
    current = "x"
    for k, (weights, bias) in enumerate(layers):
        initializers.append(numpy_helper.from_array(np.ascontiguousarray(weights.T), f"Wt{k}"))
        initializers.append(numpy_helper.from_array(bias, f"b{k}"))
        nodes.append(helper.make_node("MatMul", [current, f"Wt{k}"], [f"m{k}"]))
        nodes.append(helper.make_node("Add", [f"m{k}", f"b{k}"], [f"z{k}"]))
        current = f"z{k}"
        if k + 1 < len(layers):
            nodes.append(helper.make_node("Relu", [current], [f"h{k}"]))
            current = f"h{k}"
    nodes.append(helper.make_node("ArgMax", [current], ["class"], axis=1, keepdims=0))
    graph = helper.make_graph(
        nodes,
        "mlp",
        [helper.make_tensor_value_info("x", TensorProto.DOUBLE, ["N", layers[0][0].shape[1]])],
        [helper.make_tensor_value_info("class", TensorProto.INT64, ["N"])],
        initializers,
    )
    # IR version 8 (ONNX 1.10): every onnxruntime release of the last years reads it.
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model)
    return model.SerializeToString()


def session(model: bytes, threads: int) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])


def best_time(run, budget: float) -> float:
    """The best mean time of one call over rounds of calls, within `budget` seconds in all."""
    start = time.perf_counter()
    run()
    once = max(time.perf_counter() - start, 1e-7)
    per_round = max(1, int(budget / 10 / once))
    best = float("inf")
    while time.perf_counter() - start < budget or best == float("inf"):
        round_start = time.perf_counter()
        for _ in range(per_round):
            run()
        best = min(best, (time.perf_counter() - round_start) / per_round)
    return best


def read_points(path: Path) -> dict:
    """JSON lines of measurements, by (network, threads, batch)."""
    points = {}
    for line in path.read_text().splitlines():
        point = json.loads(line)
        points[(point["net"], point["threads"], point["batch"])] = point
    return points


def main() -> int:
    data_dir, knn_results = Path(sys.argv[1]), Path(sys.argv[2])
    budget = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
    knn = read_points(knn_results)
    print(f"onnxruntime {ort.__version__}, numpy {np.__version__}; f64; knn in exact mode")
    print(f"{'network':8} {'threads':>7} {'batch':>5} {'knn inputs/s':>14} {'ort inputs/s':>14} {'knn/ort':>8}")
    status = 0
    for net in dict.fromkeys(name for name, _, _ in knn):
        layers = load_network(data_dir / net)
        inputs = np.load(data_dir / net / "inputs.npy")
        expected = np.load(data_dir / net / "classes.npy")
        model = onnx_model(layers)
        agree = session(model, 1).run(None, {"x": inputs})[0]
        mismatches = int(np.sum(agree != expected))
        if mismatches:
            # Different summation orders may flip a near tie; more than a handful is a real disagreement.
            print(f"{net}: onnxruntime and knn disagree on {mismatches} of {len(expected)} classes")
            status = 1 if mismatches > len(expected) // 1000 else status
        for threads in THREADS:
            runner = session(model, threads)
            for batch in BATCHES:
                rows = np.ascontiguousarray(inputs[:batch])
                seconds = best_time(lambda: runner.run(None, {"x": rows}), budget)
                ort_rate = batch / seconds
                ours = knn[(net, threads, batch)]["inputs_per_second"]
                print(f"{net:8} {threads:>7} {batch:>5} {ours:>14,.0f} {ort_rate:>14,.0f} {ours / ort_rate:>7.2f}x")
    return status


if __name__ == "__main__":
    sys.exit(main())
