"""knn against onnxruntime on networks of real size: peak memory and times of loading,
compiling and running one input, in one run (issue 26, point 3).

Networks:
  * `mlp-784-2048x4-10`: generated, 784 -> 2048 -> 2048 -> 2048 -> 2048 -> 10 with ReLU between
    (14,217,226 parameters), seeded float64 weights (normal, std 1/sqrt(fan_in)) and small
    biases, written as an f64 ONNX model (Gemm, Relu) that knn imports;
  * `mnist-net_256x6`: VNN-COMP 2022's (data/mnist_fc), which knn reads as it is (float32 weights,
    widened exactly) and onnxruntime runs as an f64 graph built from the same weights;
  * `tiny` (784 -> 2 -> 10): the constant of the memory bound, what the processes hold beyond the weights.

knn is measured as separate processes of the command-line tool under `/usr/bin/time -v` (peak
resident set; wall time by this script's clock): `run` (load + compile + one input), `batch` on
0 rows with one thread (load + compile), `import -o` (the program text written), `verify
--around … --eps 1e-6`, and the small-step reference on mnist-net_256x2. The Python package,
in fresh processes, gives the time of `knn.load`, of the first `Network.run` of one row (which
compiles the plan) and of one input on the compiled network (best of 50). onnxruntime (f64 graph: MatMul, Add, Relu, ArgMax, as compare.py builds it,
one intra-op thread) is measured in fresh Python processes: session creation from the bytes
in memory and from the file, one run (the first, and the best of 50), and the peak resident set
of a process that imports onnxruntime, creates the session from the file and runs once.

Usage: large.py KNN_BINARY [REPETITIONS]   (benches/peers/large does it all in one command)
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(Path(__file__).parent))
from compare import onnx_model  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "target" / "peer-data" / "large"
MNIST = ROOT / "data" / "mnist_fc"
SEED = 2026
EPS = "1e-6"


# ---------------------------------------------------------------- networks


def knn_onnx(layers, path: Path) -> None:
    """An f64 ONNX MLP that `knn import` reads: x[1, in] -> (Gemm transB=1, Relu)* -> Gemm."""
    nodes, initializers = [], []
    current = "x"
    for k, (weights, bias) in enumerate(layers):
        initializers.append(numpy_helper.from_array(np.ascontiguousarray(weights, dtype=np.float64), f"W{k}"))
        initializers.append(numpy_helper.from_array(np.ascontiguousarray(bias, dtype=np.float64), f"b{k}"))
        out = f"z{k}" if k + 1 < len(layers) else "y"
        nodes.append(helper.make_node("Gemm", [current, f"W{k}", f"b{k}"], [out], transB=1))
        current = out
        if k + 1 < len(layers):
            nodes.append(helper.make_node("Relu", [current], [f"h{k}"]))
            current = f"h{k}"
    graph = helper.make_graph(
        nodes,
        "mlp",
        [helper.make_tensor_value_info("x", TensorProto.DOUBLE, [1, layers[0][0].shape[1]])],
        [helper.make_tensor_value_info("y", TensorProto.DOUBLE, [1, layers[-1][0].shape[0]])],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model)
    path.write_bytes(model.SerializeToString())


def seeded_layers(sizes, seed):
    rng = np.random.default_rng(seed)
    layers = []
    for fan_in, fan_out in zip(sizes, sizes[1:]):
        weights = rng.standard_normal((fan_out, fan_in)) / np.sqrt(fan_in)
        layers.append((weights, rng.uniform(-0.01, 0.01, fan_out)))
    return layers


def mnist_layers(path: Path):
    """The (weight[out, in], bias) of each Gemm of a VNN-COMP MNIST model, widened to f64."""
    model = onnx.load(path)
    init = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    layers = []
    for node in model.graph.node:
        if node.op_type == "Gemm":
            attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
            assert attrs.get("alpha", 1.0) == 1.0 and attrs.get("beta", 1.0) == 1.0 and attrs.get("transB") == 1
            assert attrs.get("transA", 0) == 0
            layers.append((init[node.input[1]].astype(np.float64), init[node.input[2]].astype(np.float64)))
        else:
            assert node.op_type in ("Flatten", "Relu"), node.op_type
    return layers


def vnnlib_centre(path: Path) -> np.ndarray:
    """The centre of the input box of a VNN-LIB property: an MNIST image."""
    lo, hi = {}, {}
    for op, i, v in re.findall(r"\(assert \((<=|>=) X_(\d+) ([-+0-9.eE]+)\)\)", path.read_text()):
        (hi if op == "<=" else lo)[int(i)] = float(v)
    n = len(lo)
    return np.array([(lo[i] + hi[i]) / 2 for i in range(n)])


def parameters(layers) -> int:
    return sum(w.size + b.size for w, b in layers)


def write_networks():
    """name -> dict(knn=path knn reads, ort=f64 model path, x=input .npy, p=parameters, layers)."""
    DATA.mkdir(parents=True, exist_ok=True)
    nets = {}
    specs = [
        ("tiny", None, [784, 2, 10]),
        ("mlp-784-2048x4-10", None, [784, 2048, 2048, 2048, 2048, 10]),
        ("mnist-net_256x6", MNIST / "onnx" / "mnist-net_256x6.onnx", None),
    ]
    image = vnnlib_centre(MNIST / "vnnlib" / "prop_0_0.03.vnnlib")
    for name, original, sizes in specs:
        if original is None:
            layers = seeded_layers(sizes, SEED)
            knn_path = DATA / f"{name}.onnx"
            if not knn_path.exists():
                knn_onnx(layers, knn_path)
            x = np.random.default_rng(SEED + 1).uniform(0.0, 1.0, sizes[0])
        else:
            layers = mnist_layers(original)
            knn_path = original
            x = image
        ort_path = DATA / f"{name}.ort-f64.onnx"
        if not ort_path.exists():
            ort_path.write_bytes(onnx_model(layers))
        x_path = DATA / f"{name}.x.npy"
        np.save(x_path, x)
        np.save(DATA / f"{name}.rows0.npy", np.zeros((0, x.size)))
        expected = x
        for k, (w, b) in enumerate(layers):
            expected = w @ expected + b
            if k + 1 < len(layers):
                expected = np.maximum(expected, 0.0)
        nets[name] = dict(knn=knn_path, ort=ort_path, x=x_path, p=parameters(layers), cls=int(np.argmax(expected)),
                          bytes=knn_path.stat().st_size)
    return nets


# ---------------------------------------------------------------- measuring


def timed(argv, cwd=ROOT):
    """Runs argv under /usr/bin/time -v: (wall seconds, peak KiB, stdout, return code)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        start = time.perf_counter()
        done = subprocess.run(["/usr/bin/time", "-v", "-o", report.name, *map(str, argv)], cwd=cwd,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - start
        text = Path(report.name).read_text()
    peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))
    return wall, peak, done.stdout, done.returncode, done.stderr


