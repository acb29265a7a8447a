"""The Python package's costs, in one run: its call overhead at batch 1 over the library call
it makes (`Batch::run_values`), its throughput at batch 4096 against onnxruntime's Python
InferenceSession on the same arrays (beside the ratio of the command's library call,
`Batch::run`), and knn.dask's speed-up from one worker to two on 2^20 rows.

Reads the networks of `peer_data` and the JSON lines of the `api_call` example (the Rust
calls); `benches/peers/python-run` does it all in one command.

Usage: python.py DATA_DIR API_CALL.jsonl [SECONDS_PER_POINT]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from compare import best_time, load_network, onnx_model, read_points, session  # noqa: E402

import knn  # noqa: E402


def dask_speedup(network: str, rows: int) -> list[tuple[int, float]]:
    import dask.array as da
    from dask.distributed import Client, LocalCluster

    import knn.dask

    x = np.random.default_rng(20).uniform(-0.5, 0.5, size=(rows, 5))
    expected = knn.load(network).run(x)
    times = []
    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=None) as cluster, \
                Client(cluster) as client:
            darr = da.from_array(x, chunks=(rows // 16, 5)).persist()  # the data on the workers first
            knn.dask.run(network, darr).compute()  # every worker loads the network once
            best = float("inf")
            for _ in range(3):
                start = time.perf_counter()
                got = knn.dask.run(network, darr).compute()
                best = min(best, time.perf_counter() - start)
            assert np.array_equal(got, expected), "the cluster's rows differ from the single process's"
            times.append((workers, best))
            client.close()
    return times


def main() -> int:
    data_dir, api_results = Path(sys.argv[1]), Path(sys.argv[2])
    budget = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
    rust = read_points(api_results)
    import onnxruntime as ort

    print(f"knn {knn.__version__}, onnxruntime {ort.__version__}, numpy {np.__version__}")
    print(f"{'network':8} {'threads':>7} {'batch':>5} {'command call':>12} {'values call':>12} "
          f"{'Python call':>12} {'overhead':>9} {'ort':>12} {'ort/Python':>10} {'ort/command':>11}")
    for net in dict.fromkeys(name for name, _, _ in rust):
        program = knn.load(str(data_dir / net / "net.knn"))
        inputs = np.load(data_dir / net / "inputs.npy")
        model = onnx_model(load_network(data_dir / net))
        for threads in (1, 2):
            runner = session(model, threads)
            for batch in (1, 4096):
                rows = np.ascontiguousarray(inputs[:batch])
                ours = best_time(lambda: program.run(rows, threads=threads), budget)
                theirs = best_time(lambda: runner.run(None, {"x": rows}), budget)
                point = rust[(net, threads, batch)]
                command, values = point["latency_us"] * 1e-6, point["values_latency_us"] * 1e-6
                print(f"{net:8} {threads:>7} {batch:>5} {command * 1e6:>10.2f}µs {values * 1e6:>10.2f}µs "
                      f"{ours * 1e6:>10.2f}µs {(ours - values) * 1e6:>7.2f}µs {theirs * 1e6:>10.2f}µs "
                      f"{theirs / ours:>9.2f}x {theirs / command:>10.2f}x")
    acas = str(Path(__file__).resolve().parents[2] / "data/acasxu/ACASXU_experimental_v2a_1_1.nnet")
    times = dask_speedup(acas, 1 << 20)
    for workers, seconds in times:
        print(f"knn.dask.run, ACAS Xu 1_1, 2^20 rows, {workers} worker(s) × 1 thread: {seconds:.3f} s "
              f"({(1 << 20) / seconds / 1e6:.2f} M rows/s)")
    print(f"speed-up from 1 to 2 workers: {times[0][1] / times[1][1]:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