def input_name(knn: Path, net: dict) -> str:
    """The program's input name, from the header `knn import -o -` writes first (// Input: `_0`, …)."""
    with subprocess.Popen([knn, "import", net["knn"], "-o", "-"], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True) as importer:
        for line in importer.stdout:
            if found := re.match(r"// Input: `([^`]+)`", line):
                importer.kill()  # the rest is the weights
                return found.group(1)
    raise SystemExit(f"knn import {net['knn']}: no input name in the program's header")


def small_step(knn: Path, reps: int):
    """The reference engine on mnist-net_256x2, one input (the MNIST image of prop_0)."""
    net = MNIST / "onnx" / "mnist-net_256x2.onnx"
    x = DATA / "mnist-net_256x6.x.npy"
    rows = []
    for _ in range(reps):
        wall, peak, stdout, code, stderr = timed([knn, "run", net, "--engine", "small-step", "--input", f"_0={x}"])
        if code != 0:
            raise SystemExit(f"small-step run: exit code {code}\n{stderr}")
        rows.append((wall, peak, json.loads(stdout)))
    big = timed([knn, "run", net, "--input", f"_0={x}"])
    return rows, json.loads(big[2])


def knn_measure(knn: Path, net: dict, name: str, reps: int):
    x, rows0 = net["x"], str(net["x"]).replace(".x.npy", ".rows0.npy")
    out = DATA / f"{Path(net['knn']).stem}.knn"
    commands = {
        "run": [knn, "run", net["knn"], "--input", f"{name}={x}"],
        "batch-0": [knn, "batch", net["knn"], "--input", f"{name}={rows0}", "--threads", "1"],
        "import": [knn, "import", net["knn"], "-o", out, "--force"],
        "verify": [knn, "verify", net["knn"], "--around", f"{name}={x}", "--eps", EPS, "--claim", "argmax-stable",
                   "--timeout", "60", "--quiet"],
    }
    results = {key: [] for key in commands}
    answers = {}
    for _ in range(reps):
        for key, argv in commands.items():
            wall, peak, stdout, code, stderr = timed(argv)
            if key == "verify":
                ok = code in (0, 10, 11)
                answers["verify"] = stdout.splitlines()[0] if stdout else stderr.strip()
            else:
                ok = code == 0
            if not ok:
                raise SystemExit(f"{' '.join(map(str, argv))}: exit code {code}\n{stderr}")
            if key == "run":
                scores = json.loads(stdout)
                answers["class"] = int(np.argmax(scores))
            results[key].append((wall, peak))
    if out.exists():
        out.unlink()  # hundreds of MB of text for the large network
    return results, answers


def ort_child(mode: str, model: str, x_path: str) -> None:
    """In a fresh process: `time` prints the timings as JSON, `peak` creates and runs once, `idle`
    only imports (the process's constant)."""
    import onnxruntime as ort

    if mode == "idle":
        print(json.dumps({"ort": ort.__version__}))
        return
    x = np.load(x_path)[None, :]
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    if mode == "peak":
        start = time.perf_counter()
        session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        created = time.perf_counter() - start
        out = session.run(None, {"x": x})[0]
        print(json.dumps({"create_and_run": time.perf_counter() - start, "create": created, "class": int(out[0])}))
        return
    start = time.perf_counter()
    data = Path(model).read_bytes()
    read = time.perf_counter() - start
    from_bytes, from_file = [], []
    for _ in range(3):
        start = time.perf_counter()
        session = ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])
        from_bytes.append(time.perf_counter() - start)
        del session
        start = time.perf_counter()
        session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        from_file.append(time.perf_counter() - start)
    start = time.perf_counter()
    first = session.run(None, {"x": x})[0]
    first_run = time.perf_counter() - start
    runs = []
    for _ in range(50):
        start = time.perf_counter()
        session.run(None, {"x": x})
        runs.append(time.perf_counter() - start)
    print(json.dumps({"read": read, "from_bytes": min(from_bytes), "from_file": min(from_file),
                      "first_run": first_run, "run": min(runs), "run_median": statistics.median(runs),
                      "class": int(first[0]), "ort": ort.__version__}))


def ort_measure(net: dict, reps: int):
    me = [sys.executable, __file__, "--ort-child"]
    peaks, times = [], []
    for _ in range(reps):
        wall, peak, stdout, code, stderr = timed(me + ["peak", net["ort"], net["x"]])
        assert code == 0, stderr
        peaks.append((wall, peak, json.loads(stdout)))
        wall, peak, stdout, code, stderr = timed(me + ["time", net["ort"], net["x"]])
        assert code == 0, stderr
        times.append(json.loads(stdout))
    return peaks, times


def ort_idle(reps: int):
    me = [sys.executable, __file__, "--ort-child", "idle", "-", "-"]
    return [timed(me)[1] for _ in range(reps)]


def knn_child(model: str, x_path: str) -> None:
    """In a fresh process: knn.load, the first Network.run (which compiles the plan) and the
    best of 50 more runs of one row, as JSON."""
    import knn

    x = np.load(x_path)
    start = time.perf_counter()
    network = knn.load(model)
    loaded = time.perf_counter() - start
    start = time.perf_counter()
    network.run(x)
    first = time.perf_counter() - start
    runs = []
    for _ in range(50):
        start = time.perf_counter()
        network.run(x)
        runs.append(time.perf_counter() - start)
    print(json.dumps({"load": loaded, "first_run": first, "run": min(runs), "run_median": statistics.median(runs)}))


def knn_python(net: dict, reps: int):
    """knn.load and Network.run on one row, each repetition in a fresh process."""
    rows = []
    for _ in range(reps):
        _, peak, stdout, code, stderr = timed([sys.executable, __file__, "--knn-child", net["knn"], net["x"]])
        if code != 0:
            raise SystemExit(f"the Python package: exit code {code}\n{stderr}")
        rows.append(json.loads(stdout) | {"peak": peak})
    return rows


# ---------------------------------------------------------------- report


def best_median(values):
    return min(values), statistics.median(values)


def fmt_s(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds * 1e6:.0f} µs"


def fmt_mib(kib: float) -> str:
    if kib < 1024:
        return f"{kib:.0f} KiB"
    return f"{kib / 1024:,.0f} MiB" if kib >= 10 * 1024 else f"{kib / 1024:.1f} MiB"


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--ort-child":
        ort_child(*sys.argv[2:5])
        return 0
    if len(sys.argv) > 1 and sys.argv[1] == "--knn-child":
        knn_child(*sys.argv[2:4])
        return 0
    knn = Path(sys.argv[1]).resolve()
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    import onnxruntime as ort

    print(f"onnxruntime {ort.__version__}, numpy {np.__version__}, onnx {onnx.__version__}; "
          f"{reps} repetitions, best / median; load average {os.getloadavg()}")
    nets = write_networks()
    idle = ort_idle(reps)
    report = {}
    for label, net in nets.items():
        name = input_name(knn, net)
        knn_results, answers = knn_measure(knn, net, name, reps)
        peaks, times = ort_measure(net, reps)
        python = knn_python(net, reps)
        report[label] = dict(net=net, knn=knn_results, answers=answers, ort_peaks=peaks, ort_times=times, py=python)
        ort_class = times[0]["class"]
        print(f"\n== {label}: {net['p']:,} parameters ({net['bytes']:,} bytes of ONNX read by knn), input `{name}`; "
              f"load average {os.getloadavg()}")
        print(f"classes: knn run {answers['class']}, onnxruntime {ort_class}, numpy f64 {net['cls']}; "
              f"verify: {answers['verify']}")
        if answers["class"] != ort_class:
            print("  ** knn and onnxruntime disagree on the class **")
        for key, rows in knn_results.items():
            (w_best, w_med), (p_best, p_med) = best_median([r[0] for r in rows]), best_median([r[1] for r in rows])
            print(f"  knn {key:8} wall {fmt_s(w_best):>9} / {fmt_s(w_med):>9}   peak {fmt_mib(p_best):>9} / "
                  f"{fmt_mib(p_med):>9}   (all: {', '.join(fmt_s(r[0]) for r in rows)})")
        for key in ("load", "first_run", "run", "run_median", "peak"):
            values = [r[key] for r in python]
            show = fmt_mib if key == "peak" else fmt_s
            print(f"  knn.{key:11} {show(min(values)):>9} / {show(statistics.median(values)):>9}")
        for key in ("read", "from_bytes", "from_file", "first_run", "run", "run_median"):
            values = [t[key] for t in times]
            print(f"  ort {key:11} {fmt_s(min(values)):>9} / {fmt_s(statistics.median(values)):>9}")
        cr = [p[2]["create_and_run"] for p in peaks]
        print(f"  ort process: create + run {fmt_s(min(cr))} / {fmt_s(statistics.median(cr))}, "
              f"wall {fmt_s(min(p[0] for p in peaks))}, peak {fmt_mib(min(p[1] for p in peaks))} / "
              f"{fmt_mib(statistics.median(p[1] for p in peaks))}")

    steps, big_scores = small_step(knn, reps)
    print(f"\n== small-step reference, mnist-net_256x2, one input; load average {os.getloadavg()}")
    print(f"  wall {', '.join(fmt_s(r[0]) for r in steps)}; peak {', '.join(fmt_mib(r[1]) for r in steps)}; "
          f"class {int(np.argmax(steps[0][2]))}; the scores equal big-step's bit for bit: "
          f"{all(r[2] == big_scores for r in steps)}")

    # The summary: medians of each measurement, ratios of this run.
    print(f"\nonnxruntime idle process (python, numpy, onnxruntime imported): peak "
          f"{fmt_mib(statistics.median(idle))}")
    tiny = report["tiny"]
    med = lambda rows, key: statistics.median(r[key] for r in rows)  # noqa: E731
    print("\nIn one process each (medians; knn: the Python package, onnxruntime: InferenceSession, one thread):")
    print("| network | parameters | knn.load | knn first run (compile + 1 input) | knn one input | "
          "ort session (file) | ort session (bytes) | ort first run | ort one run | "
          "knn load / ort session (file) | knn load + first run / ort session + first run | "
          "knn one input / ort one run |")
    print("| --- " * 12 + "|")
    for label in ("mlp-784-2048x4-10", "mnist-net_256x6"):
        r = report[label]
        py, times = r["py"], r["ort_times"]
        load, first, one = med(py, "load"), med(py, "first_run"), med(py, "run")
        ff, fb, ofirst, orun = (med(times, key) for key in ("from_file", "from_bytes", "first_run", "run"))
        print(f"| {label} | {r['net']['p']:,} | {fmt_s(load)} | {fmt_s(first)} | {fmt_s(one)} | {fmt_s(ff)} | "
              f"{fmt_s(fb)} | {fmt_s(ofirst)} | {fmt_s(orun)} | {load / ff:.2f}× | "
              f"{(load + first) / (ff + ofirst):.2f}× | {one / orun:.2f}× |")
    print("\nAs processes (medians; wall time from start to exit, /usr/bin/time -v's maximum resident set):")
    print("| network | knn run (load + compile + 1 input) | knn batch, 0 rows (load + compile) | knn import -o | "
          "knn verify, ε = 1e-6 | ort process (Python, import, session, 1 run) | "
          "knn run / ort session + first run | knn import / ort session (file) |")
    print("| --- " * 8 + "|")
    for label in ("tiny", "mlp-784-2048x4-10", "mnist-net_256x6"):
        r = report[label]
        k, times = r["knn"], r["ort_times"]
        wall = {key: statistics.median(x[0] for x in rows) for key, rows in k.items()}
        ocr = statistics.median(x[2]["create_and_run"] for x in r["ort_peaks"])
        owall = statistics.median(x[0] for x in r["ort_peaks"])
        print(f"| {label} | {fmt_s(wall['run'])} | {fmt_s(wall['batch-0'])} | {fmt_s(wall['import'])} | "
              f"{fmt_s(wall['verify'])} | {fmt_s(owall)} | {wall['run'] / ocr:.2f}× | "
              f"{wall['import'] / med(times, 'from_file'):.2f}× |")
    print("\nPeak resident set (medians), and the bound 3 × 8 · P bytes beyond the tiny network's peak:")
    print("| network | 24 · P | knn run | knn batch, 0 rows | knn import -o | knn verify | knn.load + runs | "
          "ort process | knn run − tiny, in 8·P | batch − tiny | import − tiny | verify − tiny |")
    print("| --- " * 12 + "|")
    for label in ("tiny", "mlp-784-2048x4-10", "mnist-net_256x6"):
        r = report[label]
        k, p = r["knn"], r["net"]["p"]
        peaks = {key: statistics.median(x[1] for x in rows) for key, rows in k.items()}
        over = lambda key: (peaks[key] - statistics.median(x[1] for x in tiny["knn"][key])) * 1024 / (8 * p)  # noqa: E731
        ort_peak = statistics.median(x[1] for x in r["ort_peaks"])
        print(f"| {label} | {fmt_mib(24 * p / 1024)} | {fmt_mib(peaks['run'])} | {fmt_mib(peaks['batch-0'])} | "
              f"{fmt_mib(peaks['import'])} | {fmt_mib(peaks['verify'])} | {fmt_mib(med(r['py'], 'peak'))} | "
              f"{fmt_mib(ort_peak)} | {over('run'):.2f} | {over('batch-0'):.2f} | {over('import'):.2f} | "
              f"{over('verify'):.2f} |")
    print(f"\nload average at the end {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
